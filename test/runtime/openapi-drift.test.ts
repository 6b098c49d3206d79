/**
 * The shipped typed client cannot drift from the classes: the committed
 * clients/openapi.json is the document the classes and schemas generate now
 * (scripts/openapi.ts), and clients/api.d.ts is what openapi-typescript makes
 * of it. A class, schema or runtime change that alters the document fails
 * here until `npm run openapi` is run and clients/ committed.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { projectRoot } from '../../runtime/config';
import { CLIENT_DOCUMENT, serialise, serviceOpenApi } from '../../scripts/openapi';

const ROOT = projectRoot();
const FIX =
  'clients/ is out of date: run `npm run openapi` (with PROJECT_ID, CLASS_DIRS and SCHEMA_DIRS unset) and commit clients/openapi.json and clients/api.d.ts';

type Json = Record<string, any>;

/** where the generated document (a) and the committed one (b) differ, as JSON pointers (the first few), for the failure message */
function differences(a: unknown, b: unknown, at = '', out: string[] = []): string[] {
  if (out.length >= 12) return out;
  if (JSON.stringify(a) === JSON.stringify(b)) return out;
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const key = `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!(k in (a as Json))) out.push(`${key}: in ${CLIENT_DOCUMENT} only (no longer generated)`);
      else if (!(k in (b as Json))) out.push(`${key}: missing in ${CLIENT_DOCUMENT}`);
      else differences((a as Json)[k], (b as Json)[k], key, out);
    }
    return out;
  }
  out.push(`${at || '/'}: differs`);
  return out;
}

function generateTypes(document: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-ts-'));
  const out = path.join(dir, 'api.d.ts');
  const cli = path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [cli, document, '-o', out], { cwd: ROOT }, (err, _stdout, stderr) => {
      if (err) return reject(new Error(`openapi-typescript failed: ${stderr || err.message}`));
      const text = fs.readFileSync(out, 'utf8');
      fs.rmSync(dir, { recursive: true, force: true });
      resolve(text);
    });
  });
}

describe('the committed typed client (clients/)', () => {
  it('clients/openapi.json is the document the classes and schemas generate now', () => {
    const committed = JSON.parse(fs.readFileSync(path.join(ROOT, CLIENT_DOCUMENT), 'utf8')) as Json;
    // the generator's own settings, not this process's (a PROJECT_ID or CLASS_DIRS of the test environment)
    const generated = serviceOpenApi({});
    const diff = differences(generated, committed);
    expect({ fix: diff.length ? FIX : 'none', differences: diff }).toEqual({ fix: 'none', differences: [] });
    // byte for byte too (key order, formatting): what `npm run openapi` writes
    expect(serialise(generated) === fs.readFileSync(path.join(ROOT, CLIENT_DOCUMENT), 'utf8') ? 'same' : FIX).toBe(
      'same',
    );
  });

  it('clients/api.d.ts is what openapi-typescript generates from clients/openapi.json', async () => {
    const types = await generateTypes(path.join(ROOT, CLIENT_DOCUMENT));
    expect(types.length).toBeGreaterThan(10_000);
    expect(types === fs.readFileSync(path.join(ROOT, 'clients/api.d.ts'), 'utf8') ? 'same' : FIX).toBe('same');
  });

  it('the comparison sees a change (a method gone, an answer changed)', () => {
    const generated = serviceOpenApi({}) as Json;
    const changed = JSON.parse(JSON.stringify(generated)) as Json;
    const [first] = Object.keys(changed.paths);
    delete changed.paths[first!];
    changed.components.schemas['Member.hrUpdateEmployee.answer'].required = ['success'];
    const diff = differences(generated, changed);
    expect(diff).toContain(`/paths/${first!.replace(/~/g, '~0').replace(/\//g, '~1')}: missing in ${CLIENT_DOCUMENT}`);
    expect(diff.some((d) => d.startsWith('/components/schemas/Member.hrUpdateEmployee.answer/required'))).toBe(true);
  });
});
