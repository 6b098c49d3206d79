/**
 * Member-app content benchmark: `npm run bench:content` (full) or
 * `npm run bench:content -- --quick`.
 *
 * One Redis (embedded redis-server without persistence, or REDIS_URL), one
 * service process (`npm run build`, then `node dist/runtime/main.js`: the
 * service classes, LOG_LEVEL=warn, embedded document store) and the bare
 * express + ioredis baseline (bench/baseline-server.ts). Load comes from
 * autocannon in this process, CONNECTIONS connections, pipelining 1.
 *
 *   1. CONTENTS active contents of every key through createContent (a
 *      developer's token: approved at once), each key's first one with a
 *      Base64 image, the others showing that stored image again;
 *   2. plain: `GET /<project>/CALL/ContentManager/getContents/default`,
 *      without signing in, every answer a 200 with the CONTENTS contents:
 *      `contents_per_s`, `contents_p99_ms`; against the bare handler's
 *      `GET /read/<key>` of a JSON value of the answer's size (one Redis GET),
 *      in alternating slices: `contents_vs_bare_ratio`;
 *   3. conditional: the same request with `If-None-Match: <its ETag>`, every
 *      answer a 304 without a body: `contents_304_per_s`, `contents_304_p99_ms`;
 *      against the bare handler reading a value of the tag's size:
 *      `contents_304_vs_bare_ratio`.
 *
 * The ratios cancel the machine's speed out (bench/README.md). Human-readable
 * figures go to stdout; the LAST stdout line is one JSON object.
 * Flags: --quick (short slices), --contents=N (default 200), --cpu-prof.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { TokenService } from '../runtime/auth/auth';
import { findFreePort } from '../runtime/redis/embedded-redis';
import {
  benchKeys,
  benchRedisUrl,
  buildService,
  call,
  type Child,
  deleteKeys,
  describe,
  fmt,
  log,
  type Measured,
  positiveIntFlag,
  projectKeyPatterns,
  round1,
  runBench,
  stamp,
  startNodeChild,
  summarise,
  tempDirs,
  tracked,
  treeCpuSeconds,
  waitReady,
} from './support';

// ---------------------------------------------------------------------------
// settings
// ---------------------------------------------------------------------------

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const CPU_PROF = argv.includes('--cpu-prof');
/** `--name=N` or `--name N` */
const flag = (name: string) => positiveIntFlag(argv, name);

const CONTENTS = flag('contents') ?? 200;
const S = QUICK ? { warmSeconds: 1, slices: 4, sliceSeconds: 1 } : { warmSeconds: 2, slices: 4, sliceSeconds: 3 };
const CONNECTIONS = 50;
const PROJECT_ID = 'benchcontent';
/** the service's key names (REDIS_BUCKETS buckets, 1 unless set) */
const KEYS = benchKeys(PROJECT_ID);
const BARE_PREFIX = 'bench:contentbase:';
const JWT_SECRET = 'bench-content-jwt-secret-0123456789-0123456789-01';
const PATH = `/${PROJECT_ID}/CALL/ContentManager/getContents/default`;

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** One content of each key in turn (i: its position), its image given as Base64 or as the URL stored before. */
function contentBody(i: number, image: string): Record<string, unknown> {
  const common = { id: `bench-${i}`, contentTitle: `Bench content ${i}`, order: i % 17 };
  const kinds: Record<string, unknown>[] = [
    { contentKey: 'login_login', contentGroupKey: 'login', fields: { backgroundImage: image } },
    {
      contentKey: 'onboarding_onboarding',
      contentGroupKey: 'onboarding',
      fields: {
        title: `Welcome ${i}`,
        description: `<p>Everything the programme offers, screen ${i}</p>`,
        image,
        gradientColor: '#1a2b3c',
      },
    },
    {
      contentKey: 'homepage_hero_banner',
      contentGroupKey: 'homepage',
      fields: { image, description: `Summer offers for members, banner ${i}` },
    },
    {
      contentKey: 'homepage_top_slider',
      contentGroupKey: 'homepage',
      fields: { image, actionUrl: `https://offers.example/top/${i}` },
    },
    {
      contentKey: 'homepage_bottom_slider',
      contentGroupKey: 'homepage',
      fields: { image, actionUrl: `memberapp://offers/${i}` },
    },
    {
      contentKey: 'homepage_section',
      contentGroupKey: 'homepage',
      fields: {
        entityType: 'offer',
        sortField: 'newest',
        filterOfferTypes: ['discount', 'voucher'],
        filterFeaturedOnly: i % 2 === 0,
        filterCreatedAtStart: '2030-01-01T00:00:00Z',
        filterCreatedAtEnd: '2030-12-31T00:00:00Z',
      },
    },
  ];
  return { ...common, ...kinds[i % kinds.length] };
}

/** what the load reads of createContent's answer: the status, and the URL an image was stored under */
interface CreatedContent {
  content?: { status: string; fields: { images: Record<string, string> } };
}

const imageKey: Record<string, string> = {
  login_login: 'backgroundImage',
  onboarding_onboarding: 'image',
  homepage_hero_banner: 'image',
  homepage_top_slider: 'image',
  homepage_bottom_slider: 'image',
};

