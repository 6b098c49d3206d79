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

/** The top-level block an `&alias` names (`x-app-env: &app-env`). */
function anchored(alias: string): string[] {
  return block(compose, new RegExp(`^[\\w-]+:\\s*&${escapeRe(alias)}$`), 0);
}

/**
 * The direct children of a block (its first line is its own key), each as its own block, with what
 * `<<: *alias` merges in: the block's own keys win over merged ones, as YAML merge keys do.
 */
function children(lines: string[]): Map<string, string[]> {
  const body = lines.slice(1).filter(meaningful);
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
      out.set(m[1], block(lines, new RegExp(`^${escapeRe(m[1])}:`), indent));
    }
  }
  for (const alias of merged) for (const [k, v] of children(anchored(alias))) if (!out.has(k)) out.set(k, v);
  return out;
}

/** A key's value on its own line: null for a key with none (compose then passes the shell's or .env's value, or nothing). */
function scalar(key: string, lines: string[]): string | null {
  const v = lines[0].trim().slice(key.length + 1).trim();
  return v === '' ? null : v.replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
}

/** A service's environment as the container gets it (anchors merged), before substitution. */
function environment(name: string): Map<string, string | null> {
  const env = children(service(name)).get('environment');
  return new Map([...(env ? children(env) : new Map<string, string[]>())].map(([k, lines]) => [k, scalar(k, lines)]));
}

/** A service's `volumes:` entries (anchors merged). */
function volumes(name: string): string[] {
  const list = children(service(name)).get('volumes') ?? [];
  return list.slice(1).filter(meaningful).map((l) => l.trim().replace(/^-\s*/, '').replace(/^"(.*)"$/, '$1'));
}

/** The variables of the README's Configuration table, and whether a row is marked *(local)*. */
function configurationTable(): { name: string; local: boolean }[] {
  const readme = read('README.md').split('\n');
  const start = readme.findIndex((l) => l.trim() === '## Configuration');
  const end = readme.findIndex((l, i) => i > start && /^## /.test(l));
  expect(start).toBeGreaterThan(0);
  return readme
    .slice(start, end)
    .filter((l) => /^\|\s*`[A-Z]/.test(l))
    .flatMap((row) => {
      const cell = row.slice(1).split('|')[0];
      const local = cell.includes('*(local)*');
      return [...cell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => ({ name: m[1], local }));
    });
}

/** The final image's ENV. */
const imageEnv = new Map(final.body.filter((i) => i.op === 'ENV').flatMap((i) => [...i.args.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]] as const)));

/**
 * Settings the compose file fixes itself rather than taking from the shell (one port, the volume, one
 * role per container, its own Redis and MongoDB), and the one the image sets; README "Configuration"
 * names them. Every other deployment setting is passed through.
 */
const FIXED_BY_COMPOSE = ['PORT', 'DATA_DIR', 'ROLES', 'REDIS_URL', 'MONGODB_URL'];
const FIXED_PER_ROLE = ['METRICS_PORT']; // the worker's and the projector's; ignored with the api role
const SET_BY_IMAGE = ['NODE_ENV'];
const APP_SERVICES = ['api', 'worker', 'projector'];

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

  test("every deployment setting of the README's Configuration table reaches the api, worker and projector containers", () => {
    const table = configurationTable();
    const deployment = table.filter((v) => !v.local).map((v) => v.name);
    const local = table.filter((v) => v.local).map((v) => v.name);
    // the table was read: its rows, the marked ones, and settings the audit of issues 17/18 found missing
    expect(table.length).toBeGreaterThan(40);
    expect(local).toEqual(expect.arrayContaining(['REDIS_SERVER_BIN', 'SKIP_ENSURE_DEPS']));
    expect(deployment).toEqual(
      expect.arrayContaining(['NODE_ENV', 'PUBLIC_URL', 'MEMBER_APP_URL', 'BACKOFFICE_URL', 'OTP_SECRET', 'HR_BASE_URL', 'HR_API_KEY', 'JWT_ISSUER', 'TRUST_PROXY', 'DRAIN_GRACE_MS']),
    );
    expect(deployment).toEqual(expect.arrayContaining(['SAML_IDPS_FILE', 'SAML_SP_ENTITY_ID', 'SAML_ACS_URL', 'SAML_SP_KEY_FILE', 'SAML_SP_CERT_FILE', 'SAML_CLOCK_SKEW_SECONDS']));

    for (const name of APP_SERVICES) {
      const env = environment(name);
      expect(env.size).toBeGreaterThan(0);
      for (const v of deployment) {
        if (SET_BY_IMAGE.includes(v)) {
          expect({ v, image: imageEnv.get(v) }).toEqual({ v, image: 'production' });
        } else if (FIXED_BY_COMPOSE.includes(v) || (FIXED_PER_ROLE.includes(v) && name !== 'api')) {
          // a value of this stack, not the shell's
          expect({ name, v, value: env.get(v) }).toEqual({ name, v, value: expect.stringMatching(/^[^$]+$/) });
        } else if (!FIXED_PER_ROLE.includes(v)) {
          // no value (passed when set in the shell or .env, else the service's default) or ${VAR...} of its own name
          const value = env.get(v);
          expect({ name, v, passed: env.has(v) && (value === null || new RegExp(`^\\$\\{${v}(:?-[^}]*)?\\}$`).test(value!)) }).toEqual({ name, v, passed: true });
        }
      }
      // and nothing else: a key the table does not hold is a typo or an undocumented setting
      const known = new Set(table.map((t) => t.name));
      for (const key of env.keys()) expect({ name, key, documented: known.has(key) }).toEqual({ name, key, documented: true });
    }
  });

  test('a TLS_DIR folder is mounted read-only at /tls in the three app containers, and the README shows TLS_CERT and TLS_KEY under it', () => {
    for (const name of APP_SERVICES) {
      const tls = volumes(name).filter((v) => /:\/tls:ro$/.test(v));
      expect({ name, tls }).toEqual({ name, tls: [expect.stringMatching(/^\$\{TLS_DIR:-[\w-]+\}:\/tls:ro$/)] });
      // unset, a named volume of this file (a bind mount would create a folder in the checkout)
      const fallback = /^\$\{TLS_DIR:-([\w-]+)\}/.exec(tls[0])![1];
      expect(children(block(compose, /^volumes:$/, 0)).has(fallback)).toBe(true);
      expect(volumes(name)).toContain('app-data:/data');
    }
    expect(read('README.md')).toMatch(/TLS_DIR=\S+ TLS_CERT=\/tls\/\S+ TLS_KEY=\/tls\//);
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
