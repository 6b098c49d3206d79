/**
 * ApprovalManager.eraseSubjectData over real Redis, real HTTP and the real
 * classes: the approval records real changes left about a member (its
 * creation in the back office, approved with a note; a contact change
 * approved at once; a status change still pending) and a change of it too
 * large to stay inline lose every personal value, in their instances, in the
 * `approvals` listing and in their blobs, while the fact of each change
 * stays and getApproval still answers; the back-office users who made and
 * reviewed them lose their names; a second call erases nothing; another
 * member's records are untouched; a company-scoped call reaches its
 * company's records only; nobody but DataSubject may call it.
 */
import { randomUUID } from 'node:crypto';
import { ERASED, type SubjectErasure, type SubjectType } from '../../classes/_platform/personal-data';
import { waitFor, type TestRuntime } from '../support/harness';
import {
  approveMemberCreation,
  asClass,
  backOfficeUser,
  createMemberForApproval,
  erasedBy,
  expectClassOwn,
  expectDataSubjectOnly,
  exportedBy,
  exportedWhen,
  holdsAny,
  seedProgramme,
  startSubjectRuntime,
  storedState,
} from '../support/subject-data';

/** the subject's values, each distinctive enough to be searched for anywhere */
const NAME = 'Zephyrine';
const SURNAME = 'Quillfeather';
const STAFF_ID = 'ZQ4471';
const REASON = 'Zephyrine moved abroad';
const NOTE = 'Checked the papers of Zephyrine';
const SUBJECT_VALUES = [NAME, SURNAME, STAFF_ID, 'abroad', 'papers', 'memoir'];
const MAKER_NAME = 'Maren Makerly';
const REVIEWER_NAME = 'Rhoswen Reviewer';

let t: TestRuntime;
let p: string;
let maker: Record<string, string>;
let reviewer: Record<string, string>;

const eraseOf = (type: SubjectType, id: string, erasureId: string, tenant?: string) =>
  erasedBy(t, 'ApprovalManager', { type, id }, erasureId, { tenant, subjectCompanyId: null });

const exportOf = (type: SubjectType, id: string) => exportedBy(t, 'ApprovalManager', { type, id });

/** the record as its instance stores it */
const stored = async (approvalId: string): Promise<Record<string, any>> =>
  (await storedState(t, 'ApprovalManager', approvalId)).public.approval;

/** the blobs a stored record keeps out of line */
async function blobsOf(record: Record<string, any>): Promise<string[]> {
  const names = [record.largePatchFile, record.oldValuesFile].filter((n): n is string => typeof n === 'string');
  return Promise.all(names.map(async (n) => (await t.rt.ports.blobs.get(n))!.data.toString('utf8')));
}

const createMember = (body: Record<string, unknown>, headers = maker) => createMemberForApproval(t, body, headers);

beforeAll(async () => {
  t = await startSubjectRuntime();
  p = `/${t.projectId}/CALL`;
  await seedProgramme(t);
  maker = backOfficeUser(t, 'pm-maker', ['super'], MAKER_NAME);
  reviewer = backOfficeUser(t, 'pm-reviewer', ['super', 'approver'], REVIEWER_NAME);
});
afterAll(() => t.stop());

