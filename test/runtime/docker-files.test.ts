/**
 * The image and the compose stack (no Docker engine needed): the Dockerfile's
 * base is a Node LTS line, its build context holds what it copies and no tests
 * or benchmarks, the image runs as a non-root user with what the runtime reads
 * from disk; and the compose health checks of api, worker and projector, run
 * as the containers run them (`node -e`), pass against real runtime processes
 * that are ready and fail against one that is draining or not there.
 */
import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { projectRoot } from '../../runtime/config';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/harness';
import {
  startRedisCluster,
  parseClusterNodes,
  command as redisCommand,
  type LocalRedisCluster,
} from '../support/redis-cluster';

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
      expect({ image: stage.image, node: m?.[1] }).toEqual({
        image: stage.image,
        node: expect.stringMatching(/^\d+$/),
      });
      const major = Number(m![1]);
      expect(major).toBeGreaterThanOrEqual(22);
      expect(major % 2).toBe(0);
    }
  });

  test('the build context leaves out tests, benchmarks, node_modules and dist', () => {
    for (const dir of ['test', 'bench', 'node_modules', 'dist'])
      expect(ignored(dockerignore, `${dir}/x.ts`)).toBe(true);
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
      expect({ src, exists: fs.existsSync(path.join(root, src)), ignored: ignored(dockerignore, src) }).toEqual({
        src,
        exists: true,
        ignored: false,
      });
    }
  });

  test('the stage that runs npm run build has every folder the build compiles, and the ones its sources import from', () => {
    const build = dockerfile.find((s) => s.body.some((i) => i.op === 'RUN' && /npm run build/.test(i.args)));
    expect(build).toBeDefined();
    const copied = new Set(
      build!.body
        .filter((i) => i.op === 'COPY' && !copyOf(i).from)
        .flatMap((i) => copyOf(i).sources.map((s) => s.split('/')[0])),
    );
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
    for (const dir of [...compiled, ...imported])
      expect({ dir, copied: copied.has(dir) }).toEqual({ dir, copied: true });
  });

  test('the final image runs as a non-root user, with dist/ and what the runtime reads from disk', () => {
    const users = final.body.filter((i) => i.op === 'USER').map((i) => i.args);
    expect(users.length).toBeGreaterThan(0);
    expect(users[users.length - 1]).not.toMatch(/^(root|0)(:|$)/);
    // where each copied path lands under WORKDIR (a destination ending in / takes the source's name)
    const placed = final.body
      .filter((i) => i.op === 'COPY')
      .map(copyOf)
      .flatMap(({ sources, dest }) =>
        sources.map((src) =>
          path.posix.normalize(dest.endsWith('/') ? path.posix.join(dest, path.posix.basename(src)) : dest),
        ),
      );
    // package.json marks the project root the folders are found from (runtime/config.ts projectRoot);
    // the Lua scripts are read next to the compiled state store (runtime/actor/state-store.ts)
    for (const needed of [
      'package.json',
      'node_modules',
      'dist',
      'dist/runtime/actor/lua',
      'schemas',
      'workflow-configs',
    ]) {
      expect(placed).toContain(needed);
    }
    const cmd = final.body.filter((i) => i.op === 'CMD').map((i) => i.args);
    expect(cmd[cmd.length - 1]).toContain('dist/runtime/main.js');
    // the production stage installs no dev dependencies
    const installs = dockerfile.flatMap((s) =>
      s.body.filter((i) => i.op === 'RUN' && /npm (ci|install)/.test(i.args)).map((i) => i.args),
    );
    expect(installs.some((i) => /npm ci\b.*--omit=dev/.test(i))).toBe(true);
    expect(installs.every((i) => /npm ci\b/.test(i))).toBe(true);
  });
});

// ---- docker-compose.yml, docker-compose.cluster.yml ---------------------------------------------

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

