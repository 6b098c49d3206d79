/**
 * Idempotency keys on a real service process over real HTTP:
 * the service's own classes (CLASS_DIRS classes), the example program of
 * examples/seed.json, an integration API key from INTEGRATION_API_KEYS, and
 * the HR endpoint of spec 4.2 (`POST /members/hr/employee`, a route alias of
 * Member.hrUpdateEmployee). Duplicated requests with one Idempotency-Key
 * change the member once; the repeats replay the first answer
 * (`Idempotent-Replayed: true`); the key with another body answers 422; a
 * repeat while the first still runs answers 409.
 *
 * An in-process runtime on the same project seeds the program (as
 * openapi-answers.test.ts does) and reads the member's state and the Redis
 * keys; every call under test goes to the spawned process.
 */
import * as path from 'node:path';
import { projectRoot } from '../../runtime/config';
import { startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { uniqueProjectId } from '../support/redis';
import { EXAMPLE_SEED, exampleEmployee as employee, seedExample } from '../support/seed-example';

const ROOT = projectRoot();
const MEMBER_ID = EXAMPLE_SEED.members![0]!.id as string;
const ENV = { CLASS_DIRS: path.join(ROOT, 'classes'), SCHEMA_DIRS: 'schemas' };
const projectId = uniqueProjectId('idp');

let t: TestRuntime;
let svc: RuntimeProcess;

beforeAll(async () => {
  t = await startTestRuntime({ projectId, env: ENV });
  await seedExample(t);
  svc = await spawnRuntime(projectId, ENV);
}, 90_000);
afterAll(async () => {
  await svc?.stop();
  await t?.stop();
});

interface Answer {
  status: number;
  replayed: boolean;
  body: any;
}

async function hrEmployee(body: unknown, key: string): Promise<Answer> {
  const res = await fetch(`${svc.base}/members/hr/employee`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY, 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    replayed: res.headers.get('idempotent-replayed') === 'true',
    body: text ? JSON.parse(text) : null,
  };
}

/** the member's stored version and grade (read from Redis by the in-process runtime) */
async function member(): Promise<{ version: number; grade: unknown }> {
  const stored = await t.rt.store.read('Member', MEMBER_ID);
  // wherever the class keeps it
  const grade = /"grade":("(?:[^"\\]|\\.)*"|null)/.exec(stored!.stateJson)?.[1];
  return { version: stored!.version, grade: grade === undefined ? undefined : JSON.parse(grade) };
}

/** the refusals in the endpoint's own envelope (spec 7.2), with their status and message: spec 7.2 has no code for them */
const IN_PROGRESS = {
  success: false,
  error: { code: 10000, message: expect.stringContaining('Idempotency-Key is still running') },
};
const REUSED = {
  success: false,
  error: { code: 10000, message: expect.stringContaining('Idempotency-Key was used with another request') },
};

/** the project's stored Idempotency-Key entries (this project is the test's own) */
const storedKeys = () => t.rt.redis.keys(`rt:${projectId}:idem:*`);

test('1,000 concurrent duplicates to the HR endpoint: the member changes once, every other answer is the first one replayed or 409; the key with another body answers 422', async () => {
  const before = await member();
  expect(before.grade).not.toBe('G9');
  const key = `hr-grade-${Date.now()}`;
  const body = employee('G9');
  const answers = await Promise.all(Array.from({ length: 1000 }, () => hrEmployee(body, key)));

  const ran = answers.filter((a) => a.status === 200 && !a.replayed);
  expect(ran).toHaveLength(1);
  expect(ran[0]!.body).toMatchObject({ success: true, body: { memberId: MEMBER_ID } });
  const others = answers.filter((a) => a !== ran[0]);
  const replayed = others.filter((a) => a.replayed);
  const inProgress = others.filter((a) => a.status === 409);
  // each is one or the other: a replay of the very answer, or 409 while the first ran
  expect(replayed.length + inProgress.length).toBe(999);
  for (const a of replayed) expect({ status: a.status, body: a.body }).toEqual({ status: 200, body: ran[0]!.body });
  for (const a of inProgress)
    expect({ replayed: a.replayed, body: a.body }).toEqual({ replayed: false, body: IN_PROGRESS });
  // applied once: one change of the member
  expect(await member()).toEqual({ version: before.version + 1, grade: 'G9' });

  // after it: a repeat replays, however often
  const again = await hrEmployee(body, key);
  expect(again).toEqual({ status: 200, replayed: true, body: ran[0]!.body });
  // the same key with another body: 422, and nothing runs
  const other = await hrEmployee(employee('G10'), key);
  expect(other).toEqual({ status: 422, replayed: false, body: REUSED });
  expect(await member()).toEqual({ version: before.version + 1, grade: 'G9' });
}, 60_000);

test('a repeat while the first request still runs answers 409; once it answered, the repeat replays it', async () => {
  const before = await member();
  const key = `hr-running-${Date.now()}`;
  const body = employee('G11');
  // the member's lease held from outside: the first request waits for the instance, its key claimed
  const lease = t.rt.store.keys.lease('Member', MEMBER_ID);
  await t.rt.redis.set(lease, 'held-by-test', 'PX', 20_000);
  let first: Promise<Answer> | undefined;
  try {
    const keysBefore = (await storedKeys()).length;
    first = hrEmployee(body, key);
    await waitFor(async () => (await storedKeys()).length > keysBefore, { what: 'the first request to claim its key' });
    const duplicate = await hrEmployee(body, key);
    expect(duplicate).toEqual({ status: 409, replayed: false, body: IN_PROGRESS });
    expect((await member()).version).toBe(before.version);
  } finally {
    await t.rt.redis.del(lease);
  }
  const answered = await first!;
  expect(answered).toMatchObject({ status: 200, replayed: false, body: { success: true } });
  expect(await hrEmployee(body, key)).toEqual({ status: 200, replayed: true, body: answered.body });
  expect(await member()).toEqual({ version: before.version + 1, grade: 'G11' });
}, 60_000);