// ---------------------------------------------------------------------------
// load
// ---------------------------------------------------------------------------

/**
 * One autocannon run of GET `path` counting the answers of status `ok` (a
 * 200, or a 304 for the conditional request): throughput over the time from
 * start to the last answer, exact percentiles of those answers' latencies,
 * the server's CPU per answer. Any other status is counted as non2xx.
 */
async function load(
  label: string,
  base: string,
  pathname: string,
  pid: number,
  seconds: number,
  ok: number,
  headers: Record<string, string> = {},
): Promise<Measured> {
  const cpu0 = treeCpuSeconds(pid);
  const started = performance.now();
  let last = started;
  const latencies: number[] = [];
  let others = 0;
  const instance = autocannon({
    url: base + pathname,
    connections: CONNECTIONS,
    pipelining: 1,
    timeout: 20,
    duration: seconds,
    headers,
  });
  (instance as unknown as NodeJS.EventEmitter).on(
    'response',
    (_client: unknown, status: number, _bytes: number, ms: number) => {
      last = performance.now();
      if (status === ok) latencies.push(ms);
      else others++;
    },
  );
  const r = await instance;
  return summarise(label, [
    {
      ok: latencies.length,
      non2xx: others,
      errors: r.errors,
      seconds: Math.max(1e-3, (last - started) / 1000),
      cpu: treeCpuSeconds(pid) - cpu0,
      latencies,
    },
  ]);
}

/** The service and the bare handler in alternating slices (S B B S S B …), the same connections and durations. */
async function alternate(
  service: () => Promise<Measured>,
  bare: () => Promise<Measured>,
): Promise<{ service: Measured; bare: Measured }> {
  const serviceSlices: Measured[] = [];
  const bareSlices: Measured[] = [];
  for (let k = 0; k < S.slices * 2; k++) {
    if ((k % 4 === 0 || k % 4 === 3) && serviceSlices.length < S.slices) serviceSlices.push(await service());
    else bareSlices.push(await bare());
  }
  return {
    service: summarise(serviceSlices[0].label, serviceSlices),
    bare: summarise(bareSlices[0].label, bareSlices),
  };
}

// ---------------------------------------------------------------------------
// the benchmark
// ---------------------------------------------------------------------------

