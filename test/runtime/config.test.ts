/**
 * Environment settings read outside loadConfig: PROCESSES, HEAP_GROWING_PERCENT and HEAP_GROWING_FROM_MB
 * (its effect on resident memory is measured by `npm run bench:hr`, not here); and MAX_JSON_DEPTH,
 * REDIS_COMMAND_TIMEOUT_MS and REDIS_APPENDFSYNC (their effects: test/runtime/redis-outage.test.ts and
 * test/embedded-redis.test.ts).
 */
import {
  heapGrowingFromMb,
  heapGrowingPercent,
  loadConfig,
  maxJsonDepth,
  processCount,
  redisAppendfsync,
  redisCommandTimeoutMs,
} from '../../runtime/config';

describe('PROCESSES', () => {
  it('defaults to 1 and takes a positive integer', () => {
    expect(processCount({})).toBe(1);
    expect(processCount({ PROCESSES: '3' })).toBe(3);
  });

  it.each(['0', '-1', '1.5', 'two'])('refuses %s', (raw) => {
    expect(() => processCount({ PROCESSES: raw })).toThrow(/PROCESSES must be an integer >= 1/);
  });
});

describe('HEAP_GROWING_PERCENT', () => {
  it('defaults to 100; 0 leaves V8 its own policy', () => {
    expect(heapGrowingPercent({})).toBe(100);
    expect(heapGrowingPercent({ HEAP_GROWING_PERCENT: '' })).toBe(100);
    expect(heapGrowingPercent({ HEAP_GROWING_PERCENT: '0' })).toBe(0);
    expect(heapGrowingPercent({ HEAP_GROWING_PERCENT: '50' })).toBe(50);
  });

  it('applies from 128 MB of live heap unless told', () => {
    expect(heapGrowingFromMb({})).toBe(128);
    expect(heapGrowingFromMb({ HEAP_GROWING_FROM_MB: '0' })).toBe(0);
    expect(() => heapGrowingFromMb({ HEAP_GROWING_FROM_MB: 'big' })).toThrow(
      /HEAP_GROWING_FROM_MB must be an integer >= 0/,
    );
  });

  it.each([
    ['-5', /integer >= 0/],
    ['1.5', /integer >= 0/],
    ['lots', /integer >= 0/],
    ['5000', /at most 1000/],
  ])('refuses %s', (raw, message) => {
    expect(() => heapGrowingPercent({ HEAP_GROWING_PERCENT: raw })).toThrow(message);
  });
});

describe('MAX_JSON_DEPTH', () => {
  it('defaults to 64 and is part of the runtime configuration', () => {
    expect(maxJsonDepth({})).toBe(64);
    expect(maxJsonDepth({ MAX_JSON_DEPTH: '10' })).toBe(10);
    expect(loadConfig({ MAX_JSON_DEPTH: '32' }).maxJsonDepth).toBe(32);
    expect(loadConfig({}).maxJsonDepth).toBe(64);
  });

  it.each([
    ['0', /integer >= 1/],
    ['deep', /integer >= 1/],
    ['1001', /at most 1000/],
  ])('refuses %s', (raw, message) => {
    expect(() => maxJsonDepth({ MAX_JSON_DEPTH: raw })).toThrow(message);
  });
});

describe('REDIS_COMMAND_TIMEOUT_MS', () => {
  it('defaults to 2000 ms and is part of the runtime configuration', () => {
    expect(redisCommandTimeoutMs({})).toBe(2000);
    expect(redisCommandTimeoutMs({ REDIS_COMMAND_TIMEOUT_MS: '500' })).toBe(500);
    expect(loadConfig({}).redisCommandTimeoutMs).toBe(2000);
    expect(loadConfig({ REDIS_COMMAND_TIMEOUT_MS: '750' }).redisCommandTimeoutMs).toBe(750);
  });

  it.each([
    ['0', /integer >= 100/],
    ['99', /integer >= 100/],
    ['2s', /integer >= 100/],
    ['60001', /at most 60000/],
  ])('refuses %s', (raw, message) => {
    expect(() => loadConfig({ REDIS_COMMAND_TIMEOUT_MS: raw })).toThrow(message);
  });
});

describe('REDIS_APPENDFSYNC', () => {
  it('defaults to everysec and takes always, everysec or no', () => {
    expect(redisAppendfsync({})).toBe('everysec');
    expect(redisAppendfsync({ REDIS_APPENDFSYNC: '' })).toBe('everysec');
    for (const policy of ['always', 'everysec', 'no'] as const) {
      expect(redisAppendfsync({ REDIS_APPENDFSYNC: policy })).toBe(policy);
      expect(loadConfig({ REDIS_APPENDFSYNC: policy }).redisAppendfsync).toBe(policy);
    }
  });

  it.each(['ALWAYS', 'every-sec', '1', 'yes', ' always'])('stops the start on %j', (raw) => {
    expect(() => loadConfig({ REDIS_APPENDFSYNC: raw })).toThrow(
      /REDIS_APPENDFSYNC must be one of always, everysec, no/,
    );
  });
});
