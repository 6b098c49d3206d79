/**
 * The image and the compose stack (no Docker engine needed): the Dockerfile's
 * base is a Node LTS line, its build context holds what it copies and no tests
 * or benchmarks, the image runs as a non-root user with what the runtime reads
 * from disk; and the compose health checks of api, worker and projector, run
 * as the containers run them (`node -e`), pass against real runtime processes
 * that are ready and fail against one that is draining or not there.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { projectRoot } from '../../runtime/config';
import { startTestRuntime, type TestRuntime } from '../support/harness';

const root = projectRoot();
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

// ---- Dockerfile -------------------------------------------------------------------------------

interface Instruction {
  op: string;
  args: string;
}

/** Instructions with their continuation lines joined, comments dropped. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = pending + line;
    pending = '';
    const m = /^(\w+)\s+(.*)$/.exec(full);
    if (m) out.push({ op: m[1].toUpperCase(), args: m[2].trim() });
  }
  return out;
}

/** Stages by FROM, with the image each resolves to (ARG defaults declared before the first FROM applied). */
function stages(list: Instruction[]): { image: string; name?: string; body: Instruction[] }[] {
  const args = new Map<string, string>();
  const out: { image: string; name?: string; body: Instruction[] }[] = [];
  for (const ins of list) {
    if (ins.op === 'ARG' && out.length === 0) {
      const [k, v] = ins.args.split('=');
      if (v !== undefined) args.set(k.trim(), v.trim());
    } else if (ins.op === 'FROM') {
      const [ref, , name] = ins.args.split(/\s+/);
      const image = ref.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => args.get(a ?? b) ?? '');
      out.push({ image, name, body: [] });
    } else if (out.length) {
      out[out.length - 1].body.push(ins);
    }
  }
  return out;
}

/** COPY sources and destination, flags (--from, --chown) apart. */
function copyOf(ins: Instruction): { from?: string; sources: string[]; dest: string } {
  const words = ins.args.split(/\s+/);
  const flags = words.filter((w) => w.startsWith('--'));
  const paths = words.filter((w) => !w.startsWith('--'));
  const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
  return { from, sources: paths.slice(0, -1), dest: paths[paths.length - 1] };
}

/** .dockerignore patterns (plain names and globs at the context root, as this repository uses them). */
function ignored(patterns: string[], rel: string): boolean {
  const first = rel.split('/')[0];
  return patterns.some((p) => {
    const re = new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    return re.test(rel) || re.test(first);
  });
}

const dockerignore = read('.dockerignore')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const dockerfile = stages(instructions(read('Dockerfile')));
const final = dockerfile[dockerfile.length - 1];

