/**
 * ApprovalManager.exportSubjectData over real Redis and the real classes: the
 * approval records real changes left about a member (its creation in the back
 * office, approved by a reviewer) and about back-office users (what they made
 * and reviewed, with a large change's blobs, more records than one listing
 * page), as DataSubject asks for them; a company-scoped call sees its
 * company's records only; nobody but DataSubject may call it.
 */
import type { SubjectData, SubjectType } from '../../classes/_platform/personal-data';
import { SUBJECT_PAGE_SIZE } from '../../classes/ApprovalManager/subject-data-rules';
import type { TestRuntime } from '../support/harness';
import {
  approveMemberCreation,
  APPROVER_ROLE,
  backOfficeUser,
  createMemberForApproval,
  expectClassOwn,
  expectDataSubjectOnly,
  exportedBy,
  exportedWhen,
  seedProgramme,
  startSubjectRuntime,
  storedState,
} from '../support/subject-data';
import { patchOfSize } from '../Workflow/support';

let t: TestRuntime;
let p: string;
let maker: Record<string, string>;
let reviewer: Record<string, string>;

/** exportSubjectData as DataSubject calls it (`tenant` for a company user's export) */
const exportOf = (type: SubjectType, id: string, tenant?: string) =>
  exportedBy(t, 'ApprovalManager', { type, id }, { tenant });

/** the export once `until` holds of it (the listing is a projection: a record arrives in it shortly after its change) */
const exportWhen = (type: SubjectType, id: string, until: (d: SubjectData) => boolean, what: string, tenant?: string) =>
  exportedWhen(t, 'ApprovalManager', { type, id }, until, what, { tenant });

/** the export once it holds every one of `ids` */
const exportHolding = (type: SubjectType, id: string, ids: readonly string[], tenant?: string) =>
  exportWhen(
    type,
    id,
    (data) => {
      const got = new Set(data.records.map((r) => r.instanceId));
      return ids.every((i) => got.has(i));
    },
    `approvals ${ids.join(', ')}`,
    tenant,
  );

/** the record as its instance stores it */
const stored = async (approvalId: string): Promise<Record<string, any>> =>
  (await storedState(t, 'ApprovalManager', approvalId)).public.approval;

const recordsOf = (d: SubjectData) => d.records.map((r) => r.data as Record<string, any>);

/** a member created in the back office by `headers`: it waits for an approver */
const createMember = (company: string, headers = maker) =>
  createMemberForApproval(t, { name: 'Kim', surname: 'Lee', company: { id: company } }, headers);

beforeAll(async () => {
  // every class of the service, and the Gadget fixture, whose changes may be of any size
  t = await startSubjectRuntime({
    CLASS_DIRS: 'classes,test/fixtures/classes',
    SCHEMA_DIRS: 'schemas,test/fixtures/schemas',
    WORKFLOW_CONFIG_DIR: 'workflow-configs,test/fixtures/workflow-configs',
  });
  p = `/${t.projectId}/CALL`;
  await seedProgramme(t, [APPROVER_ROLE, { ...APPROVER_ROLE, id: 'r-senior', name: 'senior' }]);
  maker = backOfficeUser(t, 'pm-maker', ['super']);
  reviewer = backOfficeUser(t, 'pm-reviewer', ['super', 'approver']);
});
afterAll(() => t.stop());

describe('a member and the users who made and reviewed its creation', () => {
  let member: { id: string; approvalId: string };

  beforeAll(async () => {
    member = await createMember('c-1');
    await approveMemberCreation(t, member, reviewer, maker);
  });

  test("the member's export holds its creation's record, as its instance stores it", async () => {
    const data = await exportWhen(
      'member',
      member.id,
      (d) => recordsOf(d).some((r) => r.id === member.approvalId && r.approvalStatus === 'approved'),
      'the reviewed record',
    );
    expect(data.files).toEqual([]);
    expect(data.records.map((r) => r.instanceId)).toEqual([member.approvalId]);
    const [record] = data.records;
    expect(record).toMatchObject({ store: 'approvals', classId: 'ApprovalManager', kind: 'approval' });
    expect(record.data).toEqual(await stored(member.approvalId));
    expect(record.data).toMatchObject({
      classId: 'Member',
      instanceId: member.id,
      entityId: member.id,
      companyId: 'c-1',
      actor: { id: 'pm-maker', type: 'program_management_user' },
      approvedBy: { id: 'pm-reviewer', type: 'program_management_user' },
    });
  });

  test('the maker and the reviewer each find it in their own export; a member with their id is another subject', async () => {
    expect(
      recordsOf(await exportHolding('program_management_user', 'pm-maker', [member.approvalId])).map((r) => r.id),
    ).toContain(member.approvalId);
    const byReviewer = await exportHolding('program_management_user', 'pm-reviewer', [member.approvalId]);
    expect(byReviewer.records.map((r) => r.instanceId)).toEqual([member.approvalId]);
    expect(await exportOf('member', 'pm-reviewer')).toEqual({ records: [], files: [] });
  });
});