async function main(): Promise<Record<string, unknown>> {
  const t0 = performance.now();
  log(
    `content benchmark (${QUICK ? 'quick' : 'full'}): ${os.cpus().length} CPUs, node ${process.version}; ${CONTENTS} active contents; ${CONNECTIONS} connections`,
  );
  let redis: Redis | undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'content-bench-data-'));
  tempDirs.add(dataDir);
  const profDir = CPU_PROF ? fs.mkdtempSync(path.join(os.tmpdir(), 'content-bench-prof-')) : undefined;
  let service: Child | undefined;
  let bare: Child | undefined;
  try {
    const redisUrl = await benchRedisUrl();
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
    const removed = await deleteKeys(redis, [...projectKeyPatterns(PROJECT_ID), `${BARE_PREFIX}*`]);
    if (removed) log(`  removed ${removed} keys left by an earlier run`);
    // a level-1 role for the developer who creates the contents (the snapshot RoleManager would write)
    await redis.set(
      KEYS.roles,
      JSON.stringify({
        version: 1,
        roles: [{ id: 'bench-super', name: 'bench-super', level: 1, permissions: {}, status: 'active' }],
      }),
    );
    // a developer's development token: every workflow rule approves a developer's change at once
    const devToken = new TokenService(JWT_SECRET).sign(
      { sub: 'bench-dev', identity: 'program_management_user', roles: ['bench-super'], developer: true },
      6 * 3600,
    );
    const DEV = { authorization: `Bearer ${devToken}` };

    const port = await findFreePort();
    log(`built the service (npm run build) in ${fmt(buildService(), 1)} s`);
    service = startNodeChild(
      'service',
      'dist/runtime/main.js',
      {
        PROJECT_ID,
        REDIS_URL: redisUrl,
        JWT_SECRET,
        LOG_LEVEL: 'warn',
        DATA_DIR: dataDir,
        PORT: String(port),
        ROLES: 'api,worker,projector',
      },
      profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [],
    );
    const BASE = `http://127.0.0.1:${port}`;
    const barePort = await findFreePort();
    bare = startNodeChild('baseline-server', 'bench/baseline-server.ts', {
      PORT: String(barePort),
      REDIS_URL: redisUrl,
      BASE_PREFIX: BARE_PREFIX,
    });
    const BARE = `http://127.0.0.1:${barePort}`;
    await waitReady(bare, `${BARE}/ready`);
    await waitReady(service, `${BASE}/ready`);
    log(`service ready: pid ${service.pid} ${stamp()}`);

    // --- 1. the contents ---------------------------------------------------
    const stored: Record<string, string> = {};
    const s0 = performance.now();
    for (let i = 0; i < CONTENTS; i++) {
      const body = contentBody(i, '');
      const key = body.contentKey as string;
      const field = imageKey[key];
      if (field) (body.fields as Record<string, unknown>)[field] = stored[key] ?? `data:image/png;base64,${PNG}`;
      const r = await call(BASE, 'POST', `/${PROJECT_ID}/CALL/ContentManager/createContent/default`, body, DEV);
      const created = r.body as CreatedContent | null;
      if (r.status !== 201 || created?.content?.status !== 'active')
        throw new Error(`createContent ${i}: ${r.status} ${JSON.stringify(r.body)}`);
      if (field && !stored[key]) stored[key] = created.content.fields.images[field];
    }
    log(`created ${CONTENTS} active contents in ${fmt((performance.now() - s0) / 1000, 1)} s ${stamp()}`);

    const probe = await fetch(BASE + PATH);
    const answer = await probe.text();
    const etag = probe.headers.get('etag');
    const shown = (JSON.parse(answer) as { contents: unknown[] }).contents.length;
    if (probe.status !== 200 || !etag || shown !== CONTENTS)
      throw new Error(`getContents answered ${probe.status}, tag ${etag}, ${shown} contents`);
    const conditional = await fetch(BASE + PATH, { headers: { 'if-none-match': etag } });
    if (conditional.status !== 304 || (await conditional.text()) !== '')
      throw new Error(`If-None-Match answered ${conditional.status}`);
    log(`getContents: ${shown} contents, ${answer.length} bytes, ETag ${etag}`);
    // the bare handler's values: the answer itself, and one of the tag's size
    await redis.set(`${BARE_PREFIX}contents`, answer);
    await redis.set(`${BARE_PREFIX}tag`, JSON.stringify({ etag }));

    // --- 2. plain ------------------------------------------------------------
    log(`\n== getContents, plain (no authentication) ${stamp()}`);
    const plain = (seconds: number) => load('getContents 200', BASE, PATH, service!.pid, seconds, 200);
    const barePlain = (seconds: number) => load('bare GET, same JSON', BARE, '/read/contents', bare!.pid, seconds, 200);
    await plain(S.warmSeconds);
    await barePlain(S.warmSeconds);
    const p = await alternate(
      () => plain(S.sliceSeconds),
      () => barePlain(S.sliceSeconds),
    );
    log(`  ${describe(p.service)}`);
    log(`  ${describe(p.bare)}`);
    const plainRatio = p.service.rps / p.bare.rps;
    log(
      `  ratio service/bare = ${fmt(plainRatio, 3)} by req/s (${S.slices} × ${S.sliceSeconds} s slices each, alternating)`,
    );

    // --- 3. conditional ------------------------------------------------------
    log(`\n== getContents, If-None-Match: its ETag ${stamp()}`);
    const cond = (seconds: number) =>
      load('getContents 304', BASE, PATH, service!.pid, seconds, 304, { 'if-none-match': etag });
    const bareSmall = (seconds: number) => load('bare GET, tag-sized JSON', BARE, '/read/tag', bare!.pid, seconds, 200);
    await cond(S.warmSeconds);
    await bareSmall(S.warmSeconds);
    const c = await alternate(
      () => cond(S.sliceSeconds),
      () => bareSmall(S.sliceSeconds),
    );
    log(`  ${describe(c.service)}`);
    log(`  ${describe(c.bare)}`);
    const condRatio = c.service.rps / c.bare.rps;
    log(`  ratio service/bare = ${fmt(condRatio, 3)} by req/s`);

    const failed =
      p.service.non2xx +
      p.service.errors +
      c.service.non2xx +
      c.service.errors +
      p.bare.non2xx +
      p.bare.errors +
      c.bare.non2xx +
      c.bare.errors;
    if (failed) log(`  !! ${failed} requests answered otherwise than expected (or failed)`);
    if (profDir) log(`cpu profile: ${profDir} (written when the service stops)`);
    return {
      contents_per_s: Math.round(p.service.rps),
      contents_p99_ms: round1(p.service.p99),
      contents_304_per_s: Math.round(c.service.rps),
      contents_304_p99_ms: round1(c.service.p99),
      contents_vs_bare_ratio: Math.round(plainRatio * 1000) / 1000,
      contents_304_vs_bare_ratio: Math.round(condRatio * 1000) / 1000,
      bare_per_s: Math.round(p.bare.rps),
      bare_small_per_s: Math.round(c.bare.rps),
      cpu_us_per_req: {
        contents: Math.round(p.service.cpuUsPerReq),
        contents_304: Math.round(c.service.cpuUsPerReq),
        bare: Math.round(p.bare.cpuUsPerReq),
        bare_small: Math.round(c.bare.cpuUsPerReq),
      },
      answer_bytes: answer.length,
      contents: CONTENTS,
      failed_requests: failed,
      quick: QUICK,
      settings: { connections: CONNECTIONS, slices: S.slices, slice_seconds: S.sliceSeconds, cpus: os.cpus().length },
    };
  } finally {
    await service?.stop();
    await bare?.stop();
    await redis?.quit().catch(() => undefined);
    await tracked.redis?.stop();
    log(`elapsed ${fmt((performance.now() - t0) / 1000, 1)} s`);
  }
}

runBench(main);