describe('Dockerfile', () => {
  test('every stage is built on a Node LTS line, 22 or later (even majors are the LTS lines)', () => {
    expect(dockerfile.length).toBeGreaterThan(1);
    for (const stage of dockerfile) {
      const m = /^node:(\d+)(?:[.-]|$)/.exec(stage.image);
      expect({ image: stage.image, node: m?.[1] }).toEqual({ image: stage.image, node: expect.stringMatching(/^\d+$/) });
      const major = Number(m![1]);
      expect(major).toBeGreaterThanOrEqual(22);
      expect(major % 2).toBe(0);
    }
  });

  test('the build context leaves out tests, benchmarks, node_modules and dist', () => {
    for (const dir of ['test', 'bench', 'node_modules', 'dist']) expect(ignored(dockerignore, `${dir}/x.ts`)).toBe(true);
    expect(ignored(dockerignore, 'runtime/main.ts')).toBe(false);
  });

  test('what it copies from the context is there, named one by one (no COPY . .), and never a test or benchmark', () => {
    const copies = dockerfile.flatMap((s) => s.body.filter((i) => i.op === 'COPY' || i.op === 'ADD').map(copyOf));
    const fromContext = copies.filter((c) => !c.from).flatMap((c) => c.sources);
    expect(fromContext.length).toBeGreaterThan(0);
    for (const src of fromContext) {
      expect(src).not.toMatch(/^\.\/?$/);
      expect(src).not.toMatch(/^(test|bench)(\/|$)/);
      // a source the context leaves out would fail the build
      expect({ src, exists: fs.existsSync(path.join(root, src)), ignored: ignored(dockerignore, src) }).toEqual({ src, exists: true, ignored: false });
    }
  });

  test('the stage that runs npm run build has every folder the build compiles, and the ones its sources import from', () => {
    const build = dockerfile.find((s) => s.body.some((i) => i.op === 'RUN' && /npm run build/.test(i.args)));
    expect(build).toBeDefined();
    const copied = new Set(build!.body.filter((i) => i.op === 'COPY' && !copyOf(i).from).flatMap((i) => copyOf(i).sources.map((s) => s.split('/')[0])));
    const tsconfig = JSON.parse(read('tsconfig.build.json')) as { include: string[] };
    const compiled = [...new Set(tsconfig.include.map((g) => g.split('/')[0]))];
    expect(compiled.length).toBeGreaterThan(0);
    // relative imports that leave a compiled folder (a JSON schema, say) need that folder in the stage too
    const imported = new Set<string>();
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = `${dir}/${e.name}`;
        if (e.isDirectory()) walk(rel);
        else if (e.name.endsWith('.ts')) {
          for (const m of read(rel).matchAll(/(?:from\s+|require\(|import\()\s*'(\.[^']+)'/g)) {
            const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[1]));
            if (!target.startsWith('..')) imported.add(target.split('/')[0]);
          }
        }
      }
    };
    compiled.forEach(walk);
    for (const dir of [...compiled, ...imported]) expect({ dir, copied: copied.has(dir) }).toEqual({ dir, copied: true });
  });

  test('the final image runs as a non-root user, with dist/ and what the runtime reads from disk', () => {
    const users = final.body.filter((i) => i.op === 'USER').map((i) => i.args);
    expect(users.length).toBeGreaterThan(0);
    expect(users[users.length - 1]).not.toMatch(/^(root|0)(:|$)/);
    // where each copied path lands under WORKDIR (a destination ending in / takes the source's name)
    const placed = final.body
      .filter((i) => i.op === 'COPY')
      .map(copyOf)
      .flatMap(({ sources, dest }) => sources.map((src) => path.posix.normalize(dest.endsWith('/') ? path.posix.join(dest, path.posix.basename(src)) : dest)));
    // package.json marks the project root the folders are found from (runtime/config.ts projectRoot);
    // the Lua scripts are read next to the compiled state store (runtime/actor/state-store.ts)
    for (const needed of ['package.json', 'node_modules', 'dist', 'dist/runtime/actor/lua', 'schemas', 'workflow-configs']) {
      expect(placed).toContain(needed);
    }
    const cmd = final.body.filter((i) => i.op === 'CMD').map((i) => i.args);
    expect(cmd[cmd.length - 1]).toContain('dist/runtime/main.js');
    // the production stage installs no dev dependencies
    const installs = dockerfile.flatMap((s) => s.body.filter((i) => i.op === 'RUN' && /npm (ci|install)/.test(i.args)).map((i) => i.args));
    expect(installs.some((i) => /npm ci\b.*--omit=dev/.test(i))).toBe(true);
    expect(installs.every((i) => /npm ci\b/.test(i))).toBe(true);
  });
});

// ---- docker-compose.yml -----------------------------------------------------------------------

const compose = read('docker-compose.yml').split('\n');

/** The lines of a block: `key:` at `indent` and the lines indented deeper under it. */
function block(lines: string[], key: RegExp, indent: number): string[] {
  const start = lines.findIndex((l) => l.length - l.trimStart().length === indent && key.test(l.trim()));
  if (start < 0) return [];
  const out = [lines[start]];
  for (const l of lines.slice(start + 1)) {
    if (l.trim() !== '' && !l.trim().startsWith('#') && l.length - l.trimStart().length <= indent) break;
    out.push(l);
  }
  return out;
}

function service(name: string): string[] {
  return block(block(compose, /^services:$/, 0), new RegExp(`^${name}:$`), 2);
}