describe('a member', () => {
  let subject: { id: string; approvalId: string };
  let other: { id: string; approvalId: string };
  let ids: string[];
  let before: Map<string, Record<string, any>>;
  let otherBefore: Record<string, any>;
  let pendingId: string;
  let largeId: string;
  let largeBlobsBefore: string[];
  let erased: SubjectErasure;

  beforeAll(async () => {
    subject = await createMember({ name: NAME, surname: SURNAME, staffId: STAFF_ID, company: { id: 'c-1' } });
    await approveMemberCreation(t, subject, reviewer, maker, NOTE);
    // applied at once: an automatic record
    expect(
      (await t.post(`${p}/Member/updateMemberContact/${subject.id}`, { phone: '+971500004471' }, maker)).status,
    ).toBe(200);
    // waits for an approver
    const status = await t.post(
      `${p}/Member/updateMemberStatus/${subject.id}`,
      { status: 'suspended', reason: REASON },
      maker,
    );
    pendingId = status.body.pendingApprovalId as string;
    expect(pendingId).toEqual(expect.any(String));
    // a change of the member over 10 KB, as Member's runWorkflow would commit it: its patch and old values go to blobs
    largeId = randomUUID();
    await t.rt.call(
      'ApprovalManager',
      'createApproval',
      largeId,
      {
        event: 'member_update',
        instanceId: subject.id,
        entityId: subject.id,
        jsonPatch: [{ op: 'replace', path: '/note', value: `${NAME} ${SURNAME} memoir `.repeat(500) }],
        oldValues: [{ value: `${SURNAME} old memoir `.repeat(50) }],
        actor: { id: 'pm-maker', type: 'program_management_user', name: MAKER_NAME },
        approvers: [],
        additionalData: { why: `asked by ${NAME}` },
        companyId: 'c-1',
      },
      asClass('Member'),
    );
    other = await createMember({ name: 'Bartholomew', surname: 'Otherwise', company: { id: 'c-2' } });

    const expected = [subject.approvalId, pendingId, largeId];
    const found = await exportedWhen(
      t,
      'ApprovalManager',
      { type: 'member', id: subject.id },
      (d) => {
        const got = d.records.map((r) => r.instanceId);
        // the creation, reviewed; the contact change; the status change; the large one
        return (
          got.length >= 4 &&
          expected.every((id) => got.includes(id)) &&
          d.records.some((r) => r.instanceId === subject.approvalId && (r.data as any).approvalStatus === 'approved')
        );
      },
      "the member's records",
    );
    ids = found.records.map((r) => r.instanceId);
    before = new Map(await Promise.all(ids.map(async (id) => [id, await stored(id)] as const)));
    otherBefore = await stored(other.approvalId);
    largeBlobsBefore = await blobsOf(before.get(largeId)!);
    expect(before.get(largeId)).toMatchObject({ isLargeApproval: true, jsonPatch: [] });
    expect(largeBlobsBefore).toHaveLength(2);
    expect(holdsAny([[...before.values()], largeBlobsBefore], SUBJECT_VALUES)).toEqual(SUBJECT_VALUES);
    expect(holdsAny(largeBlobsBefore, [NAME, SURNAME])).toEqual([NAME, SURNAME]);
    erased = await eraseOf('member', subject.id, 'erasure-m');
  });

  test('it answers how many records it anonymised; the blobs are rewritten, not deleted', () => {
    expect(erased).toEqual({ records: ids.length, files: 0 });
  });

  test('no value of the subject is left in the stored records; the fact of each change stays; each is marked', async () => {
    for (const id of ids) {
      const was = before.get(id)!;
      const now = await stored(id);
      expect([id, holdsAny(now, SUBJECT_VALUES)]).toEqual([id, []]);
      const { jsonPatch, oldValues, additionalData, reviewNote, erasedBy, erasedAt, ...rest } = now;
      const { jsonPatch: p0, oldValues: o0, additionalData: a0, reviewNote: n0, ...restBefore } = was;
      // status, event, class, entity, dates, approvers, callbacks, blob names, maker and reviewer (others): as before
      expect(rest).toEqual(restBefore);
      expect(jsonPatch.map((op: any) => [op.op, op.path])).toEqual(p0.map((op: any) => [op.op, op.path]));
      expect(oldValues?.length).toEqual(o0?.length);
      expect(Object.keys(additionalData)).toEqual(Object.keys(a0));
      expect(reviewNote).toBe(n0 === undefined ? undefined : ERASED);
      expect(erasedBy).toBe('erasure-m');
      expect(Date.parse(erasedAt)).not.toBeNaN();
    }
    expect((await stored(subject.approvalId)).reviewNote).toBe(ERASED);
  });

  test('a record still pending stays pending, anonymised', async () => {
    const pending = await stored(pendingId);
    expect(pending).toMatchObject({ approvalStatus: 'pending', event: 'member_status_update', erasedBy: 'erasure-m' });
    expect(holdsAny(pending, [REASON])).toEqual([]);
  });

  test("the large record's blobs keep their names and hold no value of the subject; getApproval reads them", async () => {
    const large = await stored(largeId);
    const blobs = await blobsOf(large);
    expect(blobs).toHaveLength(2);
    expect(holdsAny(blobs, SUBJECT_VALUES)).toEqual([]);
    expect(JSON.parse(blobs[0])).toEqual([{ op: 'replace', path: '/note', value: ERASED }]);
    expect(JSON.parse(blobs[1])).toEqual([{ value: ERASED }]);
    for (const id of ids) {
      const r = await t.get(`${p}/ApprovalManager/getApproval/${id}`, maker);
      expect([id, r.status]).toEqual([id, 200]);
      expect(holdsAny(r.body, SUBJECT_VALUES)).toEqual([]);
    }
    const view = await t.get(`${p}/ApprovalManager/getApproval/${largeId}`, maker);
    expect(view.body.changes).toEqual([{ op: 'replace', path: '/note', before: ERASED, after: ERASED }]);
    // the export reads them as before
    const exported = await exportOf('member', subject.id);
    expect(exported.files.map((f) => f.name).sort()).toEqual([large.largePatchFile, large.oldValuesFile].sort());
    expect(holdsAny(exported, SUBJECT_VALUES)).toEqual([]);
  });

  test('the listing is projected again without the values', async () => {
    await waitFor(
      async () => {
        const docs = await Promise.all(ids.map((id) => t.rt.documents.get('approvals', id)));
        return docs.every(
          (d) => d && (d as Record<string, any>).erasedBy === 'erasure-m' && !holdsAny(d, SUBJECT_VALUES).length,
        );
      },
      { what: 'the erased records projected again' },
    );
    const listed = await t.get(`${p}/ApprovalManager/listApprovals?entityId=${subject.id}&limit=100`, maker);
    expect(listed.body.approvals.length).toBeGreaterThanOrEqual(ids.length);
    expect(holdsAny(listed.body, SUBJECT_VALUES)).toEqual([]);
  });

  test('a second call erases nothing', async () => {
    expect(await eraseOf('member', subject.id, 'erasure-m')).toEqual({ records: 0, files: 0 });
    expect(await eraseOf('member', subject.id, 'erasure-again')).toEqual({ records: 0, files: 0 });
  });

  test("another member's record is untouched", async () => {
    expect(await stored(other.approvalId)).toEqual(otherBefore);
  });

  describe('the back-office users who made and reviewed the changes', () => {
    test("a company user's erasure takes the maker's name off its company's records only", async () => {
      expect(holdsAny(otherBefore, [MAKER_NAME])).toEqual([MAKER_NAME]);
      const inC1 = await eraseOf('program_management_user', 'pm-maker', 'erasure-u', 'c-1');
      expect(inC1.records).toBeGreaterThanOrEqual(ids.length);
      for (const id of ids) expect([id, holdsAny(await stored(id), [MAKER_NAME])]).toEqual([id, []]);
      for (const id of ids) expect((await stored(id)).actor).toMatchObject({ id: 'pm-maker', name: ERASED });
      // the other member is in c-2: beyond a c-1 erasure, of the maker or of the member
      expect(await stored(other.approvalId)).toEqual(otherBefore);
      expect(await eraseOf('member', other.id, 'erasure-x', 'c-1')).toEqual({ records: 0, files: 0 });
      expect(await stored(other.approvalId)).toEqual(otherBefore);
    });

    test('an unscoped erasure takes the name off the rest, in the actor and where the patch copies it (createdBy)', async () => {
      const rest = await eraseOf('program_management_user', 'pm-maker', 'erasure-u');
      expect(rest).toEqual({ records: 1, files: 0 });
      const now = await stored(other.approvalId);
      expect(holdsAny(now, [MAKER_NAME, 'Bartholomew', 'Otherwise'])).toEqual(['Bartholomew', 'Otherwise']);
      expect(now.actor).toEqual({ ...otherBefore.actor, name: ERASED });
      expect(now.erasedBy).toBeUndefined();
      expect(now.jsonPatch.map((op: any) => [op.op, op.path])).toEqual(
        otherBefore.jsonPatch.map((op: any) => [op.op, op.path]),
      );
      expect(await eraseOf('program_management_user', 'pm-maker', 'erasure-u')).toEqual({ records: 0, files: 0 });
    });

    test("the reviewer's erasure takes its name off what it reviewed (id, type, roles stay)", async () => {
      const was = (await stored(subject.approvalId)).approvedBy;
      expect(was).toMatchObject({ id: 'pm-reviewer', name: REVIEWER_NAME });
      expect(await eraseOf('program_management_user', 'pm-reviewer', 'erasure-r')).toEqual({ records: 1, files: 0 });
      expect((await stored(subject.approvalId)).approvedBy).toEqual({ ...was, name: ERASED });
      expect(await eraseOf('program_management_user', 'pm-reviewer', 'erasure-r')).toEqual({ records: 0, files: 0 });
    });
  });
});

describe('access', () => {
  test('only DataSubject may call it: a back-office user (even level 1) and another class are refused', async () => {
    const body = { subject: { type: 'member', id: 'nobody' }, erasureId: 'e' };
    await expectDataSubjectOnly(t, 'ApprovalManager', 'eraseSubjectData', body, {
      users: [backOfficeUser(t, 'pm-root', ['super'])],
      classes: ['Member'],
    });
    // a record's own write is ApprovalManager's
    const some = (await t.rt.documents.find('approvals', {}, { sort: { createdAt: -1, _id: -1 }, limit: 1 })).items[0];
    await expectClassOwn(t, 'ApprovalManager', 'eraseRecord', String(some._id), body, { classes: ['DataSubject'] });
    expect(await eraseOf('partner_user', 'nobody', 'e')).toEqual({ records: 0, files: 0 });
  });
});
