/** ApprovalManager's pure rules of a data subject's erasure (classes/ApprovalManager/erasure-rules.ts). */
import { ERASED, eraseStringLeaves, type Subject } from '../../classes/_platform/personal-data';
import { changeView } from '../../classes/ApprovalManager/changes';
import {
  erasedRecord,
  erasedValue,
  eraseOldValues,
  erasePatch,
  namesErased,
  needsErasure,
} from '../../classes/ApprovalManager/erasure-rules';
import { approvalDocument, planApproval } from '../../classes/ApprovalManager/rules';
import {
  recordIsAboutSubject,
  recordMadeBySubject,
  recordReviewedBySubject,
} from '../../classes/ApprovalManager/subject-data-rules';
import type { StoredApproval } from '../../classes/ApprovalManager/types';

const member: Subject = { type: 'member', id: 'm-1' };
const user: Subject = { type: 'program_management_user', id: 'u-1' };
const NOW = '2024-06-01T00:00:00.000Z';
const MAKER = { id: 'u-1', type: 'program_management_user' as const, name: 'Una User', roles: ['super'] };

function record(over: Partial<StoredApproval> = {}): StoredApproval {
  return {
    id: 'a-1',
    event: 'member_update',
    classId: 'Member',
    instanceId: 'm-1',
    entityId: 'm-1',
    approvalStatus: 'approved',
    entityOldStatus: 'active',
    entityNewStatus: 'active',
    approvalType: 'manual',
    jsonPatch: [
      { op: 'replace', path: '/name', value: 'Zephyra' },
      { op: 'add', path: '/address', value: { street: 'Harbourlight Lane', number: 7, tags: ['home', 'main'] } },
      { op: 'remove', path: '/note' },
      { op: 'replace', path: '/grade', value: 3 },
      { op: 'replace', path: '/middleName', value: null },
      { op: 'move', from: '/a', path: '/b' },
    ],
    oldValues: [{ value: 'Zephyrine' }, null, { value: 'private' }, { value: 2 }, { value: 'Q.' }, { value: 'x' }],
    isLargeApproval: false,
    actor: MAKER,
    approvers: ['approver'],
    approvedAt: '2024-05-02T10:00:00.000Z',
    approvedBy: { id: 'u-2', type: 'program_management_user', name: 'Rhoswen Reviewer', roles: ['approver'] },
    reviewNote: 'Zephyrine asked for it',
    approveCallback: { event: 'member_update', classId: 'Member', instanceId: 'm-1', methodName: 'approveMember' },
    additionalData: { reason: 'moved', count: 2, nested: { who: 'Zephyrine' } },
    companyId: 'c-1',
    createdAt: '2024-05-01T10:00:00.000Z',
    updatedAt: '2024-05-02T10:00:00.000Z',
    ...over,
  };
}

describe('erasing values', () => {
  test('a scalar becomes ERASED, null stays, an object or array keeps its structure with its strings ERASED', () => {
    expect(erasedValue('Kim')).toBe(ERASED);
    expect(erasedValue(42)).toBe(ERASED);
    expect(erasedValue(true)).toBe(ERASED);
    expect(erasedValue(null)).toBeNull();
    expect(erasedValue({ a: 'x', n: 1, l: ['y', null] })).toEqual({ a: ERASED, n: 1, l: [ERASED, null] });
    expect(erasedValue(ERASED)).toBe(ERASED);
  });

  test('a patch keeps its operations and paths; old values keep null (nothing was there)', () => {
    const r = record();
    expect(erasePatch(r.jsonPatch)).toEqual([
      { op: 'replace', path: '/name', value: ERASED },
      { op: 'add', path: '/address', value: { street: ERASED, number: 7, tags: [ERASED, ERASED] } },
      { op: 'remove', path: '/note' },
      { op: 'replace', path: '/grade', value: ERASED },
      { op: 'replace', path: '/middleName', value: null },
      { op: 'move', from: '/a', path: '/b' },
    ]);
    expect(eraseOldValues(r.oldValues!)).toEqual([
      { value: ERASED },
      null,
      { value: ERASED },
      { value: ERASED },
      { value: ERASED },
      { value: ERASED },
    ]);
    // from a blob that is not what it should be: whatever is there loses its strings
    expect(erasePatch(['x', 3] as unknown[])).toEqual([ERASED, ERASED]);
    expect(eraseOldValues([{ other: 'x' }])).toEqual([{ other: ERASED }]);
  });

  test("keys stay own keys (a '__proto__' key is no prototype)", () => {
    const v = JSON.parse('{"__proto__": {"p": "x"}}') as unknown;
    const out = eraseStringLeaves(v) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    const [op] = erasePatch([JSON.parse('{"op":"add","path":"/x","value":{"__proto__":"y"}}')]);
    expect(Object.keys((op as { value: object }).value)).toEqual(['__proto__']);
  });

  test("a name's strings only: other strings and every other value stay", () => {
    expect(namesErased(['Una User'])({ name: 'Una User', other: 'Una User Jr', n: 1, l: ['Una User'] })).toEqual({
      name: ERASED,
      other: 'Una User Jr',
      n: 1,
      l: [ERASED],
    });
    expect(namesErased(['Una User'])('Una User')).toBe(ERASED);
    expect(namesErased(['Una User'])(5)).toBe(5);
  });
});

