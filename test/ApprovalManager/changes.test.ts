/**
 * Pure parts of approvals: the before/after view of an approval
 * (old values of the patched paths), the actor of an approved change's audit
 * entry (the reviewer), and updatedAt bumped when an approval applies a change.
 */
import { createPatch, type Operation } from 'rfc6902';
import { changeView, oldValuesFit, oldValuesOf, pointerLookup } from '../../classes/ApprovalManager/changes';
import { actorFromIdentity, changeActor } from '../../classes/_platform/actor';
import { applyApprovalCallback, computeWorkflowChange } from '../../classes/_platform/workflow';
import type { Identity } from '../../runtime';

describe('old values and the before/after view', () => {
  test('an update: replaced and removed members show what they held; added members nothing', () => {
    const old = { id: 'c1', name: 'Acme', address: { city: 'Oslo', zip: '0150' }, note: 'n', status: 'pending' };
    const next = {
      id: 'c1',
      name: 'Acme AS',
      address: { city: 'Bergen', zip: '0150' },
      email: 'a@b.c',
      status: 'active',
    };
    const patch = createPatch(old, next);
    const oldValues = oldValuesOf(old, patch);
    expect(oldValues).toHaveLength(patch.length);
    const byPath = Object.fromEntries(changeView(patch, oldValues).map((c) => [c.path, c]));
    expect(byPath['/name']).toEqual({ op: 'replace', path: '/name', before: 'Acme', after: 'Acme AS' });
    expect(byPath['/address/city']).toEqual({ op: 'replace', path: '/address/city', before: 'Oslo', after: 'Bergen' });
    expect(byPath['/note']).toEqual({ op: 'remove', path: '/note', before: 'n' });
    expect(byPath['/email']).toEqual({ op: 'add', path: '/email', after: 'a@b.c' });
    expect(byPath['/status']).toEqual({ op: 'replace', path: '/status', before: 'pending', after: 'active' });
    expect(old.address.city).toBe('Oslo'); // the old entity is not touched
  });

  test('a creation (from {}) has no before values', () => {
    const { jsonPatch } = computeWorkflowChange(null, { id: 'g', name: 'x', status: 'pending' }, 'active');
    const view = changeView(jsonPatch, oldValuesOf({}, jsonPatch));
    expect(view.every((c) => !('before' in c))).toBe(true);
    expect(view).toEqual(expect.arrayContaining([{ op: 'add', path: '/status', after: 'active' }]));
  });

  test('array operations are read in order: a removal shifts the elements that follow', () => {
    const old = { list: ['a', 'b', 'c'] };
    const patch: Operation[] = [
      { op: 'remove', path: '/list/0' },
      { op: 'replace', path: '/list/0', value: 'B' }, // 'b' by now
      { op: 'add', path: '/list/1', value: 'new' }, // an insertion replaces nothing
    ];
    expect(oldValuesOf(old, patch)).toEqual([{ value: 'a' }, { value: 'b' }, null]);
    expect(changeView(patch, oldValuesOf(old, patch))).toEqual([
      { op: 'remove', path: '/list/0', before: 'a' },
      { op: 'replace', path: '/list/0', before: 'b', after: 'B' },
      { op: 'add', path: '/list/1', after: 'new' },
    ]);
  });

  test('null old values are values; inherited properties are not', () => {
    expect(oldValuesOf({ a: null }, [{ op: 'replace', path: '/a', value: 1 }])).toEqual([{ value: null }]);
    expect(pointerLookup({}, '/constructor')).toMatchObject({ found: false });
    expect(pointerLookup({ 'a/b': { '~': 2 } }, '/a~1b/~0')).toMatchObject({ found: true, value: 2 });
  });

  test('test operations are left out; move/copy name their source; a patch that stops applying yields null after it', () => {
    const patch: Operation[] = [
      { op: 'test', path: '/a', value: 1 },
      { op: 'move', from: '/a', path: '/b' },
      { op: 'remove', path: '/missing' },
      { op: 'replace', path: '/b', value: 3 },
    ];
    const oldValues = oldValuesOf({ a: 1 }, patch);
    expect(oldValues).toEqual([null, null, null, null]);
    expect(changeView(patch, oldValues)).toEqual([
      { op: 'move', path: '/b', from: '/a' },
      { op: 'remove', path: '/missing' },
      { op: 'replace', path: '/b', after: 3 },
    ]);
  });

  test('old values fit a patch only with one well-formed entry per operation', () => {
    const patch: Operation[] = [{ op: 'remove', path: '/a' }];
    expect(oldValuesFit(patch, [null])).toBe(true);
    expect(oldValuesFit(patch, [{ value: 1 }])).toBe(true);
    expect(oldValuesFit(patch, [])).toBe(false);
    expect(oldValuesFit(patch, [1])).toBe(false);
    expect(oldValuesFit(patch, [{}])).toBe(false);
    expect(oldValuesFit(patch, undefined)).toBe(false);
  });
});

