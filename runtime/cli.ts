/**
 * Operator CLI: `npm run cli -- <command>`. Uses the same environment as the
 * service (REDIS_URL, PROJECT_ID, JWT_SECRET, DATA_DIR, ...); without REDIS_URL
 * it reuses the embedded Redis of a running `npm start`, or starts it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command } from 'commander';
import { TOKEN_IDENTITIES } from './auth/auth';
import { loadConfig, projectRoot } from './config';
import { inspectInstance, queueStatus, retryFailedJob } from './inspect';
import { reproject } from './reproject';
import { migrateState } from './migrate-state';
import { backup, restore } from './backup';
import type { BlobStore } from './files/blob-store';
import { connect, type RedisConnection } from './redis/connection';
import { progress, type CliProgress } from './cli-progress';
import { DeadLetterNotFound, DeadLetters } from './queue/dead-letters';
import { createLogger } from './logger';
import { resolveRedis } from './redis/embedded-redis';
import { openBlobs, Runtime } from './runtime';
import {
  checkJwtSecret,
  checkMongoReachable,
  checkRedisReachable,
  fromConfigError,
  StartupError,
} from './startup-errors';
import type { IdentityType } from './types/identity';
import type { WithRuntime } from './index';

/** The environment read as the CLI's runtime uses it (api role): a wrong value is a StartupError naming it. */
function readConfig(): ReturnType<typeof loadConfig> {
  try {
    const config = loadConfig({ ...process.env, ROLES: 'api' });
    checkJwtSecret(config.jwtSecret);
    return config;
  } catch (err) {
    throw fromConfigError(err) ?? err;
  }
}

async function withRuntime<T>(fn: (rt: Runtime) => T | Promise<T>): Promise<T> {
  const config = readConfig();
  // as the service: an unreachable REDIS_URL or MONGODB_URL is one StartupError, not ioredis retrying for ever
  if (config.redisClusterNodes) await checkRedisReachable({ kind: 'cluster', nodes: config.redisClusterNodes });
  else if (process.env.REDIS_URL) await checkRedisReachable(process.env.REDIS_URL);
  if (config.mongodbUrl) await checkMongoReachable(config.mongodbUrl);
  const logger = createLogger(process.env.LOG_LEVEL || 'warn');
  // a cluster (REDIS_CLUSTER_NODES) is used as it is: no embedded server is started beside it
  const redis = config.redisClusterNodes
    ? { url: '', embedded: undefined }
    : await resolveRedis(process.env, { dataDir: config.dataDir });
  const rt = await Runtime.create(config, redis.url, { logger });
  try {
    return await fn(rt);
  } finally {
    await rt.stop();
    await redis.embedded?.stop();
  }
}

/**
 * The stores alone, without a runtime: a restore must find the target empty,
 * and a starting runtime writes keys of its own (the layout marker, roles).
 */
async function withStores<T>(
  fn: (stores: { redis: RedisConnection; blobs: BlobStore; projectId: string }) => Promise<T>,
): Promise<T> {
  const config = readConfig();
  if (config.redisClusterNodes) await checkRedisReachable({ kind: 'cluster', nodes: config.redisClusterNodes });
  else if (process.env.REDIS_URL) await checkRedisReachable(process.env.REDIS_URL);
  if (config.mongodbUrl) await checkMongoReachable(config.mongodbUrl);
  const embedded = config.redisClusterNodes ? undefined : await resolveRedis(process.env, { dataDir: config.dataDir });
  const redis = connect(
    config.redisClusterNodes
      ? { kind: 'cluster', nodes: config.redisClusterNodes }
      : { kind: 'single', url: embedded!.url },
    { maxRetriesPerRequest: 2 },
  );
  const blobs = await openBlobs(config);
  try {
    return await fn({ redis, blobs, projectId: config.projectId });
  } finally {
    redis.disconnect();
    await blobs.close();
    await embedded?.embedded?.stop();
  }
}

/** a backup's or restore's progress on one bar: keys, then blobs */
function counted(bar: CliProgress): (what: 'keys' | 'blobs', done: number) => void {
  const done = { keys: 0, blobs: 0 };
  return (what, n) => {
    done[what] = n;
    bar.tick(done.keys + done.blobs);
  };
}

function deadLettersOf(rt: Runtime): DeadLetters {
  return new DeadLetters(rt.store, rt.dispatcher.effects, rt.messages);
}

