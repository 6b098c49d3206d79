/**
 * Start-up errors an operator fixes in the environment:
 * `npm start` prints one line on stderr, `error: <SETTING>: <cause>`, and
 * exits 1: no stack trace, no repeated ioredis messages. Real processes.
 *
 * Every start-up is its own process and none depends on another, so they all
 * start in beforeAll, a few side by side, and each test checks its own exit:
 * most of a start-up is loading modules (CPU), and the unreachable ones then
 * wait the first connection's 5 s, which the others' loading overlaps.
 */
import { randomUUID } from 'node:crypto';
import * as net from 'node:net';
import { findFreePort } from '../../runtime/redis/embedded-redis';
import { runUntilExit, type Exit } from '../support/process';
import { redisUrl } from '../support/redis';

/** Start the service with `env` over the test environment and wait (up to `deadlineMs`) for it to exit. */
async function startExpectingExit(
  env: Record<string, string>,
  deadlineMs = 20_000,
  command: string[] = ['runtime/main.ts'],
): Promise<Exit> {
  return runUntilExit(
    `start-${randomUUID().slice(0, 8)}`,
    { PORT: String(await findFreePort()), ...env },
    { deadlineMs, command },
  );
}

/**
 * Start-ups running at once: enough to overlap one's loading with another's
 * wait, few enough on two cores that each still exits well within its deadline
 * (counted from its own spawn, not from its turn in the queue).
 */
const SIDE_BY_SIDE = 3;
let running = 0;
const queue: (() => void)[] = [];

/** runs `fn` when fewer than SIDE_BY_SIDE start-ups run */
async function inTurn<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= SIDE_BY_SIDE) await new Promise<void>((resolve) => queue.push(resolve));
  else running += 1;
  try {
    return await fn();
  } finally {
    const next = queue.shift();
    if (next) next();
    else running -= 1;
  }
}

/** every start-up of the file by name, started in beforeAll; a test awaits its own */
const exits: Record<string, Promise<Exit>> = {};
function begin(name: string, fn: () => Promise<Exit>): void {
  const exit = inTurn(fn);
  // awaited by its test; a failure before then is that test's, not an unhandled rejection
  exit.catch(() => undefined);
  exits[name] = exit;
}

/**
 * A port that refuses every connection: the suite binds only port 0, which the
 * kernel serves from the ephemeral range (32768-60999), so nothing in it can be
 * given port 1; a port found free with listen(0) could be taken by another jest
 * worker before the connection was tried.
 */
const CLOSED_PORT = 1;

/** a port held by a listener of this process for as long as `fn` runs */
async function withPortInUse<T>(fn: (port: number) => Promise<T>): Promise<T> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  try {
    return await fn((server.address() as net.AddressInfo).port);
  } finally {
    await new Promise((r) => server.close(r));
  }
}

