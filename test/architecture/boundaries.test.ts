/**
 * The walls between runtime/, classes/_platform/ and each class (eslint.boundaries.mjs) hold on the
 * whole tree, and the rule does refuse what it is meant to refuse: each probe is linted as if it were a
 * file at its path, through the real ESLint CLI with only that config.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../..');
const eslint = path.join(root, 'node_modules/eslint/bin/eslint.js');
let config: string;

beforeAll(() => {
  // the walls alone, without the type-aware rules (which need a TypeScript project for every file)
  config = path.join(root, `.eslint-walls-${process.pid}.tmp.mjs`);
  fs.writeFileSync(
    config,
    "import walls from './eslint.boundaries.mjs';\nexport default [{ ignores: ['**/node_modules/**'] }, ...walls];\n",
  );
});
afterAll(() => fs.rmSync(config, { force: true }));

function lint(args: string[], input?: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [eslint, '--no-config-lookup', '--no-inline-config', '-c', config, ...args], {
    cwd: root,
    input,
    encoding: 'utf8',
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const PROBES: { name: string; file: string; code: string; refused: boolean }[] = [];
const member = 'classes/Member/use-cases/probe.ts';
const allowed = (name: string, file: string, code: string) => PROBES.push({ name, file, code, refused: false });
const refused = (name: string, file: string, code: string) => PROBES.push({ name, file, code, refused: true });

allowed('a class imports its own modules', member, "import { memberError } from '../errors';");
allowed('a class imports the runtime public API', member, "import { client } from '../../../runtime';");
allowed('a class imports _platform', member, "import { notify } from '../../_platform/notify';");
allowed(
  'a class imports the types of another class entry',
  member,
  "import type { Tier } from '../../Tier/Tier.class';",
);
refused('a class imports another class module', member, "import { TierErrors } from '../../Tier/errors';");
refused('a class imports types of another class module', member, "import type { TierRecord } from '../../Tier/types';");
refused('a class imports another class entry as a value', member, "import { Tier } from '../../Tier/Tier.class';");
refused('a class re-exports another class module', member, "export { TierErrors } from '../../Tier/errors';");
allowed(
  'a class imports its own generated input types',
  'classes/Tier/use-cases/probe.ts',
  "import type { CreateTierInput } from '../../../schemas/Tier/inputs';",
);
refused(
  'a class imports the input types of another class',
  member,
  "import type { CreateTierInput } from '../../../schemas/Tier/inputs';",
);
refused(
  'a class imports a runtime internal',
  member,
  "import { Dispatcher } from '../../../runtime/actor/dispatcher';",
);
refused(
  '_platform imports the types of a class',
  'classes/_platform/probe.ts',
  "import type { Tier } from '../Tier/Tier.class';",
);
refused('the runtime imports a class', 'runtime/probe.ts', "import { memberError } from '../classes/Member/errors';");

test.each(PROBES.map((p, i) => [p.name, p.refused, i] as const))('%s: refused %s', (_name, isRefused, i) => {
  expect(probed[i]).toHaveLength(isRefused ? 1 : 0);
});

let probed: string[][] = [];
beforeAll(() => {
  const r = spawnSync(process.execPath, [path.join(__dirname, 'lint-probes.mjs'), config, 'boundaries/dependencies'], {
    cwd: root,
    input: JSON.stringify(PROBES.map(({ file, code }) => ({ file, code: `${code}\nexport const x = 1;\n` }))),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`lint-probes.mjs failed: ${r.stderr}`);
  probed = JSON.parse(r.stdout) as string[][];
}, 60_000);

test('runtime/ and classes/ keep their walls', () => {
  const { status, out } = lint(['runtime', 'classes']);
  expect(out.split('\n').filter((l) => l.includes('boundaries/dependencies'))).toEqual([]);
  expect(status).toBe(0);
}, 120_000);
