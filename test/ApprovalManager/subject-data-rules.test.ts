/** ApprovalManager's pure rules of a data subject's export (classes/ApprovalManager/subject-data-rules.ts). */
import { EmbeddedDocumentStore } from '../../runtime/stream/embedded-document-store';
import { collectionIndexes } from '../../runtime/stream/listing';
import type { Subject } from '../../classes/_platform/personal-data';
import { largeApprovalFileName, LIST_APPROVALS } from '../../classes/ApprovalManager/rules';
import {
  afterRecord,
  approvalBlobFile,
  approvalRecord,
  LIST_SUBJECT_APPROVALS,
  newestFirst,
  recordBlobNames,
  recordNamesSubject,
  subjectApprovalFilters,
} from '../../classes/ApprovalManager/subject-data-rules';
import type { ApprovalRecord } from '../../classes/ApprovalManager/types';

const member: Subject = { type: 'member', id: 'm-1' };
const user: Subject = { type: 'program_management_user', id: 'u-1' };
const partnerUser: Subject = { type: 'partner_user', id: 'p-1' };

function record(over: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return {
    id: 'a-1',
    event: 'member_create',
    classId: 'Member',
    instanceId: 'm-1',
    entityId: 'm-1',
    approvalStatus: 'pending',
    entityOldStatus: null,
    entityNewStatus: 'active',
    approvalType: 'manual',
    jsonPatch: [{ op: 'replace', path: '/status', value: 'active' }],
    isLargeApproval: false,
    actor: { id: 'u-9', type: 'program_management_user' },
    approvers: ['approver'],
    additionalData: {},
    companyId: 'c-1',
    createdAt: '2024-05-01T10:00:00.000Z',
    updatedAt: '2024-05-01T10:00:00.000Z',
    ...over,
  };
}

describe('which records name the subject', () => {
  test('a member: changes of its instance (its record, its memberships) and changes it made or reviewed as a member', () => {
    expect(subjectApprovalFilters(member)).toEqual([
      { instanceId: 'm-1', classId: 'Member' },
      { 'actor.id': 'm-1', 'actor.type': { $in: ['member'] } },
      { 'approvedBy.id': 'm-1', 'approvedBy.type': { $in: ['member'] } },
    ]);
    expect(recordNamesSubject(record(), member)).toBe(true);
    // a membership's change: the membership is the entity, the member the instance
    expect(recordNamesSubject(record({ entityId: 'ms-1', event: 'membership_suspend' }), member)).toBe(true);
    expect(recordNamesSubject(record({ instanceId: 'x', actor: { id: 'm-1', type: 'member' } }), member)).toBe(true);
    // another class's instance with the member's id, and a user sharing it
    expect(recordNamesSubject(record({ classId: 'Company' }), member)).toBe(false);
    expect(
      recordNamesSubject(record({ instanceId: 'x', actor: { id: 'm-1', type: 'program_management_user' } }), member),
    ).toBe(false);
  });

  test('a back-office user: its own record, and what it made or reviewed as a user or a developer', () => {
    expect(subjectApprovalFilters(user)).toEqual([
      { instanceId: 'u-1', classId: 'ProgramManagementUser' },
      { 'actor.id': 'u-1', 'actor.type': { $in: ['program_management_user', 'developer'] } },
      { 'approvedBy.id': 'u-1', 'approvedBy.type': { $in: ['program_management_user', 'developer'] } },
    ]);
    expect(recordNamesSubject(record({ classId: 'ProgramManagementUser', instanceId: 'u-1' }), user)).toBe(true);
    expect(recordNamesSubject(record({ actor: { id: 'u-1', type: 'developer' } }), user)).toBe(true);
    expect(
      recordNamesSubject(
        record({ approvedBy: { id: 'u-1', type: 'program_management_user', roles: ['approver'] } }),
        user,
      ),
    ).toBe(true);
    expect(recordNamesSubject(record(), user)).toBe(false);
    // the automatic approver is nobody
    expect(
      recordNamesSubject(record({ approvedBy: { id: 'auto_approve', type: 'system' } }), {
        ...user,
        id: 'auto_approve',
      }),
    ).toBe(false);
  });

  test('a partner user: its own record only (partner users do not sign in)', () => {
    expect(subjectApprovalFilters(partnerUser)).toEqual([{ instanceId: 'p-1', classId: 'PartnerUser' }]);
    expect(recordNamesSubject(record({ classId: 'PartnerUser', instanceId: 'p-1' }), partnerUser)).toBe(true);
    expect(recordNamesSubject(record({ actor: { id: 'p-1', type: 'system' } }), partnerUser)).toBe(false);
  });
});