/** Runs a health check's command as the container would, with the container's environment; its exit code. */
function runCheck(command: string[], vars: Record<string, string>): Promise<number> {
  expect(command.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      command.slice(2),
      { env: { PATH: process.env.PATH ?? '', ...vars }, timeout: 20_000 },
      (err) => {
        resolve(err ? (typeof err.code === 'number' ? err.code : -1) : 0);
      },
    );
  });
}

/**
 * A port nothing listens on: the suite binds only port 0, which the kernel
 * serves from the ephemeral range (32768-60999), so nothing in it can be given
 * port 1; a port found free with listen(0) could be taken by another jest
 * worker before the check connected.
 */
const CLOSED_PORT = 1;

const indentOf = (l: string) => l.length - l.trimStart().length;
const meaningful = (l: string) => l.trim() !== '' && !l.trim().startsWith('#');
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A key's value on its own line: null for a key with none (compose then passes the shell's or .env's value, or nothing). */
function scalar(key: string, lines: string[]): string | null {
  const v = lines[0]
    .trim()
    .slice(key.length + 1)
    .trim();
  return v === '' ? null : v.replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
}

/** A compose file's lines, and its services, health checks, environments and volumes read from them. */
function composeFile(file: string) {
  const lines = read(file).split('\n');

  function service(name: string): string[] {
    return block(block(lines, /^services:$/, 0), new RegExp(`^${escapeRe(name)}:$`), 2);
  }

  /** The names of its services. */
  function services(): string[] {
    return [...children(block(lines, /^services:$/, 0)).keys()];
  }

  /** The top-level block an `&alias` names (`x-app-env: &app-env`). */
  function anchored(alias: string): string[] {
    return block(lines, new RegExp(`^[\\w-]+:\\s*&${escapeRe(alias)}$`), 0);
  }

  /** The health check's command of a service (anchors merged), following a `*alias` to its `&alias` block. */
  function healthcheckTest(name: string): string[] {
    const hc = children(service(name)).get('healthcheck');
    if (!hc) return [];
    const alias = /^healthcheck:\s*\*([\w-]+)/.exec(hc[0].trim())?.[1];
    const hcLines = alias ? anchored(alias) : hc;
    const test = hcLines.find((l) => /^test:/.test(l.trim()));
    return test ? (JSON.parse(test.trim().slice('test:'.length)) as string[]) : [];
  }

  function env(name: string, key: string): string | undefined {
    const line = service(name).find((l) => l.trim().startsWith(`${key}:`));
    return line
      ?.trim()
      .slice(key.length + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }

  /**
   * The direct children of a block (its first line is its own key), each as its own block, with what
   * `<<: *alias` merges in: the block's own keys win over merged ones, as YAML merge keys do.
   */
  function children(blockLines: string[]): Map<string, string[]> {
    const body = blockLines.slice(1).filter(meaningful);
    const out = new Map<string, string[]>();
    if (!body.length) return out;
    const indent = Math.min(...body.map(indentOf));
    const merged: string[] = [];
    for (const l of body) {
      if (indentOf(l) !== indent) continue;
      const m = /^([\w.-]+|<<):/.exec(l.trim());
      if (!m) continue;
      if (m[1] === '<<') {
        const alias = /^<<:\s*\*([\w-]+)$/.exec(l.trim());
        expect({ line: l.trim(), alias: !!alias }).toEqual({ line: l.trim(), alias: true });
        merged.push(alias![1]);
      } else {
        out.set(m[1], block(blockLines, new RegExp(`^${escapeRe(m[1])}:`), indent));
      }
    }
    for (const alias of merged) for (const [k, v] of children(anchored(alias))) if (!out.has(k)) out.set(k, v);
    return out;
  }

  /** A service's environment as the container gets it (anchors merged), before substitution. */
  function environment(name: string): Map<string, string | null> {
    const env = children(service(name)).get('environment');
    return new Map([...(env ? children(env) : new Map<string, string[]>())].map(([k, l]) => [k, scalar(k, l)]));
  }

  /** A service's `volumes:` entries (anchors merged). */
  function volumes(name: string): string[] {
    const list = children(service(name)).get('volumes') ?? [];
    return list
      .slice(1)
      .filter(meaningful)
      .map((l) =>
        l
          .trim()
          .replace(/^-\s*/, '')
          .replace(/^"(.*)"$/, '$1'),
      );
  }

  /** A service's `command:` in flow form (`["redis-server", ...]`). */
  function command(name: string): string[] {
    const line = children(service(name)).get('command')?.[0].trim();
    expect({ name, flow: line && /^command:\s*\[/.test(line) }).toEqual({ name, flow: true });
    return JSON.parse(line!.slice('command:'.length)) as string[];
  }

  return {
    file,
    lines,
    block: (key: RegExp, indent: number) => block(lines, key, indent),
    service,
    services,
    anchored,
    healthcheckTest,
    env,
    children,
    environment,
    volumes,
    command,
  };
}
type ComposeFile = ReturnType<typeof composeFile>;

const main = composeFile('docker-compose.yml');
const cluster = composeFile('docker-compose.cluster.yml');
const compose = main.lines;
const { healthcheckTest, env, children, volumes } = main;

/** The variables of docs/configuration.md's table, and whether a row is marked *(local)*. */
function configurationTable(): { name: string; local: boolean }[] {
  const page = read('docs/configuration.md').split('\n');
  const start = page.findIndex((l) => l.trim() === '## Variables');
  const next = page.findIndex((l, i) => i > start && /^## /.test(l));
  expect(start).toBeGreaterThan(0);
  return page
    .slice(start, next < 0 ? undefined : next)
    .filter((l) => /^\|\s*`[A-Z]/.test(l))
    .flatMap((row) => {
      const cell = row.slice(1).split('|')[0];
      const local = cell.includes('*(local)*');
      return [...cell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => ({ name: m[1], local }));
    });
}

/** The final image's ENV. */
const imageEnv = new Map(
  final.body
    .filter((i) => i.op === 'ENV')
    .flatMap((i) => [...i.args.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]] as const)),
);

/**
 * Settings the compose file fixes itself rather than taking from the shell (one port, the volume, one
 * role per container, its own Redis and MongoDB), and the one the image sets; docs/configuration.md
 * names them. Every other deployment setting is passed through.
 */
const FIXED_BY_COMPOSE = ['PORT', 'DATA_DIR', 'ROLES', 'REDIS_URL', 'MONGODB_URL'];
const FIXED_PER_ROLE = ['METRICS_PORT']; // the worker's and the projector's; ignored with the api role
const SET_BY_IMAGE = ['NODE_ENV'];
const APP_SERVICES = ['api', 'worker', 'projector'];
/**
 * The cluster file's: its Redis is the cluster (REDIS_CLUSTER_NODES, with the buckets fixed for the
 * project's life) and never one server (REDIS_URL); the single-server file never names a cluster.
 */
const CLUSTER_FIXED_BY_COMPOSE = [
  ...FIXED_BY_COMPOSE.filter((v) => v !== 'REDIS_URL'),
  'REDIS_CLUSTER_NODES',
  'REDIS_BUCKETS',
];

/**
 * Every deployment setting of docs/configuration.md's table reaches the app containers of `file`:
 * the ones in `fixed` with a value of the stack, the others passed through from the shell; the ones in
 * `absent` not at all; and nothing the table does not document (but `undocumented`).
 */
function expectSettingsReachApps(file: ComposeFile, fixed: string[], absent: string[], undocumented: string[] = []) {
  const table = configurationTable();
  const deployment = table.filter((v) => !v.local).map((v) => v.name);
  for (const name of APP_SERVICES) {
    const env = file.environment(name);
    expect(env.size).toBeGreaterThan(0);
    for (const v of deployment) {
      if (absent.includes(v)) {
        expect({ file: file.file, name, v, present: env.has(v) }).toEqual({ file: file.file, name, v, present: false });
      } else if (SET_BY_IMAGE.includes(v)) {
        expect({ v, image: imageEnv.get(v) }).toEqual({ v, image: 'production' });
      } else if (fixed.includes(v) || (FIXED_PER_ROLE.includes(v) && name !== 'api')) {
        // a value of this stack, not the shell's
        expect({ file: file.file, name, v, value: env.get(v) }).toEqual({
          file: file.file,
          name,
          v,
          value: expect.stringMatching(/^[^$]+$/),
        });
      } else if (!FIXED_PER_ROLE.includes(v)) {
        // no value (passed when set in the shell or .env, else the service's default) or ${VAR...} of its own name
        const value = env.get(v);
        expect({
          file: file.file,
          name,
          v,
          passed: env.has(v) && (value === null || new RegExp(`^\\$\\{${v}(:?-[^}]*)?\\}$`).test(value!)),
        }).toEqual({
          file: file.file,
          name,
          v,
          passed: true,
        });
      }
    }
    // and nothing else: a key the table does not hold is a typo or an undocumented setting
    const known = new Set([...table.map((t) => t.name), ...undocumented]);
    for (const key of env.keys())
      expect({ file: file.file, name, key, documented: known.has(key) }).toEqual({
        file: file.file,
        name,
        key,
        documented: true,
      });
  }
}

/** Runs a command; its exit code and output. */
function run(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ code: -1, output: `${output}${err.message}` });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('npm start', () => {
  test("execs the service, so a SIGTERM to npm's process drains it (npm passes the signal to its child, which must be node, not a shell)", () => {
    // npm runs a script as `sh -c '<script>'`; without exec, sh is npm's child: the signal stops npm and sh
    // and leaves node running, orphaned and never drained (seen with `kill -TERM <npm pid>`)
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    expect(scripts.start).toMatch(/^exec node \S+$/);
  });
});

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

  test('every deployment setting of docs/configuration.md reaches the api, worker and projector containers', () => {
    const table = configurationTable();
    const deployment = table.filter((v) => !v.local).map((v) => v.name);
    const local = table.filter((v) => v.local).map((v) => v.name);
    // the table was read: its rows, the marked ones, and settings a deployment cannot do without (the public
    // addresses, the secrets, the outside systems, SSO), so a table that lost them fails here and not in production
    expect(table.length).toBeGreaterThan(40);
    expect(local).toEqual(expect.arrayContaining(['REDIS_SERVER_BIN', 'SKIP_ENSURE_DEPS']));
    expect(deployment).toEqual(
      expect.arrayContaining([
        'NODE_ENV',
        'PUBLIC_URL',
        'MEMBER_APP_URL',
        'BACKOFFICE_URL',
        'OTP_SECRET',
        'HR_BASE_URL',
        'HR_API_KEY',
        'JWT_ISSUER',
        'TRUST_PROXY',
        'DRAIN_GRACE_MS',
      ]),
    );
    expect(deployment).toEqual(
      expect.arrayContaining([
        'SAML_IDPS_FILE',
        'SAML_SP_ENTITY_ID',
        'SAML_ACS_URL',
        'SAML_SP_KEY_FILE',
        'SAML_SP_CERT_FILE',
        'SAML_CLOCK_SKEW_SECONDS',
      ]),
    );
    // one redis-server: no cluster settings
    expectSettingsReachApps(main, FIXED_BY_COMPOSE, ['REDIS_CLUSTER_NODES']);
  });

  test('a TLS_DIR folder is mounted read-only at /tls in the three app containers, and docs/deployment.md shows TLS_CERT and TLS_KEY under it', () => {
    for (const name of APP_SERVICES) {
      const tls = volumes(name).filter((v) => /:\/tls:ro$/.test(v));
      expect({ name, tls }).toEqual({ name, tls: [expect.stringMatching(/^\$\{TLS_DIR:-[\w-]+\}:\/tls:ro$/)] });
      // unset, a named volume of this file (a bind mount would create a folder in the checkout)
      const fallback = /^\$\{TLS_DIR:-([\w-]+)\}/.exec(tls[0])![1];
      expect(children(block(compose, /^volumes:$/, 0)).has(fallback)).toBe(true);
      expect(volumes(name)).toContain('app-data:/data');
    }
    expect(read('docs/deployment.md')).toMatch(/TLS_DIR=\S+ TLS_CERT=\/tls\/\S+ TLS_KEY=\/tls\//);
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
        expect(await runCheck(command, { METRICS_PORT: String(CLOSED_PORT) })).not.toBe(0);
      }
    });

    test("the api's check passes on a ready PORT, over HTTPS too when TLS_CERT is set, and fails while it drains", async () => {
      const command = healthcheckTest('api');
      const port = new URL(api.base).port;
      expect(await runCheck(command, { PORT: port })).toBe(0);
      expect(await runCheck(command, { PORT: String(CLOSED_PORT) })).not.toBe(0);

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

describe('docker-compose.cluster.yml', () => {
  const NODES = cluster.services().filter((s) => /^redis-\d+$/.test(s));
  const flag = (cmd: string[], name: string) => {
    const i = cmd.indexOf(name);
    return i >= 0 ? cmd[i + 1] : undefined;
  };
  /** A service's static address on the default network. */
  const address = (name: string) => {
    const networks = cluster.children(cluster.service(name)).get('networks') ?? [];
    const line = networks.find((l) => /^ipv4_address:/.test(l.trim()));
    return line?.trim().slice('ipv4_address:'.length).trim();
  };
  const ipNumber = (ip: string) => ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
  const inCidr = (ip: string, cidr: string) => {
    const [base, bits] = cidr.split('/');
    const size = 2 ** (32 - Number(bits));
    return Math.floor(ipNumber(ip) / size) === Math.floor(ipNumber(base) / size);
  };
  /** The init service's shell script as the container's sh gets it (compose turns $$ into $). */
  const initScript = () => {
    const cmd = cluster.children(cluster.service('redis-cluster-init')).get('command') ?? [];
    const start = cmd.findIndex((l) => /^-\s*\|$/.test(l.trim()));
    expect(cmd.slice(1, start).map((l) => l.trim())).toEqual(['- sh', '- -c']);
    const body = cmd.slice(start + 1);
    const indent = Math.min(...body.filter(meaningful).map(indentOf));
    const raw = body
      .map((l) => l.slice(indent))
      .join('\n')
      .trimEnd();
    // compose substitutes a lone $ from the host's environment
    expect(raw.replace(/\$\$/g, '').includes('$')).toBe(false);
    return raw.replace(/\$\$/g, '$');
  };

  test('six redis:7 nodes, cluster-enabled, with AOF and noeviction, each announcing its service name and a static address of the subnet, each on a volume of its own', () => {
    expect(NODES).toEqual(['redis-1', 'redis-2', 'redis-3', 'redis-4', 'redis-5', 'redis-6']);
    expect(cluster.services()).not.toContain('redis');
    const ipam = cluster.block(/^networks:$/, 0);
    const subnet = ipam
      .find((l) => /subnet:/.test(l))
      ?.trim()
      .replace(/^-?\s*subnet:\s*/, '');
    const range = ipam
      .find((l) => /ip_range:/.test(l))
      ?.trim()
      .replace(/^ip_range:\s*/, '');
    expect(subnet).toMatch(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
    expect(range).toMatch(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
    const volumesBlock = cluster.children(cluster.block(/^volumes:$/, 0));
    const seen = new Set<string>();
    for (const name of NODES) {
      const svc = cluster.children(cluster.service(name));
      const image = svc.has('image')
        ? svc.get('image')![0]
        : cluster.anchored('redis-node').find((l) => /^image:/.test(l.trim()));
      expect({ name, image: image?.trim() }).toEqual({ name, image: 'image: redis:7' });
      const cmd = cluster.command(name);
      expect(cmd[0]).toBe('redis-server');
      expect({
        name,
        enabled: flag(cmd, '--cluster-enabled'),
        aof: flag(cmd, '--appendonly'),
        policy: flag(cmd, '--maxmemory-policy'),
      }).toEqual({
        name,
        enabled: 'yes',
        aof: 'yes',
        policy: 'noeviction',
      });
      // clients are sent to redis-N:6379 (CLUSTER SLOTS, MOVED), names every container resolves
      expect({
        name,
        hostname: flag(cmd, '--cluster-announce-hostname'),
        endpoint: flag(cmd, '--cluster-preferred-endpoint-type'),
      }).toEqual({
        name,
        hostname: name,
        endpoint: 'hostname',
      });
      // the bus address: static, in the subnet, out of the range Docker hands out to other containers
      const ip = address(name)!;
      expect({ name, ip, announced: flag(cmd, '--cluster-announce-ip') }).toEqual({
        name,
        ip: expect.stringMatching(/^\d+\.\d+\.\d+\.\d+$/),
        announced: ip,
      });
      expect({ name, ip, inSubnet: inCidr(ip, subnet!), inDynamicRange: inCidr(ip, range!) }).toEqual({
        name,
        ip,
        inSubnet: true,
        inDynamicRange: false,
      });
      expect(seen.has(ip)).toBe(false);
      seen.add(ip);
      const data = cluster.volumes(name);
      expect({ name, data }).toEqual({ name, data: [`${name}-data:/data`] });
      expect(volumesBlock.has(`${name}-data`)).toBe(true);
      expect(cluster.healthcheckTest(name)).toEqual(['CMD', 'redis-cli', 'ping']);
    }
  });

  test('every app service names the six nodes in REDIS_CLUSTER_NODES, with REDIS_BUCKETS=16, and no service names REDIS_URL', () => {
    const nodes = NODES.map((n) => `${n}:6379`).join(',');
    for (const name of APP_SERVICES) {
      const env = cluster.environment(name);
      expect({ name, nodes: env.get('REDIS_CLUSTER_NODES'), buckets: env.get('REDIS_BUCKETS') }).toEqual({
        name,
        nodes,
        buckets: '16',
      });
    }
    for (const name of cluster.services())
      expect({ name, REDIS_URL: cluster.environment(name).has('REDIS_URL') }).toEqual({ name, REDIS_URL: false });
    // nor any anchor or other key of the file
    expect(cluster.lines.filter((l) => meaningful(l) && /\bREDIS_URL\b/.test(l))).toEqual([]);
  });

  test("the app services are docker-compose.yml's: the same image build, roles, health checks, volumes and settings, Redis apart", () => {
    expect(cluster.anchored('app').filter((l) => /^\s*(build|image):/.test(l))).toEqual(
      main.anchored('app').filter((l) => /^\s*(build|image):/.test(l)),
    );
    for (const name of APP_SERVICES) {
      expect(cluster.healthcheckTest(name)).toEqual(main.healthcheckTest(name));
      expect(cluster.volumes(name)).toEqual(main.volumes(name));
      const ours = cluster.environment(name);
      const theirs = main.environment(name);
      const redis = /^REDIS_(URL|CLUSTER_NODES|BUCKETS|WAIT_REPLICAS)$/;
      expect({ name, env: [...ours].filter(([k]) => !redis.test(k)).sort() }).toEqual({
        name,
        env: [...theirs].filter(([k]) => !redis.test(k)).sort(),
      });
      expect(cluster.env(name, 'ROLES')).toBe(main.env(name, 'ROLES'));
    }
    for (const other of ['mongodb', 'mailcatcher']) expect(cluster.service(other)).toEqual(main.service(other));
  });

  test('every deployment setting of docs/configuration.md reaches the api, worker and projector containers', () => {
    expectSettingsReachApps(cluster, CLUSTER_FIXED_BY_COMPOSE, ['REDIS_URL']);
  });

  test('redis-cluster-init runs once every node is healthy, forms 3 masters with a replica each from the nodes’ addresses, and the app services start after it succeeded', () => {
    const init = cluster.children(cluster.service('redis-cluster-init'));
    expect(init.get('image')?.[0].trim()).toBe('image: redis:7');
    expect(init.get('restart')?.[0].trim()).toBe('restart: "no"');
    const deps = cluster.children(init.get('depends_on')!);
    expect([...deps.keys()].sort()).toEqual([...NODES].sort());
    for (const [dep, lines] of deps)
      expect({ dep, condition: lines.map((l) => l.trim()).slice(1) }).toEqual({
        dep,
        condition: ['condition: service_healthy'],
      });
    const env = cluster.environment('redis-cluster-init');
    expect(env.get('CLUSTER_NODES')).toBe(NODES.map((n) => `${address(n)}:6379`).join(' '));
    expect(env.get('CLUSTER_REPLICAS')).toBe('1');
    expect(initScript()).toMatch(
      /redis-cli --cluster create \$CLUSTER_NODES --cluster-replicas "\$CLUSTER_REPLICAS" --cluster-yes/,
    );
    for (const name of APP_SERVICES) {
      const appDeps = cluster.children(cluster.children(cluster.service(name)).get('depends_on')!);
      expect({
        name,
        init: appDeps
          .get('redis-cluster-init')
          ?.map((l) => l.trim())
          .slice(1),
      }).toEqual({ name, init: ['condition: service_completed_successfully'] });
      expect(appDeps.has('redis')).toBe(false);
    }
  });

  // the suite installs redis-server (and redis-cli with it) before it runs: scripts/ensure-deps.js
  describe("redis-cluster-init's script against six real cluster-enabled nodes", () => {
    let nodes: LocalRedisCluster;
    beforeAll(async () => {
      nodes = await startRedisCluster({ masters: 3, replicasPerMaster: 1, form: false });
    });
    afterAll(async () => {
      await nodes?.stop();
    });

    test('forms 3 masters with a replica each and exits 0 once every node says cluster_state:ok; run again, finds the cluster formed', async () => {
      const script = initScript();
      const env = {
        PATH: process.env.PATH ?? '',
        CLUSTER_NODES: nodes.nodesEnv.split(',').join(' '),
        CLUSTER_REPLICAS: '1',
      };
      const first = await run('sh', ['-c', script], { env });
      expect({ code: first.code, output: first.output }).toEqual({
        code: 0,
        output: expect.stringContaining('cluster ok'),
      });
      for (const n of nodes.nodes)
        expect(String(await redisCommand(n.port, ['CLUSTER', 'INFO']))).toMatch(/^cluster_state:ok\r?$/m);
      // a replica's new role reaches the first node by gossip, which may come a moment after cluster_state:ok
      const viewOf = async () =>
        parseClusterNodes(String(await redisCommand(nodes.nodes[0].port, ['CLUSTER', 'NODES'])));
      let view = await viewOf();
      await waitFor(async () => (view = await viewOf()).filter((r) => r.flags.includes('slave')).length === 3, {
        timeoutMs: 10_000,
        what: 'the replicas known to the first node',
      }).catch(() => undefined);
      const masters = view.filter((r) => r.flags.includes('master'));
      expect(masters.length).toBe(3);
      for (const m of masters)
        expect({
          port: m.port,
          replicas: view.filter((r) => r.master === m.id).length,
          slots: m.slots.length > 0,
        }).toEqual({ port: m.port, replicas: 1, slots: true });

      const again = await run('sh', ['-c', script], { env });
      expect({ code: again.code, output: again.output }).toEqual({
        code: 0,
        output: expect.stringContaining('formed already'),
      });
    });
  });
});
