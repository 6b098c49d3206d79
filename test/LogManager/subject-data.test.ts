/**
 * LogManager.exportSubjectData over real Redis and the real classes: the
 * audit entries real changes left about a member (created by a back-office
 * user, approved by another, changed) and a back-office user (what it did,
 * with a large value's LARGE_LOG file, more entries than one listing page),
 * as DataSubject asks for them; a company-scoped call sees its company's
 * entries only; nobody but DataSubject may call it.
 */
import type { SubjectData, SubjectType } from '../../classes/_platform/personal-data';
import { largeLogBlobName } from '../../classes/LogManager/log-entry';
import { SUBJECT_PAGE_SIZE } from '../../classes/LogManager/subject-data-rules';
import type { TestRuntime } from '../support/harness';
import {
  approveMemberCreation,
  backOfficeUser,
  createMemberForApproval,
  expectDataSubjectOnly,
  exportedBy,
  exportedWhen,
  seedProgramme,
  startSubjectRuntime,
  subjectCall,
} from '../support/subject-data';

let t: TestRuntime;
let p: string;
let maker: Record<string, string>;
let reviewer: Record<string, string>;
let busy: Record<string, string>;

/** exportSubjectData as DataSubject calls it (`tenant` for a company user's export) */
const exportOf = (type: SubjectType, id: string, tenant?: string) =>
  exportedBy(t, 'LogManager', { type, id }, { tenant });

/** the export once `until` holds of it (the listing is a projection: an entry arrives in it shortly after its change) */
const exportWhen = (type: SubjectType, id: string, until: (d: SubjectData) => boolean, what: string, tenant?: string) =>
  exportedWhen(t, 'LogManager', { type, id }, until, what, { tenant });

/** the export once it holds `n` records */
const exportWith = (type: SubjectType, id: string, n: number, tenant?: string) =>
  exportWhen(type, id, (d) => d.records.length >= n, `${n} audit entries`, tenant);

/** a member created in the back office by `headers` (it waits for an approver) */
const createMember = (company: string, headers = maker) =>
  createMemberForApproval(t, { name: 'Kim', surname: 'Lee', company: { id: company } }, headers);

beforeAll(async () => {
  // every class of the service, and Gizmo, whose changes carry values of any size
  t = await startSubjectRuntime({ CLASS_DIRS: 'classes,test/LogManager/fixtures' });
  p = `/${t.projectId}/CALL`;
  await seedProgramme(t);
  maker = backOfficeUser(t, 'pm-maker', ['super']);
  reviewer = backOfficeUser(t, 'pm-reviewer', ['super', 'approver']);
  busy = backOfficeUser(t, 'pm-busy', ['super']);
});
afterAll(() => t.stop());

describe('a member', () => {
  let member: { id: string; approvalId: string };

  beforeAll(async () => {
    member = await createMember('c-1');
    await approveMemberCreation(t, member, reviewer, maker);
    const changed = await t.post(`${p}/Member/updateMemberContact/${member.id}`, { phone: '+971500000099' }, maker);
    expect(changed.status).toBe(200);
  });

  test("its record's entries, each as stored in its instance, as the listing names them", async () => {
    const data = await exportWhen(
      'member',
      member.id,
      (d) => {
        const entries = d.records.map((r) => r.data as Record<string, any>);
        const byReviewer = entries.some((e) => e.actor.id === 'pm-reviewer');
        const phone = entries.some(
          (e) => e.actor.id === 'pm-maker' && e.fieldUpdates.some((u: any) => u.key === 'phone'),
        );
        return byReviewer && phone;
      },
      "the member's creation, approval and change",
    );
    // its creation (by the maker), the approved creation (by the reviewer), the change of its phone
    expect(data.records.length).toBeGreaterThanOrEqual(3);
    expect(data.files).toEqual([]);
    expect(data.related).toBeUndefined();
    expect(data.companyId).toBeUndefined();
    for (const record of data.records) {
      expect(record).toMatchObject({ store: 'audit', classId: 'LogManager', kind: 'logEntry' });
      const entry = record.data as Record<string, any>;
      expect(record.instanceId).toBe(entry.id);
      expect(entry).toMatchObject({ classId: 'Member', entityType: 'member', entityId: member.id, companyId: 'c-1' });
      // as its instance holds it, field for field
      expect(entry).toEqual((await t.rt.call('LogManager', 'readEntry', entry.id, {})).body);
    }
    // personal data is as masked in the export as in the log
    const phone = data.records
      .map((r) => r.data as Record<string, any>)
      .flatMap((e) => e.fieldUpdates)
      .find((u: any) => u.key === 'phone');
    expect(phone.newValue).toBe('"***"');
    // newest first, every entry of the member's record the listing has
    const stamps = data.records.map((r) => (r.data as Record<string, any>).timeStamp as string);
    expect([...stamps].sort().reverse()).toEqual(stamps);
    const listed = await t.get(
      `${p}/LogManager/getLogEntries?entityId=${member.id}&entityType=member&limit=100`,
      maker,
    );
    expect(data.records.map((r) => r.instanceId).sort()).toEqual(listed.body.entries.map((e: any) => e.id).sort());
  });

  test('the back-office users who created, approved and changed it find those entries in their own export', async () => {
    const ofMember = (d: SubjectData) =>
      d.records.filter((r) => (r.data as Record<string, any>).entityId === member.id).map((r) => r.instanceId);
    const all = (await exportOf('member', member.id)).records;
    const byReviewer = all.filter((r) => (r.data as Record<string, any>).actor.id === 'pm-reviewer');
    expect(byReviewer.length).toBeGreaterThan(0);
    expect(ofMember(await exportOf('program_management_user', 'pm-reviewer')).sort()).toEqual(
      byReviewer.map((r) => r.instanceId).sort(),
    );
    const byMaker = all.filter((r) => (r.data as Record<string, any>).actor.id === 'pm-maker');
    expect(ofMember(await exportOf('program_management_user', 'pm-maker')).sort()).toEqual(
      expect.arrayContaining(byMaker.map((r) => r.instanceId)),
    );
    // a member with the back-office user's id would be another subject: none of its entries
    expect(await exportOf('member', 'pm-reviewer')).toEqual({ records: [], files: [] });
  });
});

