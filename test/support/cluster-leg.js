/*
 * setupFiles of jest's cluster project: the runtimes these test files start
 * through the harness (test/support/harness.ts testEnv) use the suite's local
 * Redis Cluster (TEST_REDIS_CLUSTER_NODES, started by global-setup.js) with
 * its default 16 buckets, instead of the single redis-server.
 */
'use strict';

process.env.TEST_TOPOLOGY = 'cluster';
