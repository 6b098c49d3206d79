import {
  applyApprovalCallback,
  computeWorkflowChange,
  currentStatusFor,
  NO_STATUS,
  PatchConflictError,
} from '../../classes/_platform/workflow';

describe('current status of an event', () => {
  test.each([
    ['update: the old status', { status: 'active' }, { status: 'inactive' }, 'active'],
    ['creation: the initial status of the new entity', null, { status: 'pending' }, 'pending'],
    ['no status at all', null, { name: 'x' }, NO_STATUS],
    ['a non-string status', { status: 3 }, { status: 'x' }, NO_STATUS],
  ])('%s', (_what, oldEntity, newEntity, expected) => {
    expect(currentStatusFor(oldEntity, newEntity)).toBe(expected);
  });
});

describe('computeWorkflowChange', () => {
  test('creation: a patch from {} to the new entity with the target status', () => {
    const c = computeWorkflowChange(null, { id: 'g1', name: 'n', status: 'pending' }, 'active');
    expect(c.newStatus).toBe('active');
    expect(c.simulatedApprovedState).toEqual({ id: 'g1', name: 'n', status: 'active' });
    expect(c.jsonPatch).toEqual(
      expect.arrayContaining([
        { op: 'add', path: '/id', value: 'g1' },
        { op: 'add', path: '/status', value: 'active' },
      ]),
    );
  });

  test('update with target *: the requested status stays; only changed fields are in the patch', () => {
    const old = { id: 'g1', name: 'a', price: 1, tags: ['x'], status: 'active' };
    const c = computeWorkflowChange(old, { ...old, price: 2, tags: ['x', 'y'], status: 'inactive' }, null);
    expect(c.newStatus).toBe('inactive');
    expect(c.simulatedApprovedState).toEqual({ ...old, price: 2, tags: ['x', 'y'], status: 'inactive' });
    expect(c.jsonPatch.map((o) => o.path).sort()).toEqual(['/price', '/status', '/tags/-'].sort());
    expect(old).toEqual({ id: 'g1', name: 'a', price: 1, tags: ['x'], status: 'active' });
  });

  test('removed fields become remove operations; no status stays no status', () => {
    const c = computeWorkflowChange(
      { a: 1, b: 2 } as Record<string, number>,
      { a: 1 } as Record<string, number>,
      undefined,
    );
    expect(c.newStatus).toBeUndefined();
    expect(c.jsonPatch).toEqual([{ op: 'remove', path: '/b' }]);
    expect(c.simulatedApprovedState).toEqual({ a: 1 });
  });
});

describe('applyApprovalCallback', () => {
  const current = { id: 'g1', status: 'pending', price: 1 };
  test('approve applies the patch to a copy', () => {
    const out = applyApprovalCallback(current, {
      action: 'approve',
      jsonPatch: [{ op: 'replace', path: '/status', value: 'active' }],
    });
    expect(out).toEqual({ id: 'g1', status: 'active', price: 1 });
    expect(current.status).toBe('pending');
  });

  test('reject leaves the entity unchanged', () => {
    expect(
      applyApprovalCallback(current, {
        action: 'reject',
        jsonPatch: [{ op: 'replace', path: '/status', value: 'active' }],
      }),
    ).toBe(current);
  });

  test('a creation patch applies onto the stored pending entity (add replaces members)', () => {
    const { jsonPatch } = computeWorkflowChange(null, current, 'active');
    expect(applyApprovalCallback(current, { action: 'approve', jsonPatch })).toEqual({ ...current, status: 'active' });
  });

  test('a patch that no longer fits throws PatchConflictError', () => {
    const run = () =>
      applyApprovalCallback(current, { action: 'approve', jsonPatch: [{ op: 'remove', path: '/gone' }] });
    expect(run).toThrow(PatchConflictError);
    expect(run).toThrow(/remove \/gone/);
  });
});
