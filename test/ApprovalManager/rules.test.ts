import { schemaRefusal } from '../support/schema-check';
import {
  approvalView,
  buildListFilter,
  callbackBody,
  canReview,
  isAutoApproval,
  isLargePatch,
  isMaker,
  largeApprovalFileName,
  largeOldValuesFileName,
  listingRow,
  MAX_INLINE_PATCH_BYTES,
  newApprovalRecord,
  oldValuesInline,
  listQuery,
  patchBytes,
  planApproval,
  reviewerWithRoles,
  reviewOutcome,
  reviewRefusal,
  type ActiveRole,
} from '../../classes/ApprovalManager/rules';
import type { Actor } from '../../classes/_platform/actor';
import type { CreateApprovalInput } from '../../classes/ApprovalManager/types';

const schemaCheck = (method: string, raw: Record<string, unknown>) => schemaRefusal('ApprovalManager', method, raw);
import { ActorError } from '../../runtime';
import { SAFE_BLOB_NAME } from '../../runtime/files/blob-store';
import { patchOfSize } from '../Workflow/support';

const pm = (roles: string[] = []): Actor => ({ id: 'u1', type: 'program_management_user', roles });
const developer: Actor = { id: 'd1', type: 'developer', roles: [] };
const system: Actor = { id: 'system', type: 'system', name: 'system' };
const integration: Actor = { id: 'env-1', type: 'system', name: 'integration:env-1' };
const member: Actor = { id: 'm1', type: 'member' };

describe('patch storage (spec 8: inline up to 10 KB)', () => {
  test.each([
    [MAX_INLINE_PATCH_BYTES - 1, false],
    [MAX_INLINE_PATCH_BYTES, false],
    [MAX_INLINE_PATCH_BYTES + 1, true],
  ])('%i bytes → large %s', (bytes, large) => {
    const p = patchOfSize(bytes);
    expect(patchBytes(p)).toBe(bytes);
    expect(isLargePatch(p)).toBe(large);
  });

  test('size counts UTF-8 bytes, not characters', () => {
    const p = patchOfSize(MAX_INLINE_PATCH_BYTES + 2, 'é'); // 2 bytes per character
    expect(JSON.stringify(p).length).toBeLessThan(MAX_INLINE_PATCH_BYTES);
    expect(isLargePatch(p)).toBe(true);
  });

  test('blob names follow LARGE_APPROVAL_{entityId}_{approvalId}.json and are always safe', () => {
    expect(largeApprovalFileName('c-1', 'a1b2')).toBe('LARGE_APPROVAL_c-1_a1b2.json');
    expect(largeOldValuesFileName('c-1', 'a1b2')).toBe('LARGE_APPROVAL_c-1_a1b2_OLD_VALUES.json');
    for (const id of ['a@b+c=d', '../../etc/passwd', 'x y', 'ü']) {
      for (const name of [largeApprovalFileName(id, '3f1c'), largeOldValuesFileName(id, '3f1c')]) {
        expect(name).toMatch(SAFE_BLOB_NAME);
        expect(name).not.toContain('..');
      }
    }
  });

  test('old values stay inline only while patch and old values together fit in 10 KB', () => {
    const patch = patchOfSize(MAX_INLINE_PATCH_BYTES - 100);
    const small = [{ value: 'x'.repeat(10) }];
    const big = [{ value: 'x'.repeat(200) }];
    expect(oldValuesInline(patch, small)).toBe(true);
    expect(oldValuesInline(patch, big)).toBe(false);
    expect(oldValuesInline(patchOfSize(MAX_INLINE_PATCH_BYTES + 1), [null])).toBe(false); // a large patch keeps nothing inline
  });
});