describe("a large change's blobs", () => {
  test('a pending change over 10 KB: the record as stored (blob names, no inline patch) and both its blobs', async () => {
    const created = await t.post(`${p}/Gadget/init`, { name: 'big one', category: 'trusted', price: 10 }, maker);
    expect(created.status).toBe(200);
    const gadgetId = created.body.gadget.id as string;
    const autoId = created.body.approval.id as string;
    const [op] = patchOfSize(12 * 1024, 'y', '/payload');
    const payload = (op as { value: string }).value;
    // expensive: it waits for a senior
    const updated = await t.post(`${p}/Gadget/update/${gadgetId}`, { price: 5000, payload }, maker);
    expect(updated.status).toBe(200);
    const largeId = updated.body.pendingApprovalId as string;

    const data = await exportHolding('program_management_user', 'pm-maker', [autoId, largeId]);
    const large = data.records.find((r) => r.instanceId === largeId)!.data as Record<string, any>;
    expect(large).toEqual(await stored(largeId));
    expect(large).toMatchObject({
      classId: 'Gadget',
      isLargeApproval: true,
      jsonPatch: [],
      approvalStatus: 'pending',
      largePatchFile: expect.stringMatching(/^LARGE_APPROVAL_/),
      oldValuesFile: expect.stringMatching(/_OLD_VALUES\.json$/),
    });
    expect(large.companyId).toBeUndefined();
    // the automatic record of the gadget's creation names the maker too
    expect(data.records.find((r) => r.instanceId === autoId)!.data).toMatchObject({
      approvalType: 'auto',
      approvedBy: { id: 'auto_approve', type: 'system' },
    });

    const files = data.files.filter((f) => f.instanceId === largeId);
    expect(files.map((f) => f.name).sort()).toEqual([large.largePatchFile, large.oldValuesFile].sort());
    for (const f of files)
      expect(f).toMatchObject({ classId: 'ApprovalManager', kind: 'approvalBlob', contentType: 'application/json' });
    const patch = JSON.parse(
      Buffer.from(files.find((f) => f.name === large.largePatchFile)!.contentBase64, 'base64').toString('utf8'),
    );
    expect(patch).toContainEqual({ op: 'add', path: '/payload', value: payload });
    const oldValues = JSON.parse(
      Buffer.from(files.find((f) => f.name === large.oldValuesFile)!.contentBase64, 'base64').toString('utf8'),
    );
    expect(oldValues).toHaveLength(patch.length);
    // only large records have blobs
    expect(new Set(data.files.map((f) => f.instanceId))).toEqual(
      new Set(
        recordsOf(data)
          .filter((r) => r.isLargeApproval || r.oldValuesFile)
          .map((r) => r.id),
      ),
    );
  });
});

describe('paging, company scope and access', () => {
  test('more records than one listing page: every one, once', async () => {
    const busy = backOfficeUser(t, 'pm-busy', ['super']);
    const n = SUBJECT_PAGE_SIZE + 5;
    const ids: string[] = [];
    for (let i = 0; i < n; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(10, n - i) }, (_, j) =>
          t.post(`${p}/Gadget/init`, { name: `g${i + j}`, category: 'trusted', price: 1 }, busy),
        ),
      );
      for (const r of batch) {
        expect(r.status).toBe(200);
        ids.push(r.body.approval.id as string);
      }
    }
    const data = await exportHolding('program_management_user', 'pm-busy', ids);
    const exported = data.records.map((r) => r.instanceId);
    expect(exported.sort()).toEqual([...ids].sort());
  });

  test("a company user's export holds its company's records only", async () => {
    const inC1 = await createMember('c-1');
    const inC2 = await createMember('c-2');
    const all = await exportHolding('program_management_user', 'pm-maker', [inC1.approvalId, inC2.approvalId]);
    const companies = (d: SubjectData) => new Set(recordsOf(d).map((r) => r.companyId ?? null));
    expect(companies(all)).toEqual(new Set(['c-1', 'c-2', null]));

    const c1 = await exportHolding('program_management_user', 'pm-maker', [inC1.approvalId], 'c-1');
    expect(companies(c1)).toEqual(new Set(['c-1']));
    expect(c1.records.map((r) => r.instanceId).sort()).toEqual(
      recordsOf(all)
        .filter((r) => r.companyId === 'c-1')
        .map((r) => r.id as string)
        .sort(),
    );
    // the gadgets' records (no company) and their blobs are internal
    expect(c1.files).toEqual([]);
    expect(await exportOf('member', inC2.id, 'c-1')).toEqual({ records: [], files: [] });
    expect((await exportHolding('member', inC2.id, [inC2.approvalId], 'c-2')).records).toHaveLength(1);
  });

  test('a subject with nothing: empty lists', async () => {
    expect(await exportOf('partner_user', 'nobody')).toEqual({ records: [], files: [] });
    expect(await exportOf('member', 'nobody')).toEqual({ records: [], files: [] });
  });

  test('only DataSubject may call it (and only ApprovalManager reads a record as stored)', async () => {
    const root = backOfficeUser(t, 'pm-root', ['super']);
    await expectDataSubjectOnly(
      t,
      'ApprovalManager',
      'exportSubjectData',
      { subject: { type: 'member', id: 'nobody' } },
      {
        users: [root],
        classes: ['Member'],
      },
    );

    const some = (await exportOf('program_management_user', 'pm-maker')).records[0].instanceId;
    await expectClassOwn(t, 'ApprovalManager', 'readRecord', some, {}, { users: [root], classes: ['DataSubject'] });
  });
});
