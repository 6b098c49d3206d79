/**
 * Erasure end to end, over HTTP against every real class: a member seeded
 * through every path that stores personal data (the migration import with a
 * dependant, HR pushes, an ID photo approved by a second person, a document,
 * a notification by mail and in the app, a gated change, an OTP, an answer
 * kept for an idempotency key) is erased through a four-eyes approval. Then
 * every store is searched for the member's values: every Redis key and value
 * of the project, every listed document, every file under the data directory
 * (file store, mails). None is left, and the process's log never held one.
 * Then what the HR system pushing the same employee again does.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { importActorName } from '../../classes/_platform/import/import.cli';
import { loadMapping } from '../../classes/_platform/import/mapping';
import { runImport } from '../../classes/_platform/import/run';
import { SHEETS } from '../../classes/_platform/import/sheets';
import { projectRoot } from '../../runtime/config';
import { seedRoles, startTestRuntime, waitFor, type TestRuntime } from '../support/harness';
import { findLogs } from '../support/logs';
import { seedExample } from '../support/seed-example';
import { capturedLogger } from '../support/log-lines';
import { API_KEY, IMAGES } from '../Member/support';

const root = projectRoot();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'erasure-'));
const HEADER = fs.readFileSync(path.join(root, 'examples/import/members.csv'), 'utf8').split('\n')[0]!;
const COLUMNS = HEADER.split(',');

let t: TestRuntime;
let p: string;
const token = (sub: string, roles: string[], claims: Record<string, unknown> = {}) => ({
  authorization: `Bearer ${t.rt.tokens.sign({ sub, identity: 'program_management_user', roles, ...claims })}`,
});
let maker: Record<string, string>;
let checker: Record<string, string>;

/** A person whose every value is distinctive, so that a search finds only their traces. */
const person = {
  employeeId: 'E77031',
  email: 'zenobia.quillfeather@acme.example',
  name: 'Zenobia',
  surname: 'Quillfeather',
  phone: '+971509990001',
  newPhone: '+971509990002',
  birthdate: '1987-03-19',
  address: '7 Juniper Lane, Dubai',
  newAddress: '9 Wisteria Walk, Dubai',
  dependantId: 'D-77032',
  dependantName: 'Ximenaria',
  dependantEmail: 'ximenaria.quillfeather@acme.example',
};
const NEEDLES = [
  person.employeeId,
  person.email,
  person.name,
  person.surname,
  person.phone.slice(1),
  person.newPhone.slice(1),
  person.birthdate,
  'Juniper Lane',
  'Wisteria Walk',
  // not the dependant id: HR's dependant id is the dependant's member id, which stays as the tombstone's id (as
  // an employee's member id does)
  person.dependantName,
  person.dependantEmail,
];