describe('creation', () => {
  const input = (over: Partial<CreateApprovalInput> = {}): CreateApprovalInput => ({
    event: 'thing_create',
    instanceId: 'i1',
    entityId: 'e1',
    entityOldStatus: null,
    entityNewStatus: 'active',
    jsonPatch: [{ op: 'add', path: '/a', value: 1 }],
    actor: pm(['clerk']),
    approvers: ['approver'],
    approveCallback: { event: 'thing_create', classId: 'Thing', instanceId: 'i1', methodName: 'approve' },
    ...over,
  });

  test.each([
    ['approvers and a plain user', ['approver'], pm(['clerk']), false],
    ['no approvers', [], pm(['clerk']), true],
    ['a developer', ['approver'], developer, true],
    ['the system actor', ['approver'], system, true],
    ['an integration (not privileged)', ['approver'], integration, false],
    ['a member', ['approver'], member, false],
  ])('%s → auto %s', (_what, approvers, actor, auto) => {
    expect(isAutoApproval(approvers, actor)).toBe(auto);
    const r = newApprovalRecord('a1', input({ approvers, actor }), 'Thing', '2024-01-01T00:00:00.000Z');
    expect(r.approvalStatus).toBe(auto ? 'approved' : 'pending');
    expect(r.approvalType).toBe(auto ? 'auto' : 'manual');
    if (auto)
      expect(r).toMatchObject({
        approvedAt: '2024-01-01T00:00:00.000Z',
        approvedBy: { id: 'auto_approve', type: 'system' },
      });
    else expect(r.approvedBy).toBeUndefined();
  });

  test('a record carries every field of spec 2.8', () => {
    const r = newApprovalRecord(
      'a1',
      input({
        rejectCallback: { event: 'x', classId: 'Thing', instanceId: 'i1', methodName: 'reject' },
        additionalData: { k: 1 },
      }),
      'Thing',
      'T',
    );
    for (const f of [
      'id',
      'event',
      'instanceId',
      'entityId',
      'approvalStatus',
      'entityOldStatus',
      'entityNewStatus',
      'approvalType',
      'jsonPatch',
      'isLargeApproval',
      'actor',
      'approvers',
      'approveCallback',
      'rejectCallback',
      'additionalData',
      'createdAt',
      'updatedAt',
    ]) {
      expect(r).toHaveProperty(f);
    }
    expect(r).toMatchObject({
      id: 'a1',
      classId: 'Thing',
      entityOldStatus: null,
      isLargeApproval: false,
      additionalData: { k: 1 },
    });
    expect(newApprovalRecord('a2', input({ additionalData: undefined }), 'Thing', 'T').additionalData).toEqual({});
  });

  test('allowSelfApproval is carried from the input, false by default', () => {
    expect(newApprovalRecord('a1', input(), 'Thing', 'T').allowSelfApproval).toBe(false);
    expect(newApprovalRecord('a1', input({ allowSelfApproval: true }), 'Thing', 'T').allowSelfApproval).toBe(true);
  });

  test('old values are kept when they match the patch (one entry per operation), dropped otherwise', () => {
    expect(newApprovalRecord('a1', input({ oldValues: [null] }), 'Thing', 'T').oldValues).toEqual([null]);
    expect(newApprovalRecord('a1', input({ oldValues: [{ value: 0 }] }), 'Thing', 'T').oldValues).toEqual([
      { value: 0 },
    ]);
    expect(newApprovalRecord('a1', input({ oldValues: [] }), 'Thing', 'T').oldValues).toBeUndefined();
    expect(newApprovalRecord('a1', input({ oldValues: [null, null] }), 'Thing', 'T').oldValues).toBeUndefined();
    expect(newApprovalRecord('a1', input(), 'Thing', 'T').oldValues).toBeUndefined();
  });
});