describe('a back-office user', () => {
  test('what it did, with the full value of a large field in the LARGE_LOG file', async () => {
    const big = 'x'.repeat(3000);
    const created = await t.post(`${p}/Gizmo/create/gz-large`, { label: 'big', notes: big }, busy);
    expect(created.status).toBe(200);
    const logId = created.body.logged.logId as string;
    const data = await exportWhen(
      'program_management_user',
      'pm-busy',
      (d) => d.records.some((r) => r.instanceId === logId),
      'the large entry',
    );
    const entry = data.records.find((r) => r.instanceId === logId)!.data as Record<string, any>;
    expect(entry).toMatchObject({
      classId: 'Gizmo',
      entityType: 'gizmo',
      entityId: 'gz-large',
      isLargeLog: true,
      actor: { id: 'pm-busy', type: 'program_management_user' },
    });
    // the entry keeps a preview, its file the whole value
    const notes = entry.fieldUpdates.find((u: any) => u.key === 'notes');
    expect(notes).toMatchObject({ isLarge: true });
    expect(notes.newValue.length).toBeLessThan(JSON.stringify(big).length);
    const file = data.files.find((f) => f.instanceId === logId)!;
    expect(file).toEqual({
      classId: 'LogManager',
      instanceId: logId,
      name: largeLogBlobName('gizmo', 'gz-large', logId),
      contentType: 'application/json',
      kind: 'largeLog',
      contentBase64: expect.any(String),
    });
    const content = JSON.parse(Buffer.from(file.contentBase64, 'base64').toString('utf8'));
    expect(content).toMatchObject({ logId, entityType: 'gizmo', entityId: 'gz-large' });
    expect(content.fieldUpdates).toContainEqual(
      expect.objectContaining({ key: 'notes', newValue: JSON.stringify(big) }),
    );
    expect(data.files.filter((f) => f.kind === 'largeLog')).toHaveLength(
      data.records.filter((r) => (r.data as Record<string, any>).isLargeLog).length,
    );
  });

  test('more entries than one listing page: every one, once', async () => {
    const n = SUBJECT_PAGE_SIZE + 7;
    const ids: string[] = [];
    for (let i = 0; i < n; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(10, n - i) }, (_, j) =>
          t.post(`${p}/Gizmo/create/gz-many-${i + j}`, { label: `g${i + j}` }, busy),
        ),
      );
      for (const r of batch) {
        expect(r.status).toBe(200);
        ids.push(r.body.logged.logId as string);
      }
    }
    const data = await exportWhen(
      'program_management_user',
      'pm-busy',
      (d) => {
        const got = new Set(d.records.map((r) => r.instanceId));
        return ids.every((id) => got.has(id));
      },
      `${n} entries`,
    );
    const exported = data.records.map((r) => r.instanceId);
    expect(new Set(exported).size).toBe(exported.length);
    // the large entry of the test before, and these
    expect(exported).toHaveLength(n + 1);
  });
});

describe('company scope and access', () => {
  test("a company user's export holds its company's entries only", async () => {
    const inC1 = await createMember('c-1', busy);
    const inC2 = await createMember('c-2', busy);
    const all = await exportWhen(
      'program_management_user',
      'pm-busy',
      (d) => {
        const entities = new Set(d.records.map((r) => (r.data as Record<string, any>).entityId));
        return entities.has(inC1.id) && entities.has(inC2.id);
      },
      'both members, unscoped',
    );
    const companyOf = (d: SubjectData) => d.records.map((r) => (r.data as Record<string, any>).companyId ?? null);
    expect(new Set(companyOf(all))).toEqual(new Set(['c-1', 'c-2', null]));

    const c1 = await exportWith('program_management_user', 'pm-busy', 1, 'c-1');
    expect(new Set(companyOf(c1))).toEqual(new Set(['c-1']));
    expect(c1.records.map((r) => r.instanceId).sort()).toEqual(
      all.records
        .filter((r) => (r.data as Record<string, any>).companyId === 'c-1')
        .map((r) => r.instanceId)
        .sort(),
    );
    // the Gizmo entries (no company) and their large values are internal
    expect(c1.files).toEqual([]);
    // a member of another company: nothing
    expect(await exportOf('member', inC2.id, 'c-1')).toEqual({ records: [], files: [] });
  });

  test('a subject nothing was logged about: empty lists', async () => {
    expect(await exportOf('partner_user', 'nobody')).toEqual({ records: [], files: [] });
    expect(await exportOf('member', 'nobody')).toEqual({ records: [], files: [] });
  });

  test('only DataSubject may call it: a back-office user (even level 1) and another class are refused', async () => {
    await expectDataSubjectOnly(
      t,
      'LogManager',
      'exportSubjectData',
      { subject: { type: 'member', id: 'nobody' } },
      {
        users: [backOfficeUser(t, 'pm-root', ['super'])],
        classes: ['Member'],
      },
    );
    // a subject type no class keeps data of
    await expect(
      subjectCall(t, 'LogManager', 'exportSubjectData', { subject: { type: 'company', id: 'c-1' } }),
    ).rejects.toMatchObject({ status: 400, code: 1002 });
  });
});