function print(value: unknown): void {
  process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}\n`);
}

/** the version of the package this CLI belongs to (package.json at the project's root) */
function packageVersion(): string {
  const file = path.join(projectRoot(), 'package.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}

const program = new Command('cli')
  .description('membership runtime operator commands')
  .version(packageVersion(), '-V, --version', 'print the version and exit');

program
  .command('apikey:create <name>')
  .description('create an integration API key (printed once; stored hashed)')
  .action((name: string) => withRuntime(async (rt) => print(await rt.apiKeys.create(name))));

program
  .command('apikey:list')
  .description('list integration API keys (ids and names, never the keys)')
  .action(() => withRuntime(async (rt) => print(await rt.apiKeys.list())));

program
  .command('apikey:revoke <id>')
  .description('revoke an integration API key by id')
  .action((id: string) =>
    withRuntime(async (rt) => {
      if (!(await rt.apiKeys.revoke(id))) {
        process.exitCode = 1;
        print(`no API key with id ${id}`);
      } else print(`revoked ${id}`);
    }),
  );

program
  .command('token <identity> <userId>')
  .description(
    `mint a development JWT (identity: ${TOKEN_IDENTITIES.join(', ')}), marked dev: its roles, tenant and developer flag are honoured ` +
      'as they are, without asking the identity source, and only while ALLOW_DEV_TOKENS is on (not in production by default)',
  )
  .option('--roles <roles>', 'comma-separated role ids or names', '')
  .option('--ttl <seconds>', 'lifetime in seconds', '3600')
  .option('--developer', 'mark a program_management_user token as a developer (approval bypass)')
  .option('--tenant <id>', 'limit the token to one tenant (a company user: the company id)')
  .action(
    (identity: string, userId: string, opts: { roles: string; ttl: string; developer?: boolean; tenant?: string }) =>
      withRuntime((rt) => {
        const roles = opts.roles
          .split(',')
          .map((r) => r.trim())
          .filter(Boolean);
        const claims = {
          sub: userId,
          identity: identity as IdentityType,
          roles,
          ...(opts.developer ? { developer: true } : {}),
          ...(opts.tenant ? { tenant: opts.tenant, userType: 'company' } : {}),
        };
        // sign() marks the token as a development token (dev: true) and refuses when ALLOW_DEV_TOKENS is off
        print(rt.tokens.sign(claims, Number(opts.ttl)));
      }),
  );

/** a token identity named on the command line, or a usage error naming the ones there are */
function tokenIdentity(identity: string): IdentityType {
  if (!(TOKEN_IDENTITIES as readonly string[]).includes(identity))
    throw new Error(`identity must be one of ${TOKEN_IDENTITIES.join(', ')}, got '${identity}'`);
  return identity as IdentityType;
}

program
  .command('sessions <identity> <userId>')
  .description(
    `list a user's sessions (identity: ${TOKEN_IDENTITIES.join(', ')}): each refresh-token family with a live token, newest first; no token is shown`,
  )
  .action((identity: string, userId: string) =>
    withRuntime(async (rt) => print({ sessions: await rt.sessions.list(userId, tokenIdentity(identity)) })),
  );

program
  .command('sessions:revoke <identity> <userId>')
  .description(
    "end a user's sessions: every one, or the one --family names (its refresh tokens stop working; access tokens lapse within their lifetime)",
  )
  .option('--family <id>', 'only this session (a family listed by `sessions`)')
  .action((identity: string, userId: string, opts: { family?: string }) =>
    withRuntime(async (rt) => {
      const type = tokenIdentity(identity);
      if (opts.family === undefined) {
        const count = (await rt.sessions.list(userId, type)).length;
        await rt.sessions.revokeAll(userId, type);
        print({ revoked: count });
      } else if (await rt.sessions.revoke(userId, type, opts.family)) {
        print({ revoked: 1 });
      } else {
        process.exitCode = 1;
        print(`no session ${opts.family} of ${identity} ${userId}`);
      }
    }),
  );

program
  .command('reproject [classIds...]')
  .description(
    'rebuild the document-store collections of the given classes (default: all) from actor state; with the embedded store ' +
      "(no MONGODB_URL) the running service's projector processes rebuild theirs, and it fails when none is running",
  )
  .option(
    '--timeout <seconds>',
    'embedded store: give up when the service has reported no progress for this long',
    '30',
  )
  .action((classIds: string[], opts: { timeout: string }) =>
    withRuntime(async (rt) => {
      const idleMs = Number(opts.timeout) * 1000;
      if (!Number.isFinite(idleMs) || idleMs <= 0)
        throw new Error(`--timeout must be a number of seconds above 0, got '${opts.timeout}'`);
      print(await reproject(rt, classIds, { idleMs }));
    }),
  );

program
  .command('backup <dir>')
  .description(
    "write the project's Redis keys (DUMP payloads with their time to live) and its file store's blobs into <dir> " +
      '(absent or empty) with a manifest; the document store is rebuilt from state after a restore',
  )
  .action((dir: string) =>
    withStores(async ({ redis, blobs, projectId }) => {
      const bar = progress('backup', { unit: 'keys and blobs' });
      try {
        print(await backup(redis, blobs, projectId, path.resolve(dir), counted(bar)));
      } finally {
        bar.stop();
      }
    }),
  );