describe('planning a record (what createApproval stores and prepareApproval announces)', () => {
  const input = (over: Partial<CreateApprovalInput> = {}): CreateApprovalInput => ({
    event: 'thing_update',
    instanceId: 'i1',
    entityId: 'e1',
    jsonPatch: [{ op: 'replace', path: '/a', value: 2 }],
    oldValues: [{ value: 1 }],
    actor: pm(['clerk']),
    approvers: ['approver'],
    approveCallback: { event: 'thing_update', classId: 'Thing', instanceId: 'i1', methodName: 'approve' },
    rejectCallback: { event: 'thing_update', classId: 'Thing', instanceId: 'i1', methodName: 'approve' },
    ...over,
  });
  const refusal = (fn: () => unknown): ActorError => {
    try {
      fn();
    } catch (err) {
      if (err instanceof ActorError) return err;
      throw err;
    }
    throw new Error('expected a refusal');
  };

  test('a small change stays inline: no blobs; the time given is the creation time; companyId is kept', () => {
    const p = planApproval(
      'a1',
      input({ companyId: 'c1', createdAt: '2024-01-01T00:00:00.000Z' }),
      'Thing',
      '2024-01-01T00:00:00.000Z',
    );
    expect(p.blobs).toEqual([]);
    expect(p.record).toMatchObject({
      id: 'a1',
      classId: 'Thing',
      companyId: 'c1',
      isLargeApproval: false,
      createdAt: '2024-01-01T00:00:00.000Z',
    });
    expect(p.record.jsonPatch).toEqual(p.patch);
    expect(p.record.oldValues).toEqual([{ value: 1 }]);
    expect(Object.keys(p.record)).not.toContain('largePatchFile');
  });

  test('a patch over 10 KB goes to its blob; the record keeps [] and the plan the full patch', () => {
    const big = patchOfSize(MAX_INLINE_PATCH_BYTES + 1, 'x', '/a');
    const p = planApproval('a1', input({ jsonPatch: big, oldValues: [{ value: 1 }] }), 'Thing', 'T');
    expect(p.record).toMatchObject({
      isLargeApproval: true,
      jsonPatch: [],
      largePatchFile: largeApprovalFileName('e1', 'a1'),
    });
    expect(p.patch).toEqual(big);
    // a large patch keeps nothing inline: its old values go to their own blob too
    expect(p.blobs.map((b) => [b.name, b.what])).toEqual([
      [largeApprovalFileName('e1', 'a1'), 'patch'],
      [largeOldValuesFileName('e1', 'a1'), 'old values'],
    ]);
    expect(JSON.parse(p.blobs[0]!.json)).toEqual(big);
    expect(JSON.parse(p.blobs[1]!.json)).toEqual([{ value: 1 }]);
    expect(p.record.oldValues).toBeUndefined();
    expect(p.oldValues).toEqual([{ value: 1 }]);
  });

  test('old values that do not fit beside an inline patch get their own blob', () => {
    const p = planApproval('a1', input({ oldValues: [{ value: 'o'.repeat(MAX_INLINE_PATCH_BYTES) }] }), 'Thing', 'T');
    expect(p.record.isLargeApproval).toBe(false);
    expect(p.record.oldValuesFile).toBe(largeOldValuesFileName('e1', 'a1'));
    expect(p.record.oldValues).toBeUndefined();
    expect(p.blobs.map((b) => b.what)).toEqual(['old values']);
  });

  test('a class registers callbacks only on itself (403 8005); other identities are not limited', () => {
    const other = { event: 'thing_update', classId: 'Other', instanceId: 'i1', methodName: 'approve' };
    for (const over of [{ approveCallback: other }, { rejectCallback: other }]) {
      const err = refusal(() => planApproval('a1', input(over), 'Thing', 'T'));
      expect([err.status, err.code]).toEqual([403, 8005]);
    }
    expect(
      planApproval('a1', input({ approveCallback: other, rejectCallback: other }), undefined, 'T').record.classId,
    ).toBe('Other');
  });
});

