import { ActorError } from '../../runtime';
import { refuseWhilePending, settleGatedChange } from '../../classes/_platform/gated-change';

const mismatch = (waiting: string | null) => new ActorError(409, 9999, `waits for ${waiting}`);
const entity = { id: 'e1', name: 'Old', status: 'active', updatedAt: '2026-01-01T00:00:00.000Z' };
const renamePatch = [{ op: 'replace' as const, path: '/name', value: 'New' }];

describe('refuseWhilePending', () => {
  it('passes an entity that waits for nothing', () => {
    expect(() => refuseWhilePending(null, () => mismatch('x'))).not.toThrow();
    expect(() => refuseWhilePending(undefined, () => mismatch('x'))).not.toThrow();
  });
  it("throws the class's error naming the approval it waits for", () => {
    expect(() => refuseWhilePending('a1', (id) => mismatch(id))).toThrow('waits for a1');
  });
});

describe('settleGatedChange', () => {
  it('applies the patch on approve and stamps updatedAt with the time of application', () => {
    const out = settleGatedChange(
      entity,
      { approvalId: 'a1', action: 'approve', jsonPatch: renamePatch },
      { pendingApprovalId: 'a1', mismatch, now: '2026-02-02T00:00:00.000Z' },
    );
    expect(out).toEqual({
      kind: 'approved',
      entity: { ...entity, name: 'New', updatedAt: '2026-02-02T00:00:00.000Z' },
    });
    expect(entity.name).toBe('Old');
  });
  it('keeps the entity on reject', () => {
    const out = settleGatedChange(
      entity,
      { approvalId: 'a1', action: 'reject', jsonPatch: renamePatch },
      { pendingApprovalId: 'a1', mismatch },
    );
    expect(out).toEqual({ kind: 'rejected', entity });
  });
  it('answers a conflict, not an exception, when the patch no longer fits', () => {
    const out = settleGatedChange(
      entity,
      { approvalId: 'a1', action: 'approve', jsonPatch: [{ op: 'remove', path: '/gone' }] },
      { pendingApprovalId: 'a1', mismatch },
    );
    expect(out.kind).toBe('conflict');
    expect(out.kind === 'conflict' && out.problems[0]).toContain('/gone');
  });
  it('recognises a redelivered callback of the approval it settled last', () => {
    const out = settleGatedChange(
      entity,
      { approvalId: 'a1', action: 'approve', jsonPatch: renamePatch },
      { pendingApprovalId: null, lastSettledApprovalId: 'a1', mismatch },
    );
    expect(out).toEqual({ kind: 'settled' });
  });
  it("refuses a callback of an approval the entity does not wait for with the class's error", () => {
    expect(() =>
      settleGatedChange(
        entity,
        { approvalId: 'a2', action: 'approve', jsonPatch: renamePatch },
        { pendingApprovalId: 'a1', mismatch },
      ),
    ).toThrow('waits for a1');
    expect(() =>
      settleGatedChange(
        entity,
        { approvalId: 'a2', action: 'approve', jsonPatch: renamePatch },
        { pendingApprovalId: null, mismatch },
      ),
    ).toThrow('waits for null');
  });
});
