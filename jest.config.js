/**
 * Two projects over one run (one globalSetup: a redis-server and a local Redis Cluster):
 *  - `redis`: every test file, on the single redis-server (REDIS_URL);
 *  - `cluster`: the runtime's contract and integration suites and one end-to-end flow per
 *    area again, with their runtimes on the Redis Cluster (test/support/cluster-leg.js).
 *    The whole suite twice would not fit CI's time; the files that test the cluster itself
 *    (failover, lookup races, aux stores) are in `redis` and name the cluster themselves.
 */
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
};

/** run a second time on the cluster */
const CLUSTER_LEG = [
  'test/runtime/http.test.ts',
  'test/runtime/kinds.test.ts',
  'test/runtime/queue.test.ts',
  'test/runtime/effects.test.ts',
  'test/runtime/stream.test.ts',
  'test/Member/hr-employee.test.ts',
];

/** @type {import('jest').Config} */
module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  testTimeout: 60000,
  maxWorkers: 2,
  projects: [
    { ...common, displayName: 'redis', testMatch: ['<rootDir>/test/**/*.test.ts'] },
    {
      ...common,
      displayName: 'cluster',
      testMatch: CLUSTER_LEG.map((file) => `<rootDir>/${file}`),
      setupFiles: ['<rootDir>/test/support/cluster-leg.js'],
    },
  ],
};