describe('review', () => {
  const role = (name: string, status: 'active' | 'inactive' = 'active', id = `id-${name}`): ActiveRole => ({
    id,
    name,
    status,
  });
  test.each([
    ['holder of an active approver role', pm(['clerk', 'approver']), [role('clerk'), role('approver')], true],
    ['holder of an approver role matched by id', pm(['r-7']), [role('senior', 'active', 'r-7')], true],
    ['holder of another role', pm(['clerk']), [role('clerk')], false],
    ['token naming the role, which is not active now (absent from the active roles)', pm(['approver']), [], false],
    ['token naming the role, whose definition is inactive', pm(['approver']), [role('approver', 'inactive')], false],
    ['active role held although the token no longer names it', pm([]), [role('approver')], true],
    ['user without roles', pm([]), [], false],
    ['developer', developer, [], true],
    ['system', system, [], true],
    ['integration', integration, [role('approver')], false],
    ['member holding the role name', { ...member, roles: ['approver'] }, [role('approver')], false],
  ])('%s may review: %s', (_what, actor, roles, ok) => {
    expect(canReview(actor as Actor, ['approver', 'senior'], roles as ActiveRole[])).toBe(ok);
  });

  test('the maker of a change (same id and type) approves it only when its rule allows self-approval; it may reject it', () => {
    const maker = pm(['approver']);
    const roles = [role('approver')];
    const record = { actor: maker, approvers: ['approver'], allowSelfApproval: false };
    expect(isMaker(maker, record)).toBe(true);
    expect(isMaker({ ...maker, type: 'developer' }, record)).toBe(false);
    expect(isMaker({ ...maker, id: 'u2' }, record)).toBe(false);
    expect(reviewRefusal(record, 'approve', maker, roles)).toBe('SELF_APPROVAL_NOT_ALLOWED');
    expect(reviewRefusal({ ...record, allowSelfApproval: undefined }, 'approve', maker, roles)).toBe(
      'SELF_APPROVAL_NOT_ALLOWED',
    );
    expect(reviewRefusal(record, 'reject', maker, roles)).toBeNull();
    expect(reviewRefusal({ ...record, allowSelfApproval: true }, 'approve', maker, roles)).toBeNull();
    expect(reviewRefusal(record, 'approve', { ...maker, id: 'u2' }, roles)).toBeNull();
    // eligibility first: a maker without an active approver role is not eligible, whatever the rule says
    expect(reviewRefusal({ ...record, allowSelfApproval: true }, 'approve', maker, [])).toBe('APPROVER_NOT_ELIGIBLE');
  });

  test('the reviewer is recorded with the names of its active roles, not the token claims', () => {
    expect(reviewerWithRoles(pm(['approver', 'gone']), [role('approver'), role('old', 'inactive')]).roles).toEqual([
      'approver',
    ]);
    expect(reviewerWithRoles(system, [role('approver')])).toBe(system);
  });

  const pending = newApprovalRecord(
    'a1',
    {
      event: 'e',
      instanceId: 'i',
      entityId: 'e1',
      jsonPatch: [],
      actor: pm(['clerk']),
      approvers: ['approver'],
      approveCallback: { event: 'e', classId: 'T', instanceId: 'i', methodName: 'ok' },
    },
    'T',
    'T0',
  );

  test('approve records the reviewer and picks the approve callback', () => {
    const { record, callback } = reviewOutcome(pending, 'approve', { ...pm(['approver']), name: 'Ann' }, 'T1', 'fine');
    expect(record).toMatchObject({
      approvalStatus: 'approved',
      approvedAt: 'T1',
      updatedAt: 'T1',
      reviewNote: 'fine',
      approvedBy: { id: 'u1', type: 'program_management_user', name: 'Ann', roles: ['approver'] },
    });
    expect(callback).toEqual(pending.approveCallback);
    expect(pending.approvalStatus).toBe('pending');
    expect(callbackBody(record, 'approve', [{ op: 'add', path: '/x', value: 1 }])).toEqual({
      approvalId: 'a1',
      action: 'approve',
      event: 'e',
      entityId: 'e1',
      jsonPatch: [{ op: 'add', path: '/x', value: 1 }],
      additionalData: {},
      reviewedBy: record.approvedBy,
    });
  });

  test('reject runs the reject callback only when there is one', () => {
    expect(reviewOutcome(pending, 'reject', developer, 'T1')).toMatchObject({
      record: { approvalStatus: 'rejected' },
      callback: undefined,
    });
    const withReject = { ...pending, rejectCallback: { event: 'e', classId: 'T', instanceId: 'i', methodName: 'no' } };
    expect(reviewOutcome(withReject, 'reject', developer, 'T1').callback).toEqual(withReject.rejectCallback);
  });
});

