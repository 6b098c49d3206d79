/**
 * A process with the api role and no shared document store (no MONGODB_URL,
 * no projector role in the same process) answers every listing from an empty
 * in-process store. In production it does not start: one line naming
 * MONGODB_URL, exit 1. Elsewhere it starts and says, in one warning line
 * naming MONGODB_URL, which listings it cannot serve (the rules that must
 * hold read no listing, so everything else is served). Real processes.
 */
import { listingsGap, loadConfig, mongodbUrl, type Role } from '../../runtime/config';
import { waitFor } from '../support/harness';
import { runUntilExit, spawnRuntime, type RuntimeProcess } from '../support/process';
import { uniqueProjectId } from '../support/redis';

const running: RuntimeProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

/** Starts the service with `env` over the test environment and waits (up to 30 s) for it to exit. */
function startExpectingExit(env: Record<string, string>) {
  return runUntilExit(uniqueProjectId('nolist'), env, { deadlineMs: 30_000 });
}

/** the process's log lines that name MONGODB_URL as the setting */
function mongoLines(out: string): Record<string, any>[] {
  return out
    .split('\n')
    .filter((l) => l.includes('"setting":"MONGODB_URL"'))
    .map((l) => JSON.parse(l) as Record<string, any>);
}

describe('an api process without a shared document store', () => {
  test('production: the start stops with one line naming MONGODB_URL, exit 1', async () => {
    const exit = await startExpectingExit({ NODE_ENV: 'production', ROLES: 'api', SMTP_URL: 'smtp://127.0.0.1:2525' });
    expect(exit.code).toBe(1);
    const lines = exit.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^error: MONGODB_URL: must be set in production for a process with the api role and without the projector role: /,
    );
    expect(`${exit.stdout}\n${exit.stderr}`).not.toMatch(/^\s+at /m);
  }, 40_000);

  test('elsewhere: it starts, serves, and says in one warning naming MONGODB_URL which listings answer empty', async () => {
    const api = await spawnRuntime(uniqueProjectId('nolist'), { ROLES: 'api' });
    running.push(api);
    const line = await waitFor(() => mongoLines(api.output())[0], { what: 'the MONGODB_URL warning' });
    expect(line).toMatchObject({ level: 40, setting: 'MONGODB_URL', roles: ['api'] });
    // the example class's collection is named
    expect(line.msg).toContain('counters');
    expect((await fetch(`${api.base}/health`)).status).toBe(200);
  }, 60_000);

  test('with the projector role in the same process, no warning', async () => {
    const api = await spawnRuntime(uniqueProjectId('nolist'), { ROLES: 'api,projector' });
    running.push(api);
    // the warning would come right after "runtime started", which spawnRuntime waited for; a later line proves the log has moved past it
    await fetch(`${api.base}/health`);
    await api.stop();
    running.splice(running.indexOf(api), 1);
    await waitFor(() => api.output().includes('"msg":"stopped"'), { what: 'the stop line' });
    expect(mongoLines(api.output())).toEqual([]);
  }, 60_000);
});

describe('mongodbUrl and listingsGap (pure)', () => {
  const roles = (r: string) => new Set(r.split(',') as Role[]);

  test.each([
    ['api', 'production', true],
    ['api,worker', 'production', true],
    ['api,projector', 'production', false],
    ['api,worker,projector', 'production', false],
    ['worker', 'production', false],
    ['projector', 'production', false],
    ['api', 'development', false],
    ['api', undefined, false],
  ])('ROLES=%s NODE_ENV=%s without MONGODB_URL refused: %s', (r, nodeEnv, refused) => {
    const env = nodeEnv ? { NODE_ENV: nodeEnv } : {};
    if (refused) expect(() => mongodbUrl(env, roles(r))).toThrow(/^MONGODB_URL must be set in production/);
    else expect(mongodbUrl(env, roles(r))).toBeUndefined();
  });

  test('a set MONGODB_URL is taken as it is, in every role set', () => {
    expect(mongodbUrl({ NODE_ENV: 'production', MONGODB_URL: 'mongodb://db:27017/m' }, roles('api'))).toBe(
      'mongodb://db:27017/m',
    );
  });

  test('npm start with embedded defaults (ROLES unset, all three roles) loads in production without MONGODB_URL', () => {
    const config = loadConfig({ NODE_ENV: 'production', SMTP_URL: 'smtp://mail:587', JWT_SECRET: 'x'.repeat(40) });
    expect(config.mongodbUrl).toBeUndefined();
    expect(listingsGap(config, ['tiers'])).toBeUndefined();
  });

  test.each([
    ['api', undefined, ['tiers', 'members'], true],
    ['api,worker', undefined, ['tiers'], true],
    ['api,projector', undefined, ['tiers'], false],
    ['worker', undefined, ['tiers'], false],
    ['api', 'mongodb://db:27017/m', ['tiers'], false],
    ['api', undefined, [], false],
  ] as const)('ROLES=%s MONGODB_URL=%s collections %j: a gap %s', (r, url, collections, gap) => {
    const said = listingsGap({ roles: roles(r), mongodbUrl: url }, collections);
    if (!gap) return expect(said).toBeUndefined();
    expect(said).toMatch(/^MONGODB_URL is unset and this process runs the api role without the projector role/);
    for (const c of collections) expect(said).toContain(c);
  });
});