/** The health check's command of a service, following a `*alias` to its `&alias` block. */
function healthcheckTest(name: string): string[] {
  const svc = service(name);
  const hc = svc.find((l) => /^healthcheck:/.test(l.trim()));
  if (!hc) return [];
  const alias = /^healthcheck:\s*\*([\w-]+)/.exec(hc.trim())?.[1];
  const lines = alias ? block(compose, new RegExp(`^[\\w-]+:\\s*&${alias}$`), 0) : block(svc, /^healthcheck:/, 4);
  const test = lines.find((l) => /^test:/.test(l.trim()));
  return test ? (JSON.parse(test.trim().slice('test:'.length)) as string[]) : [];
}

function env(name: string, key: string): string | undefined {
  const line = service(name).find((l) => l.trim().startsWith(`${key}:`));
  return line?.trim().slice(key.length + 1).trim().replace(/^"(.*)"$/, '$1');
}

/** Runs a health check's command as the container would, with the container's environment; its exit code. */
function runCheck(command: string[], vars: Record<string, string>): Promise<number> {
  expect(command.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
  return new Promise((resolve) => {
    execFile(process.execPath, command.slice(2), { env: { PATH: process.env.PATH ?? '', ...vars }, timeout: 20_000 }, (err) => {
      resolve(err ? (typeof err.code === 'number' ? err.code : -1) : 0);
    });
  });
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('docker-compose.yml', () => {
  test('api, worker and projector each run one role, and the two without the API serve METRICS_PORT', () => {
    expect(env('api', 'ROLES')).toBe('api');
    expect(env('worker', 'ROLES')).toBe('worker');
    expect(env('projector', 'ROLES')).toBe('projector');
    expect(env('worker', 'METRICS_PORT')).toMatch(/^\d+$/);
    expect(env('projector', 'METRICS_PORT')).toMatch(/^\d+$/);
    for (const name of ['api', 'worker', 'projector']) {
      const command = healthcheckTest(name);
      expect({ name, command: command.slice(0, 3) }).toEqual({ name, command: ['CMD', 'node', '-e'] });
      // compose would substitute a $ in the command from the host's environment
      expect(command.join(' ')).not.toContain('$');
    }
  });

  describe('health checks against real processes', () => {
    let api: TestRuntime;
    let worker: TestRuntime;
    beforeAll(async () => {
      api = await startTestRuntime({ env: { ROLES: 'api' } });
      worker = await startTestRuntime({ env: { ROLES: 'worker', METRICS_PORT: '0' } });
    });
    afterAll(async () => {
      await api?.stop();
      await worker?.stop();
    });

    test("the worker's and projector's check passes on a ready METRICS_PORT and fails where nothing listens", async () => {
      for (const name of ['worker', 'projector']) {
        const command = healthcheckTest(name);
        expect(await runCheck(command, { METRICS_PORT: String(worker.rt.metricsPort) })).toBe(0);
        expect(await runCheck(command, { METRICS_PORT: String(await closedPort()) })).not.toBe(0);
      }
    });

    test("the api's check passes on a ready PORT, over HTTPS too when TLS_CERT is set, and fails while it drains", async () => {
      const command = healthcheckTest('api');
      const port = new URL(api.base).port;
      expect(await runCheck(command, { PORT: port })).toBe(0);
      expect(await runCheck(command, { PORT: String(await closedPort()) })).not.toBe(0);

      const dir = path.join(root, 'test', 'fixtures', 'tls');
      const tlsEnv = { TLS_CERT: path.join(dir, 'cert.pem'), TLS_KEY: path.join(dir, 'key.pem') };
      const secure = await startTestRuntime({ env: { ROLES: 'api', ...tlsEnv } });
      try {
        const securePort = new URL(secure.base).port;
        expect(await runCheck(command, { PORT: securePort, ...tlsEnv })).toBe(0);
        // plain HTTP to the HTTPS port fails: the check must follow TLS_CERT
        expect(await runCheck(command, { PORT: securePort })).not.toBe(0);
      } finally {
        await secure.stop();
      }

      // SIGTERM's first step: /ready answers 503 while the listener still accepts
      const stopping = api.rt.stop({ readyGraceMs: 3_000 });
      try {
        expect(await runCheck(command, { PORT: port })).not.toBe(0);
      } finally {
        await stopping;
      }
    });
  });
});