describe('listing', () => {
  test('the query from the checked input, with defaults', () => {
    expect(listQuery({})).toEqual({ actionable: false, page: 1, limit: 10 });
    const all = {
      approvalStatus: 'pending',
      classId: 'C',
      event: 'e',
      entityId: 'x',
      actionable: true,
      page: 2,
      limit: 100,
    };
    expect(listQuery({ ...all, approvalStatus: 'pending' })).toEqual(all);
  });

  test('a GET query is read as its schema types', () => {
    expect(
      schemaCheck('listApprovals', {
        approvalStatus: 'pending',
        classId: 'C',
        event: '7',
        actionable: 'true',
        page: '2',
        limit: '100',
      }),
    ).toEqual({
      input: { approvalStatus: 'pending', classId: 'C', event: '7', actionable: true, page: 2, limit: 100 },
      fields: [],
    });
  });

  test.each([
    [{ approvalStatus: 'done' }, 'approvalStatus'],
    [{ page: '0' }, 'page'],
    [{ page: 1.5 }, 'page'],
    [{ limit: '101' }, 'limit'],
    [{ limit: 0 }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ actionable: 'yes' }, 'actionable'],
    [{ classId: ['a', 'b'] }, 'classId'],
    [{ event: { a: 1 } }, 'event'],
    [{ sort: 'x' }, 'sort'],
  ])('the schema refuses %j', (raw, field) => {
    expect(schemaCheck('listApprovals', raw).fields).toEqual([field]);
  });

  const q = (over: object) => ({ actionable: false, page: 1, limit: 10, ...over });
  test('filters', () => {
    expect(buildListFilter(q({}), pm())).toEqual({});
    expect(buildListFilter(q({ approvalStatus: 'approved' }), pm())).toEqual({ approvalStatus: 'approved' });
    expect(buildListFilter(q({ classId: 'C', entityId: 'e' }), pm())).toEqual({
      $and: [{ classId: 'C' }, { entityId: 'e' }],
    });
    expect(buildListFilter(q({ event: '7' }), pm())).toEqual({ event: { $in: ['7', 7] } });
    const notMine = (a: Actor) => ({
      $or: [{ 'actor.id': { $ne: a.id } }, { 'actor.type': { $ne: a.type } }, { allowSelfApproval: true }],
    });
    // active roles decide (names and ids), not the token's claims
    expect(
      buildListFilter(q({ actionable: true }), pm(['approver', 'stale']), [
        { id: 'r1', name: 'approver' },
        { id: 'r2', name: 'old', status: 'inactive' },
      ]),
    ).toEqual({
      $and: [{ approvalStatus: 'pending' }, { approvers: { $in: ['approver', 'r1'] } }, notMine(pm())],
    });
    expect(buildListFilter(q({ actionable: true }), pm(['approver']), [])).toEqual({
      $and: [{ approvalStatus: 'pending' }, { approvers: { $in: [] } }, notMine(pm())],
    });
    expect(buildListFilter(q({ actionable: true }), developer)).toEqual({
      $and: [{ approvalStatus: 'pending' }, notMine(developer)],
    });
    expect(buildListFilter(q({ actionable: true }), integration, [{ id: 'r1', name: 'approver' }])).toEqual({
      $and: [{ approvalStatus: 'pending' }, { approvers: { $in: [] } }, notMine(integration)],
    });
  });
});

describe('the record as callers see it', () => {
  const patch = [
    { op: 'replace' as const, path: '/name', value: 'B' },
    { op: 'add' as const, path: '/tags/-', value: 'x' },
    { op: 'remove' as const, path: '/note' },
  ];
  const oldValues = [{ value: 'A' }, null, { value: 'gone' }];
  const record = {
    ...newApprovalRecord(
      'a1',
      {
        event: 'e',
        instanceId: 'i',
        entityId: 'e1',
        jsonPatch: patch,
        oldValues,
        actor: pm(),
        approvers: ['approver'],
      },
      'T',
      'T0',
    ),
    largePatchFile: 'L.json',
    oldValuesFile: 'O.json',
  };

  test('changes next to the patch; no storage details', () => {
    const v = approvalView(record, patch, oldValues);
    expect(v.changes).toEqual([
      { op: 'replace', path: '/name', before: 'A', after: 'B' },
      { op: 'add', path: '/tags/-', after: 'x' },
      { op: 'remove', path: '/note', before: 'gone' },
    ]);
    expect(v.jsonPatch).toEqual(patch);
    for (const hidden of ['largePatchFile', 'oldValuesFile', 'oldValues']) expect(v).not.toHaveProperty(hidden);
  });

  test('unknown old values: no changes view', () => {
    expect(approvalView(record, patch, undefined)).not.toHaveProperty('changes');
    expect(approvalView(record, patch, [null])).not.toHaveProperty('changes');
  });

  test('listing rows: the view for inline records, none for large ones', () => {
    const { largePatchFile: _l, oldValuesFile: _o, ...doc } = record;
    expect(listingRow(doc as unknown as Record<string, unknown>).changes).toHaveLength(3);
    const large = listingRow({
      ...doc,
      isLargeApproval: true,
      jsonPatch: [],
      oldValues: undefined,
    } as unknown as Record<string, unknown>);
    expect(large).not.toHaveProperty('changes');
    expect(large.jsonPatch).toEqual([]);
  });
});