describe('a record about the subject', () => {
  test('its values go (patch, old values, additionalData, review note); the fact of the change stays; it is marked', () => {
    const before = Object.freeze(record({ actor: { id: 'u-9', type: 'program_management_user', name: 'Someone' } }));
    expect(recordIsAboutSubject(before, member)).toBe(true);
    const erased = erasedRecord(before, member, 'er-1', NOW)!;
    expect(erased.values).toBe(true);
    expect(erased.blobs).toBeUndefined();
    const { jsonPatch, oldValues, additionalData, reviewNote, erasedBy, erasedAt, ...rest } = erased.record;
    const { jsonPatch: _p, oldValues: _o, additionalData: _a, reviewNote: _n, ...restBefore } = before;
    // statuses, event, dates, approvers, callbacks, the maker and the reviewer (other people) stay
    expect(rest).toEqual(restBefore);
    expect(jsonPatch).toEqual(erasePatch(before.jsonPatch));
    expect(oldValues).toEqual(eraseOldValues(before.oldValues!));
    expect(additionalData).toEqual({ reason: ERASED, count: 2, nested: { who: ERASED } });
    expect([reviewNote, erasedBy, erasedAt]).toEqual([ERASED, 'er-1', NOW]);
    expect(JSON.stringify(erased.record)).not.toMatch(/Zephyr|Harbourlight|private/);
    // the reviewers' view and the listing row read the erased values
    expect(JSON.stringify(changeView(jsonPatch, oldValues!))).not.toMatch(/Zephyr|Harbourlight/);
    expect(JSON.stringify(approvalDocument(erased.record))).not.toMatch(/Zephyr|Harbourlight/);
  });

  test('a second erasure finds nothing left', () => {
    const once = erasedRecord(record({ actor: { id: 'u-9', type: 'program_management_user' } }), member, 'er-1', NOW)!;
    expect(needsErasure(once.record, member)).toBe(false);
    expect(erasedRecord(once.record, member, 'er-2', NOW)).toBeNull();
  });

  test('a pending record stays pending', () => {
    const pending = record({ approvalStatus: 'pending', approvedAt: undefined, approvedBy: undefined });
    const erased = erasedRecord(pending, member, 'er-1', NOW)!;
    expect(erased.record.approvalStatus).toBe('pending');
    expect(erased.record.approveCallback).toEqual(pending.approveCallback);
  });

  test('a large record: its blobs are to be rewritten with every value erased', () => {
    const planned = planApproval(
      'a-big',
      {
        event: 'member_update',
        instanceId: 'm-1',
        entityId: 'm-1',
        jsonPatch: [{ op: 'replace', path: '/note', value: 'Zephyrine '.repeat(2000) }],
        oldValues: [{ value: 'Quillfeather '.repeat(100) }],
        actor: { id: 'u-9', type: 'program_management_user' },
        approvers: ['approver'],
      },
      'Member',
      NOW,
    );
    expect(planned.record).toMatchObject({ isLargeApproval: true, jsonPatch: [] });
    const erased = erasedRecord(planned.record, member, 'er-1', NOW)!;
    expect(erased.record.jsonPatch).toEqual([]);
    expect(erased.blobs!('Zephyrine')).toBe(ERASED);
    expect(erasePatch(planned.patch, erased.blobs)).toEqual([{ op: 'replace', path: '/note', value: ERASED }]);
    expect(eraseOldValues(planned.oldValues!, erased.blobs)).toEqual([{ value: ERASED }]);
  });
});

describe('a record the subject made or reviewed', () => {
  test("the maker's name goes, in the actor and where the values copy it; the other values stay; no mark", () => {
    const made = record({
      instanceId: 'm-2',
      entityId: 'm-2',
      jsonPatch: [{ op: 'add', path: '', value: { name: 'Bart', createdBy: MAKER } }],
      oldValues: [null],
    });
    expect([recordIsAboutSubject(made, user), recordMadeBySubject(made, user)]).toEqual([false, true]);
    const erased = erasedRecord(made, user, 'er-1', NOW)!;
    expect(erased.values).toBe(false);
    expect(erased.record.actor).toEqual({ ...MAKER, name: ERASED });
    expect(erased.record.jsonPatch).toEqual([
      { op: 'add', path: '', value: { name: 'Bart', createdBy: { ...MAKER, name: ERASED } } },
    ]);
    expect(erased.record.reviewNote).toBe('Zephyrine asked for it');
    expect(erased.record.approvedBy!.name).toBe('Rhoswen Reviewer');
    expect(erased.record.erasedBy).toBeUndefined();
    expect(erasedRecord(erased.record, user, 'er-1', NOW)).toBeNull();
  });

  test("the reviewer's name goes (id, type and roles stay)", () => {
    const reviewer: Subject = { type: 'program_management_user', id: 'u-2' };
    const r = record({ instanceId: 'm-2' });
    expect(recordReviewedBySubject(r, reviewer)).toBe(true);
    const erased = erasedRecord(r, reviewer, 'er-1', NOW)!;
    expect(erased.record.approvedBy).toEqual({
      id: 'u-2',
      type: 'program_management_user',
      name: ERASED,
      roles: ['approver'],
    });
    expect(erased.record.actor).toEqual(MAKER);
    expect(erasedRecord(erased.record, reviewer, 'er-1', NOW)).toBeNull();
  });

  test('a member acting has no name; a record naming neither: nothing', () => {
    expect(
      erasedRecord(record({ instanceId: 'm-2', actor: { id: 'm-1', type: 'member' } }), member, 'e', NOW),
    ).toBeNull();
    expect(needsErasure(record({ instanceId: 'm-9' }), member)).toBe(false);
  });

  test('made by the subject and about it: both in one', () => {
    const self = record({ classId: 'ProgramManagementUser', instanceId: 'u-1', entityId: 'u-1' });
    const erased = erasedRecord(self, user, 'er-1', NOW)!;
    expect(erased.values).toBe(true);
    expect(erased.record.actor.name).toBe(ERASED);
    expect(erased.record.erasedBy).toBe('er-1');
  });
});
