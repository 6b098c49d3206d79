/**
 * Clean edges: no import cycles among runtime/, classes/ and
 * examples/, type-only imports included (an `import type` cycle is still two
 * modules that cannot be understood apart); runtime/ imports nothing from
 * classes/, and classes/ and examples/ import the runtime only through its
 * public API, runtime/index.ts (GUIDE section 4). The graph comes from madge, which reads
 * TypeScript imports, re-exports and `import('…')` types through the
 * TypeScript parser and counts type-only imports unless told to skip them.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

interface MadgeResult {
  obj(): Record<string, string[]>;
  circular(): string[][];
  warnings(): { skipped: string[] };
}
type Madge = (paths: string[], config: Record<string, unknown>) => Promise<MadgeResult>;
// madge ships no type declarations
const madge = require('madge') as Madge;

const ROOT = path.resolve(__dirname, '../..');

function graph(baseDir: string, dirs: string[]): Promise<MadgeResult> {
  return madge(
    dirs.map((d) => path.join(baseDir, d)),
    {
      baseDir,
      fileExtensions: ['ts'],
      tsConfig: path.join(ROOT, 'tsconfig.json'),
      // count `import type` and `export type … from` edges too
      detectiveOptions: { ts: { skipTypeImports: false }, es6: { skipTypeImports: false } },
    },
  );
}

describe('import graph of runtime/, classes/ and examples/', () => {
  let result: MadgeResult;
  beforeAll(async () => {
    result = await graph(ROOT, ['runtime', 'classes', 'examples']);
  });

  it('reads every module and resolves every local import', () => {
    const files = Object.keys(result.obj());
    expect(files.filter((f) => f.startsWith('runtime/')).length).toBeGreaterThan(20);
    expect(files.filter((f) => f.startsWith('classes/')).length).toBeGreaterThan(20);
    expect(result.warnings().skipped).toEqual([]);
  });

  it('has no import cycle (type-only imports count)', () => {
    const cycles = result.circular().map((cycle) => [...cycle, cycle[0]].join(' → '));
    expect(cycles).toEqual([]);
  });

  it('runtime/ imports nothing from classes/', () => {
    const edges = Object.entries(result.obj()).flatMap(([file, deps]) =>
      file.startsWith('runtime/') ? deps.filter((d) => d.startsWith('classes/')).map((d) => `${file} → ${d}`) : [],
    );
    expect(edges).toEqual([]);
  });

  it('classes/ and examples/ reach runtime/ only through its public API (runtime/index.ts)', () => {
    const edges = Object.entries(result.obj()).flatMap(([file, deps]) =>
      file.startsWith('runtime/')
        ? []
        : deps.filter((d) => d.startsWith('runtime/') && d !== 'runtime/index.ts').map((d) => `${file} → ${d}`),
    );
    expect(edges).toEqual([]);
  });
});

describe('the cycle check itself', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-cycles-'));
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(path.join(dir, 'src/a.ts'), "import type { B } from './b';\nexport interface A { b?: B }\n");
    fs.writeFileSync(path.join(dir, 'src/b.ts'), "import type { A } from './a';\nexport interface B { a?: A }\n");
    fs.writeFileSync(path.join(dir, 'src/c.ts'), "export type { A } from './a';\n");
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds a cycle made only of type imports', async () => {
    const result = await graph(dir, ['src']);
    expect(result.circular()).toEqual([['src/a.ts', 'src/b.ts']]);
    expect(result.obj()['src/c.ts']).toEqual(['src/a.ts']);
  });
});