describe('the actor of a change (audit entries)', () => {
  const approvalManager: Identity = { type: 'class', classId: 'ApprovalManager', instanceId: 'ap-1' };
  const reviewedBy = { id: 'ann', type: 'program_management_user', name: 'Ann', roles: ['approver'] };

  test('in an approval callback: the reviewer, not the class that delivered it', () => {
    expect(changeActor(approvalManager, { approvalId: 'ap-1', action: 'approve', reviewedBy })).toEqual(reviewedBy);
    expect(changeActor(approvalManager, { reviewedBy: { id: 'dave', type: 'developer' } })).toEqual({
      id: 'dave',
      type: 'developer',
    });
  });

  test('elsewhere, or without a usable reviewedBy: the caller', () => {
    const other: Identity = { type: 'class', classId: 'Member', instanceId: 'm1' };
    expect(changeActor(other, { reviewedBy })).toEqual(actorFromIdentity(other));
    const user: Identity = { type: 'program_management_user', userId: 'u1', roles: ['clerk'] };
    expect(changeActor(user, { reviewedBy })).toEqual(actorFromIdentity(user));
    expect(changeActor(approvalManager, {})).toEqual(actorFromIdentity(approvalManager));
    expect(changeActor(approvalManager, { reviewedBy: { id: 5, type: 'x' } })).toEqual(
      actorFromIdentity(approvalManager),
    );
    expect(changeActor(approvalManager, null)).toEqual(actorFromIdentity(approvalManager));
  });

  test('a reviewer of an unknown actor type counts as system', () => {
    expect(changeActor(approvalManager, { reviewedBy: { id: 'x', type: 'robot' } })).toEqual({
      id: 'x',
      type: 'system',
    });
  });
});

describe('approvals bump updatedAt', () => {
  const now = '2030-01-02T03:04:05.000Z';
  const current = {
    id: 'c1',
    status: 'pending',
    createdAt: '2020-01-01T00:00:00.000Z',
    updatedAt: '2020-01-01T00:00:00.000Z',
  };
  const approve = {
    action: 'approve' as const,
    jsonPatch: [{ op: 'replace' as const, path: '/status', value: 'active' }],
  };

  test('an applied approval sets updatedAt to the time of application', () => {
    expect(applyApprovalCallback(current, approve, now)).toEqual({ ...current, status: 'active', updatedAt: now });
    expect(current.updatedAt).toBe('2020-01-01T00:00:00.000Z');
  });

  test('the time of application wins over an updatedAt the patch carries (the time of the request)', () => {
    const patch: Operation[] = [
      ...approve.jsonPatch,
      { op: 'replace', path: '/updatedAt', value: '2025-05-05T00:00:00.000Z' },
    ];
    expect(applyApprovalCallback(current, { action: 'approve', jsonPatch: patch }, now).updatedAt).toBe(now);
  });

  test('defaults to the current time', () => {
    const before = Date.now();
    const at = Date.parse(applyApprovalCallback(current, approve).updatedAt);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });

  test('entities without updatedAt get none; a rejection changes nothing', () => {
    expect(applyApprovalCallback({ id: 'x', status: 'pending' }, approve, now)).toEqual({ id: 'x', status: 'active' });
    expect(applyApprovalCallback(current, { ...approve, action: 'reject' }, now)).toBe(current);
  });
});
