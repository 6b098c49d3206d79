/**
 * Start-up errors an operator fixes in the environment:
 * `npm start` prints one line on stderr, `error: <SETTING>: <cause>`, and
 * exits 1: no stack trace, no repeated ioredis messages. Real processes.
 */
import { randomUUID } from 'node:crypto';
import * as net from 'node:net';
import { findFreePort } from '../../runtime/redis/embedded-redis';
import { runUntilExit, type Exit } from '../support/process';
import { redisUrl } from '../support/redis';

/** Start the service with `env` over the test environment and wait (up to `deadlineMs`) for it to exit. */
async function startExpectingExit(env: Record<string, string>, deadlineMs = 20_000, command: string[] = ['runtime/main.ts']): Promise<Exit> {
  return runUntilExit(`start-${randomUUID().slice(0, 8)}`, { PORT: String(await findFreePort()), ...env }, { deadlineMs, command });
}

/**
 * A port that refuses every connection: the suite binds only port 0, which the
 * kernel serves from the ephemeral range (32768-60999), so nothing in it can be
 * given port 1; a port found free with listen(0) could be taken by another jest
 * worker before the connection was tried.
 */
const CLOSED_PORT = 1;

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
  test('an unreachable REDIS_URL: one line naming it, without its password, exit 1', async () => {
    const closed = CLOSED_PORT;
    const exit = await startExpectingExit({ REDIS_URL: `redis://user:s3cret-pw@127.0.0.1:${closed}` });
    const line = expectOneLine(exit, 'REDIS_URL');
    expect(line).toContain(`127.0.0.1:${closed}`);
    expect(line).toContain('ECONNREFUSED');
    expect(line).not.toContain('s3cret-pw');
    expect(exit.stdout).not.toContain('Redis is not answering');
  }, 30_000);

  test('the CLI with an unreachable REDIS_URL: the same one line, exit 1, instead of retrying for ever', async () => {
    const closed = CLOSED_PORT;
    const exit = await startExpectingExit({ REDIS_URL: `redis://user:s3cret-pw@127.0.0.1:${closed}`, LOG_LEVEL: 'warn' }, 20_000, ['runtime/cli.ts', 'status']);
    const line = expectOneLine(exit, 'REDIS_URL');
    expect(line).toContain(`127.0.0.1:${closed}`);
    expect(line).not.toContain('s3cret-pw');
    expect(`${exit.stdout}${exit.stderr}`).not.toContain('Redis is not answering');
  }, 30_000);

  test('the CLI with a bad setting: one line naming it, exit 1', async () => {
    expectOneLine(await startExpectingExit({ JWT_SECRET: 'too-short' }, 20_000, ['runtime/cli.ts', 'classes']), 'JWT_SECRET');
  }, 30_000);

  test('a PORT in use: one line naming PORT, exit 1', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const exit = await startExpectingExit({ PORT: String(port) });
      const line = expectOneLine(exit, 'PORT');
      expect(line).toContain(String(port));
      expect(line).toContain('in use');
    } finally {
      await new Promise((r) => server.close(r));
    }
  }, 30_000);

  test('an unknown role in ROLES: one line naming ROLES, exit 1', async () => {
    const line = expectOneLine(await startExpectingExit({ ROLES: 'api,bogus' }), 'ROLES');
    expect(line).toContain("'bogus'");
  }, 30_000);

  test('a JWT_SECRET shorter than 32 characters: one line naming JWT_SECRET, exit 1', async () => {
    const line = expectOneLine(await startExpectingExit({ JWT_SECRET: 'too-short' }), 'JWT_SECRET');
    expect(line).toContain('32');
    expect(line).not.toContain('too-short');
  }, 30_000);

  test('a PORT that is not a number: one line naming PORT, exit 1', async () => {
    expectOneLine(await startExpectingExit({ PORT: 'eighty' }), 'PORT');
  }, 30_000);

  test('a PORT past 65535: one line naming PORT, exit 1 (not a later error about the URL built from it)', async () => {
    const line = expectOneLine(await startExpectingExit({ PORT: '70000' }), 'PORT');
    expect(line).toContain('65535');
  }, 30_000);

  test('ROLES naming no role at all: one line naming ROLES, exit 1, instead of a process that serves nothing', async () => {
    expectOneLine(await startExpectingExit({ ROLES: ' , ' }), 'ROLES');
  }, 30_000);

  test('a REDIS_URL whose database Redis refuses: one line naming REDIS_URL and the database, exit 1', async () => {
    // the suite's Redis has the default 16 databases
    const url = new URL(redisUrl());
    url.pathname = '/99';
    const line = expectOneLine(await startExpectingExit({ REDIS_URL: url.toString() }), 'REDIS_URL');
    expect(line).toContain('database 99');
  }, 30_000);

  test('a bad value outside loadConfig (PROCESSES): one line naming it, exit 1', async () => {
    expectOneLine(await startExpectingExit({ PROCESSES: 'many' }), 'PROCESSES');
  }, 30_000);

  test('an unreachable MONGODB_URL: one line naming it, exit 1', async () => {
    const closed = CLOSED_PORT;
    const line = expectOneLine(await startExpectingExit({ MONGODB_URL: `mongodb://127.0.0.1:${closed}/db` }), 'MONGODB_URL');
    expect(line).toContain(`127.0.0.1:${closed}`);
  }, 30_000);
});