/** The one-line shape every start-up error has. */
function expectOneLine(exit: Exit, setting: string): string {
  expect(exit.code).toBe(1);
  const lines = exit.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^error: ${setting}: \\S`));
  const all = `${exit.stdout}\n${exit.stderr}`;
  expect(all).not.toMatch(/^\s+at /m);
  expect(all).not.toMatch(/\[ioredis\]|Unhandled error event/);
  return lines[0];
}

describe('start-up errors', () => {
  const closed = CLOSED_PORT;
  let busyPort = 0;
  // the database the suite's Redis refuses: it has the default 16
  const db99 = new URL(redisUrl());
  db99.pathname = '/99';

  beforeAll(() => {
    // queued in this order; the three that wait out the first connection's 5 s are spread out, so that
    // while they wait others load
    begin('redis', () => startExpectingExit({ REDIS_URL: `redis://user:s3cret-pw@127.0.0.1:${closed}` }));
    begin('cli setting', () => startExpectingExit({ JWT_SECRET: 'too-short' }, 20_000, ['runtime/cli.ts', 'classes']));
    begin('cli redis', () =>
      startExpectingExit({ REDIS_URL: `redis://user:s3cret-pw@127.0.0.1:${closed}`, LOG_LEVEL: 'warn' }, 20_000, [
        'runtime/cli.ts',
        'status',
      ]),
    );
    begin('port in use', () =>
      withPortInUse((port) => {
        busyPort = port;
        return startExpectingExit({ PORT: String(port) });
      }),
    );
    begin('unknown role', () => startExpectingExit({ ROLES: 'api,bogus' }));
    begin('mongodb', () => startExpectingExit({ MONGODB_URL: `mongodb://127.0.0.1:${closed}/db` }));
    begin('short secret', () => startExpectingExit({ JWT_SECRET: 'too-short' }));
    begin('port not a number', () => startExpectingExit({ PORT: 'eighty' }));
    begin('port past 65535', () => startExpectingExit({ PORT: '70000' }));
    begin('no roles', () => startExpectingExit({ ROLES: ' , ' }));
    begin('database refused', () => startExpectingExit({ REDIS_URL: db99.toString() }));
    begin('processes', () => startExpectingExit({ PROCESSES: 'many' }));
  });

  test('an unreachable REDIS_URL: one line naming it, without its password, exit 1', async () => {
    const exit = await exits.redis!;
    const line = expectOneLine(exit, 'REDIS_URL');
    expect(line).toContain(`127.0.0.1:${closed}`);
    expect(line).toContain('ECONNREFUSED');
    expect(line).not.toContain('s3cret-pw');
    expect(exit.stdout).not.toContain('Redis is not answering');
  }, 30_000);

  test('the CLI with an unreachable REDIS_URL: the same one line, exit 1, instead of retrying for ever', async () => {
    const exit = await exits['cli redis']!;
    const line = expectOneLine(exit, 'REDIS_URL');
    expect(line).toContain(`127.0.0.1:${closed}`);
    expect(line).not.toContain('s3cret-pw');
    expect(`${exit.stdout}${exit.stderr}`).not.toContain('Redis is not answering');
  }, 30_000);

  test('the CLI with a bad setting: one line naming it, exit 1', async () => {
    expectOneLine(await exits['cli setting']!, 'JWT_SECRET');
  }, 30_000);

  test('a PORT in use: one line naming PORT, exit 1', async () => {
    const exit = await exits['port in use']!;
    expect(busyPort).toBeGreaterThan(0);
    const line = expectOneLine(exit, 'PORT');
    expect(line).toContain(String(busyPort));
    expect(line).toContain('in use');
  }, 30_000);

  test('an unknown role in ROLES: one line naming ROLES, exit 1', async () => {
    const line = expectOneLine(await exits['unknown role']!, 'ROLES');
    expect(line).toContain("'bogus'");
  }, 30_000);

  test('a JWT_SECRET shorter than 32 characters: one line naming JWT_SECRET, exit 1', async () => {
    const line = expectOneLine(await exits['short secret']!, 'JWT_SECRET');
    expect(line).toContain('32');
    expect(line).not.toContain('too-short');
  }, 30_000);

  test('a PORT that is not a number: one line naming PORT, exit 1', async () => {
    expectOneLine(await exits['port not a number']!, 'PORT');
  }, 30_000);

  test('a PORT past 65535: one line naming PORT, exit 1 (not a later error about the URL built from it)', async () => {
    const line = expectOneLine(await exits['port past 65535']!, 'PORT');
    expect(line).toContain('65535');
  }, 30_000);

  test('ROLES naming no role at all: one line naming ROLES, exit 1, instead of a process that serves nothing', async () => {
    expectOneLine(await exits['no roles']!, 'ROLES');
  }, 30_000);

  test('a REDIS_URL whose database Redis refuses: one line naming REDIS_URL and the database, exit 1', async () => {
    const line = expectOneLine(await exits['database refused']!, 'REDIS_URL');
    expect(line).toContain('database 99');
  }, 30_000);

  test('a bad value outside loadConfig (PROCESSES): one line naming it, exit 1', async () => {
    expectOneLine(await exits.processes!, 'PROCESSES');
  }, 30_000);

  test('an unreachable MONGODB_URL: one line naming it, exit 1', async () => {
    const line = expectOneLine(await exits.mongodb!, 'MONGODB_URL');
    expect(line).toContain(`127.0.0.1:${closed}`);
  }, 30_000);
});
