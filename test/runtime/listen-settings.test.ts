/**
 * Settings read at start that an operator may get wrong: LISTEN_ADDRESS (the
 * interface the API listens on), LOG_LEVEL and BODY_LIMIT (refused by
 * loadConfig with a message naming them, which the start prints as one line).
 */
import type { AddressInfo } from 'node:net';
import { bodyLimit, listenAddress, loadConfig, logLevel } from '../../runtime/config';
import { fromConfigError } from '../../runtime/startup-errors';
import { startTestRuntime } from '../support/harness';

test('LISTEN_ADDRESS=127.0.0.1: the API listens on that address only', async () => {
  const t = await startTestRuntime({ env: { LISTEN_ADDRESS: '127.0.0.1' } });
  try {
    expect((t.rt.server!.address() as AddressInfo).address).toBe('127.0.0.1');
    expect((await fetch(`${t.base}/health`)).status).toBe(200);
  } finally {
    await t.stop();
  }
});

test('unset, the API listens on every interface', async () => {
  const t = await startTestRuntime();
  try {
    expect(['::', '0.0.0.0']).toContain((t.rt.server!.address() as AddressInfo).address);
  } finally {
    await t.stop();
  }
});

test('LISTEN_ADDRESS, LOG_LEVEL and BODY_LIMIT take only what they can use, and say what they take', () => {
  expect(listenAddress({})).toBeUndefined();
  expect(listenAddress({ LISTEN_ADDRESS: ' ::1 ' })).toBe('::1');
  expect(listenAddress({ LISTEN_ADDRESS: 'localhost' })).toBe('localhost');
  expect(() => listenAddress({ LISTEN_ADDRESS: 'eth0' })).toThrow(
    "LISTEN_ADDRESS must be an IP address (e.g. 127.0.0.1 or ::) or localhost, got 'eth0'",
  );
  expect(logLevel({})).toBe('info');
  expect(logLevel({ LOG_LEVEL: 'debug' })).toBe('debug');
  expect(() => logLevel({ LOG_LEVEL: 'loud' })).toThrow(
    "LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got 'loud'",
  );
  expect(bodyLimit({})).toBe('16mb');
  expect(bodyLimit({ BODY_LIMIT: '64kb' })).toBe('64kb');
  expect(() => bodyLimit({ BODY_LIMIT: 'huge' })).toThrow(
    "BODY_LIMIT must be a size such as 64kb, 16mb or a number of bytes, got 'huge'",
  );
  // as the start reports them: one line naming the setting
  for (const [env, setting] of [
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ BODY_LIMIT: 'huge' }, 'BODY_LIMIT'],
    [{ LISTEN_ADDRESS: 'eth0' }, 'LISTEN_ADDRESS'],
  ] as const) {
    let err: unknown;
    try {
      loadConfig({ PROJECT_ID: 'p', ...env });
    } catch (e) {
      err = e;
    }
    expect(fromConfigError(err)?.setting).toBe(setting);
  }
});