describe('the walk through the approvals listing', () => {
  test("in listApprovals's order, off an index for each filter (instance, maker, reviewer)", () => {
    expect(LIST_SUBJECT_APPROVALS.sort).toEqual(LIST_APPROVALS.sort);
    const keys = collectionIndexes('approvals', {
      tenantField: 'companyId',
      listings: [LIST_APPROVALS, LIST_SUBJECT_APPROVALS],
    }).map((i) => i.keys);
    for (const field of ['instanceId', 'actor.id', 'approvedBy.id'])
      expect(keys).toContainEqual({ [field]: 1, createdAt: -1, _id: -1 });
  });

  test('page after page from the last record seen: every record once, ties on createdAt too', async () => {
    const store = new EmbeddedDocumentStore();
    let v = 0;
    const put = (id: string, createdAt: string, instanceId = 'm-1') =>
      store.upsertIfNewer('approvals', {
        _id: id,
        _v: ++v,
        _instance: id,
        _class: 'ApprovalManager',
        id,
        createdAt,
        instanceId,
        classId: 'Member',
      });
    for (let i = 0; i < 23; i++) await put(`a${String(i).padStart(2, '0')}`, `2024-05-01T10:00:0${i % 3}.000Z`);
    for (let i = 0; i < 4; i++) await put(`other${i}`, '2024-05-01T10:00:01.000Z', 'm-2');
    const filter = subjectApprovalFilters(member)[0];
    const seen: string[] = [];
    let last: { _id: string; createdAt: string } | undefined;
    for (let page = 0; ; page++) {
      const { items } = await store.find<{ _id: string; createdAt: string }>('approvals', afterRecord(filter, last), {
        sort: LIST_SUBJECT_APPROVALS.sort,
        limit: 5,
        total: false,
      });
      seen.push(...items.map((d) => d._id));
      // a record listed meanwhile before the walk's place does not shift the pages
      if (page === 1) await put('late', '2024-05-01T10:00:09.000Z');
      if (items.length < 5) break;
      last = items[items.length - 1];
    }
    const all = Array.from({ length: 23 }, (_, i) => ({
      id: `a${String(i).padStart(2, '0')}`,
      createdAt: `2024-05-01T10:00:0${i % 3}.000Z`,
    }));
    expect(seen).toEqual(all.sort(newestFirst).map((r) => r.id));
    expect(seen.slice(0, 3)).toEqual(['a20', 'a17', 'a14']);
  });

  test('the first page is the filter itself', () => {
    const filter = { instanceId: 'm-1' };
    expect(afterRecord(filter, undefined)).toBe(filter);
  });
});

describe('what the export holds', () => {
  test("a record's blobs: its large patch (named on the record, or by the rule for records that did not name it) and its old values", () => {
    expect(recordBlobNames(record())).toEqual([]);
    expect(
      recordBlobNames(
        record({
          isLargeApproval: true,
          jsonPatch: [],
          largePatchFile: 'LARGE_APPROVAL_m-1_a-1.json',
          oldValuesFile: 'LARGE_APPROVAL_m-1_a-1_OLD_VALUES.json',
        }),
      ),
    ).toEqual(['LARGE_APPROVAL_m-1_a-1.json', 'LARGE_APPROVAL_m-1_a-1_OLD_VALUES.json']);
    expect(recordBlobNames(record({ isLargeApproval: true, jsonPatch: [] }))).toEqual([
      largeApprovalFileName('m-1', 'a-1'),
    ]);
    expect(recordBlobNames(record({ oldValuesFile: 'LARGE_APPROVAL_m-1_a-1_OLD_VALUES.json' }))).toEqual([
      'LARGE_APPROVAL_m-1_a-1_OLD_VALUES.json',
    ]);
  });

  test('a record is given as stored (a copy), a blob as JSON in Base64', () => {
    const stored = Object.freeze(record({ oldValues: [{ value: 'pending_approval' }] }));
    const out = approvalRecord(stored);
    expect(out).toEqual({
      store: 'approvals',
      classId: 'ApprovalManager',
      instanceId: 'a-1',
      kind: 'approval',
      data: stored,
    });
    expect(out.data).not.toBe(stored);
    const content = Buffer.from('[{"op":"add","path":"/x","value":1}]', 'utf8');
    expect(approvalBlobFile('a-1', 'LARGE_APPROVAL_m-1_a-1.json', content)).toEqual({
      classId: 'ApprovalManager',
      instanceId: 'a-1',
      name: 'LARGE_APPROVAL_m-1_a-1.json',
      contentType: 'application/json',
      kind: 'approvalBlob',
      contentBase64: content.toString('base64'),
    });
  });

  test('newest first, then by id (as listApprovals)', () => {
    const a = { id: 'a', createdAt: '2024-05-01T10:00:00.000Z' };
    const b = { id: 'b', createdAt: '2024-05-01T10:00:00.000Z' };
    const c = { id: 'c', createdAt: '2024-05-02T10:00:00.000Z' };
    expect([a, b, c].sort(newestFirst)).toEqual([c, b, a]);
  });
});