program
  .command('restore <dir>')
  .description(
    "write a backup into this configuration's Redis and file store, which must hold nothing of the project; " +
      'then start the service (the embedded document store is rebuilt at start; with MongoDB run reproject)',
  )
  .action((dir: string) =>
    withStores(async ({ redis, blobs, projectId }) => {
      const bar = progress('restore', { unit: 'keys and blobs' });
      try {
        print(await restore(redis, blobs, projectId, path.resolve(dir), counted(bar)));
      } finally {
        bar.stop();
      }
    }),
  );

program
  .command('migrate-state [classIds...]')
  .description(
    'write every instance of the given classes (default: all that declare a state version) whose state is older ' +
      'than the version their code reads, beside the running service; run again to resume: current instances are skipped',
  )
  .option('--concurrency <n>', 'instances written at once', '8')
  .action((classIds: string[], opts: { concurrency: string }) =>
    withRuntime(async (rt) => {
      const bar = progress('migrate-state', { unit: 'instances' });
      let reports;
      try {
        reports = await migrateState(rt, classIds, {
          concurrency: Number(opts.concurrency),
          onProgress: (_classId, seen) => bar.tick(seen),
        });
      } finally {
        bar.stop();
      }
      if (reports.some((r) => r.failed > 0)) process.exitCode = 1;
      print({ classes: reports });
    }),
  );

program
  .command('call <classId> <method> [instanceId]')
  .description('call a method as the system identity; body as JSON from --body')
  .option('--body <json>', 'request body', '{}')
  .action((classId: string, method: string, instanceId: string | undefined, opts: { body: string }) =>
    withRuntime(async (rt) => print(await rt.call(classId, method, instanceId, JSON.parse(opts.body)))),
  );

program
  .command('inspect <classId> <instance>')
  .description(
    'an instance as stored: state (sensitive fields masked), version, lookup keys, pending QUEUED_WRITE jobs, due tasks and pending effects; <instance> is an id or lookupName!value',
  )
  .action((classId: string, instance: string) =>
    withRuntime(async (rt) => print(await inspectInstance(rt, classId, instance))),
  );

program
  .command('status')
  .description(
    "queue depths, the oldest waiting job's age, the last 20 failed jobs, the committed effects not yet applied and the projector lag " +
      "(outbox entries not projected and the oldest one's age, by collection)",
  )
  .action(() => withRuntime(async (rt) => print(await queueStatus(rt))));

program
  .command('retry <jobId>')
  .description('retry a failed job (a QUEUED_WRITE call or a delayed task)')
  .action((jobId: string) => withRuntime(async (rt) => print(await retryFailedJob(rt, jobId))));

program
  .command('dead-letters')
  .description(
    'what the runtime gave up on, newest first: committed effects their target refused (effect:<bucket>:<entry>) and mail or SMS ' +
      'that could not be delivered (message:<id>); recipients masked',
  )
  .option('--limit <n>', 'at most this many of each kind', '100')
  .action((opts: { limit: string }) =>
    withRuntime(async (rt) => print({ deadLetters: await deadLettersOf(rt).list(Number(opts.limit) || 100) })),
  );

program
  .command('dead-letters:retry [id]')
  .description(
    'retry a dead letter by id (from `dead-letters`), or every one with --all: an effect is applied again now, a message is queued for sending again',
  )
  .option('--all', 'retry every dead letter listed')
  .action((id: string | undefined, opts: { all?: boolean }) =>
    withRuntime(async (rt) => {
      if (opts.all) {
        const out = await deadLettersOf(rt).retryAll();
        if (out.failed.length) process.exitCode = 1;
        return print(out);
      }
      if (!id) throw new Error('name a dead letter id, or --all');
      try {
        print(await deadLettersOf(rt).retry(id));
      } catch (err) {
        if (!(err instanceof DeadLetterNotFound)) throw err;
        process.exitCode = 1;
        print(err.message);
      }
    }),
  );

program
  .command('classes')
  .description('list classes and their methods')
  .action(() => withRuntime((rt) => print(rt.registry.catalogue())));

/**
 * Commands contributed by the classes: every `*.cli.ts` (or compiled `.cli.js`)
 * file in the class folders exports `registerCommands(program, withRuntime)`.
 */
function registerClassCommands(): void {
  const config = readConfig();
  const files: string[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.cli\.(ts|js)$/.test(e.name) && !e.name.endsWith('.d.ts')) files.push(full);
    }
  };
  config.classDirs.forEach(walk);
  for (const file of files.sort()) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(file) as { registerCommands?: (p: Command, w: WithRuntime) => void };
    mod.registerCommands?.(program, withRuntime);
  }
}

function fail(err: unknown): never {
  // a setting to fix is one line as the service prints it (main.ts): `error: <SETTING>: <cause>`
  if (err instanceof StartupError) process.stderr.write(`error: ${err.setting}: ${err.reason}\n`);
  else process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

try {
  registerClassCommands();
} catch (err) {
  fail(err);
}

program.parseAsync(process.argv).catch(fail);
