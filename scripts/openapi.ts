/**
 * `npm run openapi [file]`: writes the service's OpenAPI document (the one
 * `/openapi.json` serves) from the classes and schemas of CLASS_DIRS and
 * SCHEMA_DIRS (default classes/ and schemas/) to `file` (default
 * clients/openapi.json); the npm script then generates the typed client
 * clients/api.d.ts from it with openapi-typescript. The committed clients/ are
 * generated with PROJECT_ID, CLASS_DIRS and SCHEMA_DIRS unset.
 *
 * test/runtime/openapi-drift.test.ts builds the same document
 * (serviceOpenApi) and compares it with the committed clients/, so the
 * shipped client cannot drift from the classes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ClassRegistry } from '../runtime/actor/registry';
import { projectRoot } from '../runtime/config';
import { buildOpenApi } from '../runtime/http/openapi';

/** where the committed document is */
export const CLIENT_DOCUMENT = 'clients/openapi.json';

/** The service's OpenAPI document, from the class and schema folders `env` names (default classes/ and schemas/). */
export function serviceOpenApi(env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
  const root = projectRoot();
  const dirs = (value: string | undefined, fallback: string) =>
    (value ? value.split(',') : [fallback]).map((d) => path.resolve(root, d.trim()));
  const registry = ClassRegistry.fromDirectories(
    dirs(env.CLASS_DIRS, 'classes'),
    dirs(env.SCHEMA_DIRS, 'schemas'),
    env,
  );
  // title and version: package.json's name and version, as the served /openapi.json has them
  return buildOpenApi(registry, { projectId: env.PROJECT_ID || 'membership' });
}

/** the document as the file holds it */
export function serialise(doc: unknown): string {
  return JSON.stringify(doc, null, 2) + '\n';
}

if (require.main === module) {
  const doc = serviceOpenApi();
  const out = path.resolve(projectRoot(), process.argv[2] ?? CLIENT_DOCUMENT);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, serialise(doc));
  console.log(`wrote ${path.relative(process.cwd(), out)} (${Object.keys(doc.paths as object).length} paths)`);
}
