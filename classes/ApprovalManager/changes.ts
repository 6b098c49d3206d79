/**
 * The before/after view of an approval's change, pure.
 *
 * A record stores its JSON Patch (RFC 6902) and, next to it, `oldValues`: one
 * entry per patch operation, the value the operation's path held just before
 * that operation was applied to the old entity (`{value}`), or `null` when
 * nothing was there (an added member, an array insertion). runWorkflow
 * computes them from the old entity (oldValuesOf); the view (changeView)
 * needs only the patch and those values, not the entity.
 *
 * Operations are applied in order, so a path is read in the document as the
 * previous operations left it: for array element operations (whose indexes
 * shift as elements are added and removed) `before` is the element the
 * operation replaces or removes, which is what a reviewer needs to see.
 */
import type { Operation } from 'rfc6902';
import { hasOwn, type OldValue } from '../_platform/old-values';

// the old values are computed by the platform's workflow step; re-exported for the class's own modules and tests
export { oldValuesOf, pointerLookup, type OldValue } from '../_platform/old-values';

/** One changed path as reviewers see it. `before` absent: nothing was there; `after` absent: removed. */
export interface ApprovalChange {
  op: Operation['op'];
  path: string;
  from?: string;
  before?: unknown;
  after?: unknown;
}

/** Are these old values a usable companion of `patch` (one well-formed entry per operation)? */
export function oldValuesFit(patch: Operation[], oldValues: unknown): oldValues is OldValue[] {
  return (
    Array.isArray(oldValues) &&
    oldValues.length === patch.length &&
    oldValues.every((v: unknown) => v === null || (typeof v === 'object' && !Array.isArray(v) && hasOwn(v, 'value')))
  );
}

/**
 * The before/after view: one entry per operation (test operations left out).
 * `before` comes from oldValues; `after` is the value an add/replace writes
 * (absent for remove; for move/copy the source is named in `from`).
 */
export function changeView(patch: Operation[], oldValues: OldValue[]): ApprovalChange[] {
  const out: ApprovalChange[] = [];
  patch.forEach((op, i) => {
    if (op.op === 'test') return;
    const change: ApprovalChange = { op: op.op, path: op.path };
    if ((op.op === 'move' || op.op === 'copy') && 'from' in op) change.from = op.from;
    const old = oldValues[i];
    if (old) change.before = old.value;
    if ((op.op === 'add' || op.op === 'replace') && 'value' in op) change.after = op.value;
    out.push(change);
  });
  return out;
}
