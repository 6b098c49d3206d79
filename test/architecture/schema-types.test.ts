/**
 * schemas/<Class>/inputs.ts is what scripts/schema-types.ts generates from the class's input schemas: a schema
 * edited without `npm run schema-types` fails here, so a handler's input type cannot drift from what ajv admits.
 * The generator runs as its own process (prettier, which formats its output, loads itself with a dynamic import
 * that jest's module system does not run).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

function check(dir?: string): { status: number | null; stderr: string } {
  const r = spawnSync(tsx, ['scripts/schema-types.ts', '--check', ...(dir ? ['--dir', dir] : [])], {
    cwd: root,
    encoding: 'utf8',
  });
  return { status: r.status, stderr: r.stderr };
}

test('every class with input schemas has its generated input types, as the schemas give them', () => {
  const classes = fs
    .readdirSync(path.join(root, 'schemas'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  expect(classes.filter((c) => !fs.existsSync(path.join(root, 'schemas', c, 'inputs.ts')))).toEqual([]);
  expect(check()).toEqual({ status: 0, stderr: '' });
}, 120_000);

test('a schema changed without regenerating is found, and named', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-types-'));
  try {
    fs.cpSync(path.join(root, 'schemas', 'Tier'), path.join(dir, 'Tier'), { recursive: true });
    expect(check(dir).status).toBe(0);
    const file = path.join(dir, 'Tier', 'updateStatus.json');
    const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as { properties: Record<string, unknown> };
    schema.properties.reason = { type: 'string' };
    fs.writeFileSync(file, JSON.stringify(schema));
    const drifted = check(dir);
    expect(drifted.status).toBe(1);
    expect(drifted.stderr).toContain(path.join('Tier', 'inputs.ts'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

test('one type per input schema, named after its method', () => {
  const text = fs.readFileSync(path.join(root, 'schemas', 'Tier', 'inputs.ts'), 'utf8');
  for (const name of ['CreateTierInput', 'UpdateTierInput', 'AddEligibilityRuleInput', 'ListTiersInput'])
    expect(text).toMatch(new RegExp(`export (interface|type) ${name}\\b`));
});
