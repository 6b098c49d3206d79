/**
 * Notification fan-out benchmark: `npm run bench:notify` (full,
 * 10 000 recipients) or `npm run bench:notify -- --quick` (2 000).
 *
 * One Redis (embedded redis-server without persistence, or REDIS_URL), three
 * child processes:
 *   - the service: `node --import tsx runtime/main.ts`, roles api,worker,projector,
 *     the service classes plus bench/classes (NotifyBench: the one caller of
 *     the class-only sendNotification), SMTP_URL = the counter below, LOG_LEVEL=warn;
 *   - bench/smtp-counter.ts: an `smtp-server` that accepts everything and
 *     counts messages by Message-ID and envelope recipient (its own process, so
 *     it does not share the service's event loop);
 *   - bench/bare-notify.ts: the baseline, the same fan-out with nothing of the
 *     runtime: pooled nodemailer sends with the service's SMTP options to the
 *     same counter, and inbox GET+SET writes on the same Redis.
 *
 * Phases, each one `NotifyBench.send` → one `sendNotification` of MEMBER_WELCOME
 * (email + in-app) to N members `Mbench<i>` / `member<i>@bench.example`, its
 * `name` parameter a tag unique to the phase:
 *   1. in-app only (the inboxes are created by it);
 *   2. email only;
 *   3. bare fan-out (baseline), then email + in-app (the headline: every
 *      member already has an inbox), then the bare fan-out again;
 * each timed from the call until every inbox holds the phase's item (inbox
 * versions polled on Redis, contents checked at the end) and the SMTP server
 * has accepted a mail for every recipient. Then, with the effect stream and
 * the mail queue drained, lost and duplicated items and mails are counted.
 *
 * Human-readable figures go to stdout; the LAST stdout line is one JSON object.
 * Flags: --quick (2 000 recipients), --recipients=N, --smtp-connections=N (the
 *        service's SMTP pool, SMTP_URL ?maxConnections=N, and the bare sender's;
 *        default 5), --cpu-prof (service under
 *        node --cpu-prof; profiles in a temp dir printed at the end),
 *        --headline-only (phase 3 only: the inboxes are then created by it),
 *        --progress (a phase's progress every second instead of every 5).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { findFreePort } from '../runtime/redis/embedded-redis';
import { benchInbox } from './classes/NotifyBench/NotifyBench.class';
import {
  benchKeys,
  benchRedisUrl,
  call,
  cpuSeconds,
  deleteKeys,
  fmt,
  log,
  projectKeyPatterns,
  round1,
  round3,
  runBench,
  sleep,
  stamp,
  startNodeChild,
  tempDirs,
  tracked,
  treeCpuSeconds,
  waitReady,
  type Child,
} from './support';

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const CPU_PROF = argv.includes('--cpu-prof');
const HEADLINE_ONLY = argv.includes('--headline-only');
const recipientsFlag = argv.find((a) => a.startsWith('--recipients='))?.split('=')[1];
/** SMTP connections of the service's pool (SMTP_URL ?maxConnections=N) and of the bare sender's; unset: the service's default, 5 */
const smtpConnectionsFlag = argv.find((a) => a.startsWith('--smtp-connections='))?.split('=')[1];
const SMTP_CONNECTIONS = smtpConnectionsFlag ? Number(smtpConnectionsFlag) : undefined;
if (SMTP_CONNECTIONS !== undefined && (!Number.isInteger(SMTP_CONNECTIONS) || SMTP_CONNECTIONS < 1))
  throw new Error(`--smtp-connections must be a positive integer, got '${smtpConnectionsFlag}'`);
const N = recipientsFlag ? Number(recipientsFlag) : QUICK ? 2_000 : 10_000;
if (!Number.isInteger(N) || N < 1 || N > 10_000)
  throw new Error(
    `--recipients must be 1 to 10000 (sendNotification takes 20 000 'to' entries), got '${recipientsFlag}'`,
  );

/** how often a running phase prints its progress (--progress: every second) */
const PROGRESS_MS = argv.includes('--progress') ? 1000 : 5000;
const PROJECT_ID = 'benchnotify';
/** the service's key names (REDIS_BUCKETS buckets, 1 unless set): inboxes, and per bucket its effect stream and QUEUED_WRITE queue (`<tag>:jobs`) */
const KEYS = benchKeys(PROJECT_ID);
/** the mail queue's keys: BullMQ prefix `rt:{<project>:msg}`, queue `msg-<project>` (runtime/mail/delivery.ts) */
const MAIL_QUEUE = `rt:{${PROJECT_ID}:msg}:msg-${PROJECT_ID}`;
const BARE_PREFIX = 'bench:notifybase:';
const API_KEY = 'bench-notify-integration-key-0123456789abcdef';
const TEMPLATE = 'MEMBER_WELCOME';
/** a phase that has not finished after this is a failure */
const PHASE_TIMEOUT_MS = 600_000;
/** how often the inbox versions and the SMTP counter are read while a phase runs */
const POLL_MS = 100;