function row(cells: Record<string, string>): string {
  return COLUMNS.map((c) => {
    const v = cells[c] ?? '';
    return /[",]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
  }).join(',');
}

async function importPerson(): Promise<void> {
  const file = path.join(tmp, 'members.csv');
  const common = { membershipStatus: 'active', membershipStart: '2026-02-01', primaryMemberType: 'Regular' };
  fs.writeFileSync(
    file,
    `${[
      HEADER,
      row({
        ...common,
        employeeId: person.employeeId,
        email: person.email,
        name: person.name,
        surname: person.surname,
        phone: person.phone,
        grade: 'G5',
        employmentType: 'Permanent',
        companyId: 'ACME',
        birthdate: person.birthdate,
        addressCountry: 'AE',
        address: person.address,
        membershipEnd: '2027-01-31',
        membershipPaymentType: 'DDS',
        membershipPaymentPeriod: 'monthly',
      }),
      row({
        ...common,
        employeeId: person.employeeId,
        dependantId: person.dependantId,
        email: person.dependantEmail,
        name: person.dependantName,
        surname: person.surname,
        employmentType: 'Dependant',
        birthdate: '2015-06-01',
        dependantType: 'spouse',
        membershipPaymentType: 'Company Paid',
      }),
    ].join('\n')}\n`,
  );
  const identity = { type: 'system' as const, userId: 'import', claims: { name: importActorName('members', file) } };
  const summary = await runImport(SHEETS.members!, file, (c, m, i, b) => t.rt.call(c, m, i, b, { identity }), {
    errorsFile: path.join(tmp, 'members.errors.csv'),
    mapping: loadMapping(path.join(root, 'examples/import/mapping.json')),
  });
  expect(summary).toMatchObject({ created: 2, failed: 0 });
}

/** the member's full HR record (4.2), with the changed phone and address */
function hrRecord() {
  return {
    employeeId: person.employeeId,
    name: person.name,
    middleName: null,
    surname: person.surname,
    email: person.email,
    phone: person.newPhone,
    grade: 'G5',
    employmentType: 'Permanent',
    status: 'active',
    address: { country: 'AE', address: person.newAddress },
    birthdate: person.birthdate,
    gender: 'F',
    maritalStatus: 'single',
    coreGrade: 'C1',
    dependantsExists: 'Y',
    oldStaffId: null,
    lastDayOfService: null,
    leavingReason: null,
    companyId: 'BG-100',
  };
}

async function review(approvalId: string) {
  const r = await t.post(`${p}/ApprovalManager/reviewApproval/${approvalId}`, { action: 'approve' }, checker);
  expect([r.status, r.body]).toMatchObject([200, {}]);
}

/** Every path that stores the member's values. */
async function seedEverywhere(memberId: string): Promise<void> {
  // the HR system: a newer record (4.2), which the ledger and journal keep a line of
  const pushed = await t.post('/members/hr/employee', hrRecord(), API_KEY);
  expect(pushed.status).toBe(200);
  // an ID photo, approved by a second person
  const photo = await t.post(
    `${p}/Member/uploadMemberIdPhoto/${memberId}`,
    { photo: IMAGES.png, fileExtension: 'png' },
    maker,
  );
  expect(photo.status).toBeLessThan(300);
  if (photo.body.pendingApprovalId ?? photo.body.approval?.id)
    await review(photo.body.pendingApprovalId ?? photo.body.approval.id);
  // a document
  const doc = await t.post(
    `${p}/Member/uploadDocument/${memberId}`,
    { content: IMAGES.png, mimeType: 'image/png', originalFilename: 'passport.png', label: 'Passport' },
    maker,
  );
  expect(doc.status).toBeLessThan(300);
  // a notification by mail and in the app, naming the member
  const sent = await t.rt.call('NotificationManager', 'sendNotification', 'MEMBER_WELCOME', {
    to: [person.email, `M${memberId}`],
    parameters: { name: `${person.name} ${person.surname}`, loginUrl: 'https://app.example/login' },
  });
  expect(sent.status).toBeLessThan(300);
  // a change that waits for an approval (the patch and old values hold the member's data), kept for an idempotency key
  const gated = await fetch(`${t.base}${p}/Member/updateMemberStatus/${memberId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'erasure-test-1', ...maker },
    body: JSON.stringify({ status: 'suspended', reason: 'checking the erasure' }),
  });
  expect(gated.status).toBe(200);
  // an OTP record naming the member
  const otp = await t.rt.call('Otp', 'issueOtp', `Member_${memberId}`, {
    otpType: 'login',
    tokenType: 'numeric',
    requestedBy: person.email,
    requesterDetails: { identity: person.email, userAgent: 'test', ipAddress: '127.0.0.1' },
  });
  expect(otp.status).toBeLessThan(300);
  await waitFor(async () => fs.existsSync(path.join(dataDir(), 'mail')) && findIn(dataDir()).length > 0, {
    what: 'the welcome mail written',
  });
}

function dataDir(): string {
  return t.rt.config.dataDir;
}

/** the files under `dir` holding one of the needles, with the needle */
function findIn(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? (entry as { path: string }).path, entry.name);
    const text = fs.readFileSync(file).toString('utf8');
    const hit = NEEDLES.find((n) => text.includes(n));
    if (hit) out.push(`${path.relative(dir, file)}: ${hit}`);
  }
  return out;
}

/** every Redis key of the project (on every master) holding one of the needles, in its name or value */
async function findInRedis(): Promise<string[]> {
  const redis: any = t.rt.redis;
  const nodes = 'nodes' in redis && typeof redis.nodes === 'function' ? redis.nodes('master') : [redis];
  const out: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `*${t.projectId}*`, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const text = await valueText(node, key);
        const hit = NEEDLES.find((n) => key.includes(n) || text.includes(n));
        if (hit) out.push(`${key}: ${hit}`);
      }
    } while (cursor !== '0');
  }
  return out;
}

async function valueText(node: any, key: string): Promise<string> {
  switch (await node.type(key)) {
    case 'string':
      return (await node.getBuffer(key)).toString('utf8');
    case 'hash':
      return JSON.stringify(await node.hgetall(key));
    case 'list':
      return JSON.stringify(await node.lrange(key, 0, -1));
    case 'set':
      return JSON.stringify(await node.smembers(key));
    case 'zset':
      return JSON.stringify(await node.zrange(key, 0, -1));
    case 'stream':
      return JSON.stringify(await node.xrange(key, '-', '+'));
    default:
      return '';
  }
}

/** every listed document holding one of the needles */
async function findInDocuments(): Promise<string[]> {
  const out: string[] = [];
  for (const collection of t.rt.registry.collectionNames()) {
    const { items } = await t.rt.documents.find(collection, {}, { limit: 100_000 });
    for (const doc of items) {
      const text = JSON.stringify(doc);
      const hit = NEEDLES.find((n) => text.includes(n));
      if (hit) out.push(`${collection}/${String(doc._id)}: ${hit}`);
    }
  }
  return out;
}

/** every line the runtime logs, at debug level */
const logged = capturedLogger('debug');

beforeAll(async () => {
  t = await startTestRuntime({ env: { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas' }, logger: logged.logger });
  await seedExample(t);
  p = `/${t.projectId}/CALL`;
  await seedRoles(t, [
    { id: 'r-approver', name: 'approver', level: 10, permissions: { ApprovalManager: ['getApproval'] } },
  ]);
  maker = token('pm-maker', ['super']);
  checker = token('pm-checker', ['approver']);
  await importPerson();
});
afterAll(async () => {
  await t?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('a member seeded through every path is erased after a second person approves, and no store holds a value of theirs', async () => {
  const memberId = (await t.rt.store.resolveLookup('Member', 'staffId', person.employeeId))!;
  expect(memberId).toBeDefined();
  await seedEverywhere(memberId);
  // the values are there before: the search finds them in each store
  await waitFor(async () => (await findInDocuments()).length > 0, { what: 'the member listed' });
  expect((await findInRedis()).length).toBeGreaterThan(0);
  expect(findIn(dataDir()).length).toBeGreaterThan(0);

  const requested = await t.post(
    `${p}/DataSubject/requestErasure`,
    { subjectType: 'member', subjectId: memberId, includeDependants: true, reason: 'DP-1 erasure request' },
    maker,
  );
  expect(requested.status).toBe(201);
  const { erasure, approval } = requested.body;
  expect(erasure).toMatchObject({
    status: 'requested',
    subjects: [{ type: 'member', id: memberId }, { type: 'member' }],
  });
  expect(erasure.subjects).toHaveLength(2);
  // the maker cannot approve it: four eyes
  const self = await t.post(`${p}/ApprovalManager/reviewApproval/${approval.id}`, { action: 'approve' }, maker);
  expect(self.status).toBe(403);
  await review(approval.id);
  const done = await waitFor(
    async () => {
      const r = await t.post(`${p}/DataSubject/getErasure/${erasure.id}`, {}, maker);
      return r.body.erasure?.status === 'erased' ? r.body.erasure : null;
    },
    { what: 'the erasure done', timeoutMs: 60_000 },
  );
  expect(done).toMatchObject({ reviewedBy: { id: 'pm-checker' }, erasedAt: expect.any(String) });
  expect(done.erased.find((c: { classId: string }) => c.classId === 'FileManager').files).toBeGreaterThan(0);

  // the listings are re-projected from the erased states
  await waitFor(async () => (await findInDocuments()).length === 0, {
    what: 'no listed document holding a value',
    timeoutMs: 30_000,
  }).catch(() => undefined);
  expect(await findInDocuments()).toEqual([]);
  expect(await findInRedis()).toEqual([]);
  expect(findIn(dataDir())).toEqual([]);
  // the process's log never held a value: personal fields are masked wherever they are logged
  const lines = logged.lines.map((l) => JSON.stringify(l));
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.filter((l) => NEEDLES.some((n) => l.includes(n)))).toEqual([]);

  // the runtime's own records held some of the values (the HR journal, the kept answer, the mail): forgotten
  expect(done.traces).toBeGreaterThan(0);
  // the fact stays: the member, its audit entries and approvals are there, without the values
  const state = JSON.parse((await t.rt.store.read('Member', memberId))!.stateJson);
  expect(state.private.profile.id).toBe(memberId);
  const entries = (await findLogs(t, { entityId: memberId })).items;
  expect(entries.length).toBeGreaterThan(0);
  expect(JSON.stringify(entries)).toContain('[erased]');
  const approvals = await t.rt.documents.find('approvals', { instanceId: memberId });
  expect(approvals.total).toBeGreaterThan(0);
  // the HR system sending the employee again finds no such employee (4.2 never creates one)
  const again = await t.post('/members/hr/employee', hrRecord(), API_KEY);
  expect([again.status, again.body.error?.code]).toEqual([404, 10073]);
  // the lookups are released: the email and staff id name nobody
  expect(await t.rt.store.resolveLookup('Member', 'email', person.email)).toBeUndefined();
  expect(await t.rt.store.resolveLookup('Member', 'staffId', person.employeeId)).toBeUndefined();
});
