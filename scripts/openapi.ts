/**
 * `npm run openapi [file]`: writes the service's OpenAPI document (the one
 * `/openapi.json` serves) from the classes and schemas of CLASS_DIRS and
 * SCHEMA_DIRS (default classes/ and schemas/) to `file` (default
 * clients/openapi.json); the npm script then generates the typed client
 * clients/api.d.ts from it with openapi-typescript.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ClassRegistry } from '../runtime/actor/registry';
import { projectRoot } from '../runtime/config';
import { buildOpenApi } from '../runtime/http/openapi';

const root = projectRoot();
const dirs = (value: string | undefined, fallback: string) => (value ? value.split(',') : [fallback]).map((d) => path.resolve(root, d.trim()));
const registry = ClassRegistry.fromDirectories(dirs(process.env.CLASS_DIRS, 'classes'), dirs(process.env.SCHEMA_DIRS, 'schemas'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pkg = require(path.join(root, 'package.json')) as { version: string; description?: string };
const doc = buildOpenApi(registry, { projectId: process.env.PROJECT_ID || 'membership', title: 'Membership service', version: pkg.version });
const out = path.resolve(root, process.argv[2] ?? 'clients/openapi.json');
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');
console.log(`wrote ${path.relative(process.cwd(), out)} (${Object.keys(doc.paths as object).length} paths)`);