const TARGETS = { notify_seconds: 20, lost: 0, duplicated: 0 };

interface SmtpStats {
  accepted: number;
  ids: number;
  recipients: number;
  duplicateIds: number;
  firstAt: number;
  lastAt: number;
}

interface Phase {
  label: string;
  channels: ('email' | 'in_app')[];
  seconds: number;
  inboxSeconds?: number;
  mailSeconds?: number;
  /** the call itself (sendNotification answered 204) */
  callMs: number;
  cpu: { service: number; redis: number; smtp: number };
  lost: { inbox: number; mail: number };
  duplicated: { inbox: number; mail: number };
}

async function main(): Promise<Record<string, unknown>> {
  log(
    `notification fan-out benchmark (${QUICK ? 'quick' : 'full'}): ${os.cpus().length} CPUs, node ${process.version}; ${N} recipients, template ${TEMPLATE}; MAIL_CONCURRENCY=${process.env.MAIL_CONCURRENCY ?? '(default)'}`,
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'notify-bench-data-'));
  tempDirs.add(dataDir);
  const profDir = CPU_PROF ? fs.mkdtempSync(path.join(os.tmpdir(), 'notify-bench-prof-')) : undefined;
  let redis: Redis | undefined;
  const stoppable: Child[] = [];
  try {
    const redisUrl = await benchRedisUrl();
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
    const removed = await deleteKeys(redis, [...projectKeyPatterns(PROJECT_ID), `${BARE_PREFIX}*`]);
    if (removed) log(`  removed ${removed} keys left by an earlier run`);

    const smtpPort = await findFreePort();
    const smtpHttpPort = await findFreePort();
    const smtp = startNodeChild('smtp-counter', 'bench/smtp-counter.ts', {
      SMTP_PORT: String(smtpPort),
      HTTP_PORT: String(smtpHttpPort),
    });
    stoppable.push(smtp);
    const SMTP_API = `http://127.0.0.1:${smtpHttpPort}`;
    const smtpUrl = `smtp://127.0.0.1:${smtpPort}`;

    const barePort = await findFreePort();
    const bare = startNodeChild('bare-notify', 'bench/bare-notify.ts', {
      PORT: String(barePort),
      REDIS_URL: redisUrl,
      SMTP_URL: smtpUrl,
      BASE_PREFIX: BARE_PREFIX,
      PROJECT_ID,
    });
    stoppable.push(bare);
    const BARE = `http://127.0.0.1:${barePort}`;

    const port = await findFreePort();
    const service = startNodeChild(
      'service',
      'runtime/main.ts',
      {
        PROJECT_ID,
        PORT: String(port),
        REDIS_URL: redisUrl,
        SMTP_URL: SMTP_CONNECTIONS ? `${smtpUrl}?maxConnections=${SMTP_CONNECTIONS}` : smtpUrl,
        MAIL_FROM: 'no-reply@bench.example',
        INTEGRATION_API_KEYS: API_KEY,
        JWT_SECRET: 'bench-notify-jwt-secret-0123456789-0123456789-0123',
        CLASS_DIRS: 'classes,bench/classes',
        SCHEMA_DIRS: 'schemas',
        ROLES: 'api,worker,projector',
        LOG_LEVEL: 'warn',
        DATA_DIR: dataDir,
      },
      profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [],
    );
    stoppable.push(service);
    // the service's warnings and errors (LOG_LEVEL=warn), counted by message: a retried hand-over or effect shows here
    const warnings = new Map<string, number>();
    let partial = '';
    const countWarnings = (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const entry = JSON.parse(line) as { level?: number; msg?: string };
          if ((entry.level ?? 0) >= 40) warnings.set(entry.msg ?? '?', (warnings.get(entry.msg ?? '?') ?? 0) + 1);
        } catch {
          if (line.trim()) warnings.set(line.slice(0, 120), (warnings.get(line.slice(0, 120)) ?? 0) + 1);
        }
      }
    };
    service.proc.stdout!.on('data', countWarnings);
    service.proc.stderr!.on('data', countWarnings);
    const reportWarnings = () => {
      if (!warnings.size) return;
      log(`  service warnings: ${[...warnings].map(([msg, n]) => `${n} × ${msg}`).join('; ')}`);
      warnings.clear();
    };
    const BASE = `http://127.0.0.1:${port}`;
    await waitReady(smtp, `${SMTP_API}/ready`);
    await waitReady(bare, `${BARE}/ready`);
    await waitReady(service, `${BASE}/ready`, 120_000);
    log(`ready: service pid ${service.pid}, smtp-counter pid ${smtp.pid}, bare pid ${bare.pid} ${stamp()}`);

    const smtpStats = async (): Promise<SmtpStats> => (await call(SMTP_API, 'GET', '/stats')).body as SmtpStats;
    const redisPid = tracked.redis?.pid;
    const inboxKeys = Array.from({ length: N }, (_, i) => KEYS.instance('UserNotification', benchInbox(i)));

    /** every inbox's version (0: none yet), pipelined in chunks */
    const versions = async (indexes: number[]): Promise<number[]> => {
      const out: number[] = [];
      for (let k = 0; k < indexes.length; k += 2000) {
        const p = redis!.pipeline();
        for (const i of indexes.slice(k, k + 2000)) p.hget(inboxKeys[i], 'v');
        const rows = (await p.exec()) ?? [];
        for (const [err, v] of rows) out.push(err ? 0 : Number(v ?? 0));
      }
      return out;
    };

    /** per inbox, how many items carry `tag` */
    const tagged = async (tag: string): Promise<number[]> => {
      const out: number[] = [];
      const needle = `Hello ${tag},`;
      for (let k = 0; k < N; k += 1000) {
        const p = redis!.pipeline();
        for (let i = k; i < Math.min(N, k + 1000); i++) p.hget(inboxKeys[i], 's');
        for (const [err, s] of (await p.exec()) ?? []) {
          if (err || typeof s !== 'string') {
            out.push(0);
            continue;
          }
          const items = ((JSON.parse(s) as { private?: { items?: { content?: string }[] } }).private?.items ?? []) as {
            content?: string;
          }[];
          out.push(items.filter((it) => it.content?.startsWith(needle)).length);
        }
      }
      return out;
    };

    /** every bucket's effect stream and QUEUED_WRITE queue, and the mail queue, hold nothing more to do */
    const drained = async (): Promise<boolean> => {
      const counts = await Promise.all([
        ...KEYS.all.flatMap((b) => [
          redis!.xlen(b.effects),
          redis!.llen(`${b.queuePrefix}:jobs:wait`),
          redis!.llen(`${b.queuePrefix}:jobs:active`),
        ]),
        redis!.llen(`${MAIL_QUEUE}:wait`),
        redis!.llen(`${MAIL_QUEUE}:active`),
        redis!.zcard(`${MAIL_QUEUE}:delayed`),
      ]);
      return counts.every((n) => n === 0);
    };

    const waitDrained = async (what: string) => {
      const deadline = Date.now() + PHASE_TIMEOUT_MS;
      while (!(await drained())) {
        if (!service.alive()) throw new Error(`the service exited:\n${service.tail()}`);
        if (Date.now() > deadline)
          throw new Error(`${what}: the effect stream and queues not drained within ${PHASE_TIMEOUT_MS / 1000} s`);
        await sleep(200);
      }
    };

    let phaseNo = 0;
    const runPhase = async (label: string, channels: ('email' | 'in_app')[]): Promise<Phase> => {
      const tag = `b${++phaseNo}x${Date.now().toString(36)}`;
      log(`\n== ${label}: sendNotification to ${N} members (${channels.join(' + ')}) ${stamp()}`);
      await waitDrained(`before ${label}`);
      await call(SMTP_API, 'POST', '/reset');
      const wantInbox = channels.includes('in_app');
      const wantMail = channels.includes('email');
      const before = wantInbox ? await versions(Array.from({ length: N }, (_, i) => i)) : [];
      const cpu0 = { service: treeCpuSeconds(service.pid), redis: cpuSeconds(redisPid), smtp: cpuSeconds(smtp.pid) };
      const t0 = performance.now();
      const wall0 = Date.now();
      const r = await call(
        BASE,
        'POST',
        `/${PROJECT_ID}/CALL/NotifyBench/send`,
        { templateId: TEMPLATE, count: N, channels, tag },
        { 'x-api-key': API_KEY },
      );
      const callMs = performance.now() - t0;
      if (r.status !== 200) throw new Error(`NotifyBench.send answered ${r.status}: ${JSON.stringify(r.body)}`);
      log(`  sendNotification answered in ${fmt(callMs)} ms`);

      let pending = wantInbox ? Array.from({ length: N }, (_, i) => i) : [];
      let inboxSeconds: number | undefined;
      let mailSeconds: number | undefined;
      let mailDone = !wantMail;
      const deadline = Date.now() + PHASE_TIMEOUT_MS;
      let lastReport = performance.now();
      for (;;) {
        if (!service.alive()) throw new Error(`the service exited:\n${service.tail()}`);
        if (pending.length) {
          const now = await versions(pending);
          pending = pending.filter((i, k) => now[k] <= before[i]);
          if (!pending.length) inboxSeconds = (performance.now() - t0) / 1000;
        }
        let stats: SmtpStats | undefined;
        if (!mailDone) {
          stats = await smtpStats();
          if (stats.recipients >= N) {
            mailDone = true;
            mailSeconds = (stats.lastAt - wall0) / 1000;
          }
        }
        if (!pending.length && mailDone) break;
        if (performance.now() - lastReport > PROGRESS_MS) {
          lastReport = performance.now();
          const mails = stats ? `${stats.recipients} mails` : '';
          log(
            `  … ${fmt((performance.now() - t0) / 1000, 1)} s: ${wantInbox ? `${N - pending.length} inboxes` : ''}${wantInbox && wantMail ? ', ' : ''}${mails}`,
          );
        }
        if (Date.now() > deadline)
          throw new Error(
            `${label}: ${pending.length} inboxes and ${mailDone ? 0 : N - (stats?.recipients ?? 0)} mails missing after ${PHASE_TIMEOUT_MS / 1000} s`,
          );
        await sleep(POLL_MS);
      }
      const seconds = Math.max(inboxSeconds ?? 0, mailSeconds ?? 0);
      const cpu = {
        service: treeCpuSeconds(service.pid) - cpu0.service,
        redis: cpuSeconds(redisPid) - cpu0.redis,
        smtp: cpuSeconds(smtp.pid) - cpu0.smtp,
      };

      // nothing left in flight: what arrives late (a redelivery) counts
      await waitDrained(label);
      const lost = { inbox: 0, mail: 0 };
      const duplicated = { inbox: 0, mail: 0 };
      if (wantInbox) {
        for (const n of await tagged(tag)) {
          if (n === 0) lost.inbox++;
          else duplicated.inbox += n - 1;
        }
      }
      if (wantMail) {
        const s = await smtpStats();
        lost.mail = N - s.recipients;
        // one mail per recipient: any more (a resent Message-ID or a second message) is a duplicate
        duplicated.mail = s.accepted - s.recipients;
      }
      const parts = [
        inboxSeconds !== undefined ? `inboxes ${fmt(inboxSeconds, 2)} s (${fmt(N / inboxSeconds)}/s)` : '',
        mailSeconds !== undefined ? `mails ${fmt(mailSeconds, 2)} s (${fmt(N / mailSeconds)}/s)` : '',
      ].filter(Boolean);
      log(`  done in ${fmt(seconds, 2)} s: ${parts.join(', ')}`);
      log(`  cpu: service ${fmt(cpu.service, 1)} s, redis ${fmt(cpu.redis, 1)} s, smtp server ${fmt(cpu.smtp, 1)} s`);
      log(
        `  lost: ${lost.inbox} inbox items, ${lost.mail} mails; duplicated: ${duplicated.inbox} inbox items, ${duplicated.mail} mails`,
      );
      reportWarnings();
      return { label, channels, seconds, inboxSeconds, mailSeconds, callMs, cpu, lost, duplicated };
    };

    const bareRuns: { seconds: number; mailSeconds: number; inboxSeconds: number }[] = [];
    const runBare = async () => {
      await waitDrained('before the bare fan-out');
      await call(SMTP_API, 'POST', '/reset');
      const cpu0 = cpuSeconds(bare.pid);
      const r = await call(BARE, 'POST', '/run', {
        n: N,
        tag: `bare${bareRuns.length}`,
        connections: SMTP_CONNECTIONS ?? 5,
      });
      const bareCpu = cpuSeconds(bare.pid) - cpu0;
      if (r.status !== 200) throw new Error(`bare fan-out failed: ${JSON.stringify(r.body)}`);
      const s = await smtpStats();
      if (s.recipients !== N)
        throw new Error(`bare fan-out: the SMTP server counted ${s.recipients} recipients, not ${N}`);
      const b = r.body as { seconds: number; mailSeconds: number; inboxSeconds: number };
      bareRuns.push(b);
      log(
        `\n== bare fan-out (nodemailer pool of ${SMTP_CONNECTIONS ?? 5} + ioredis GET+SET, no runtime): ${fmt(b.seconds, 2)} s; mails ${fmt(b.mailSeconds, 2)} s (${fmt(N / b.mailSeconds)}/s), inbox writes ${fmt(b.inboxSeconds, 2)} s (${fmt(N / b.inboxSeconds)}/s); cpu ${fmt(bareCpu, 1)} s ${stamp()}`,
      );
    };

    const phases: Phase[] = [];
    if (!HEADLINE_ONLY) {
      phases.push(await runPhase('in-app only (creates the inboxes)', ['in_app']));
      phases.push(await runPhase('email only', ['email']));
    }
    await runBare();
    const headline = await runPhase(
      HEADLINE_ONLY ? 'email + in-app (new inboxes)' : 'email + in-app (members with inboxes)',
      ['email', 'in_app'],
    );
    phases.push(headline);
    await runBare();

    const bareSeconds = bareRuns.reduce((a, b) => a + b.seconds, 0) / bareRuns.length;
    const bareMail = bareRuns.reduce((a, b) => a + b.mailSeconds, 0) / bareRuns.length;
    const bareInbox = bareRuns.reduce((a, b) => a + b.inboxSeconds, 0) / bareRuns.length;
    const lost = phases.reduce((a, p) => a + p.lost.inbox + p.lost.mail, 0);
    const duplicated = phases.reduce((a, p) => a + p.duplicated.inbox + p.duplicated.mail, 0);
    const ratio = bareSeconds / headline.seconds;
    log(`\n== summary`);
    log(
      `  email + in-app to ${N}: ${fmt(headline.seconds, 2)} s (target ≤ ${TARGETS.notify_seconds} s); bare fan-out ${fmt(bareSeconds, 2)} s (mean of ${bareRuns.length}); ratio bare/service ${fmt(ratio, 3)}`,
    );
    log(
      `  inbox items ${fmt(N / headline.inboxSeconds!)}/s (bare ${fmt(N / bareInbox)}/s), mails ${fmt(N / headline.mailSeconds!)}/s (bare ${fmt(N / bareMail)}/s)`,
    );
    for (const p of phases)
      log(
        `  ${p.label.padEnd(40)} ${fmt(p.seconds, 2).padStart(7)} s   service cpu ${fmt(p.cpu.service, 1)} s, redis ${fmt(p.cpu.redis, 1)} s, smtp ${fmt(p.cpu.smtp, 1)} s`,
      );
    if (profDir) log(`cpu profile: ${profDir} (written when the service stops)`);

    const targetsMet = headline.seconds <= TARGETS.notify_seconds && lost === 0 && duplicated === 0;
    return {
      notify_recipients: N,
      notify_seconds: round3(headline.seconds),
      inbox_items_per_s: Math.round(N / headline.inboxSeconds!),
      mails_per_s: Math.round(N / headline.mailSeconds!),
      lost,
      duplicated,
      bare_seconds: round3(bareSeconds),
      bare_ratio: round3(ratio),
      bare_mails_per_s: Math.round(N / bareMail),
      bare_inbox_writes_per_s: Math.round(N / bareInbox),
      mail_ratio: round3(bareMail / headline.mailSeconds!),
      inbox_ratio: round3(bareInbox / headline.inboxSeconds!),
      phases: Object.fromEntries(
        phases.map((p) => [
          p.channels.join('+'),
          {
            seconds: round3(p.seconds),
            ...(p.inboxSeconds !== undefined ? { inbox_seconds: round3(p.inboxSeconds) } : {}),
            ...(p.mailSeconds !== undefined ? { mail_seconds: round3(p.mailSeconds) } : {}),
            call_ms: Math.round(p.callMs),
            service_cpu_s: round1(p.cpu.service),
            redis_cpu_s: round1(p.cpu.redis),
            smtp_cpu_s: round1(p.cpu.smtp),
          },
        ]),
      ),
      mail_concurrency: process.env.MAIL_CONCURRENCY ? Number(process.env.MAIL_CONCURRENCY) : 'default',
      smtp_connections: SMTP_CONNECTIONS ?? 'default',
      targets: TARGETS,
      targets_met: targetsMet,
    };
  } finally {
    await Promise.all(stoppable.reverse().map((c) => c.stop()));
    redis?.disconnect();
    await tracked.redis?.stop();
  }
}

runBench(main);
