/**
 * What the paths of a JSON Patch held before it (the approval's before/after
 * view, spec 2.8), pure. runWorkflow records them next to the patch; the
 * ApprovalManager builds its reviewers' view from them (changes.ts).
 */
import { applyPatch, type Operation } from 'rfc6902';

/** the value a patched path held before its operation; null: nothing was there */
export type OldValue = { value: unknown } | null;

export const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The value at a JSON Pointer (own properties only), with whether it exists and whether its parent is an array. */
export function pointerLookup(doc: unknown, pointer: string): { found: boolean; value?: unknown; inArray: boolean } {
  if (pointer === '') return { found: doc !== undefined, value: doc, inArray: false };
  if (!pointer.startsWith('/')) return { found: false, inArray: false };
  const tokens = pointer.slice(1).split('/').map(unescapeToken);
  let cur: unknown = doc;
  for (let i = 0; i < tokens.length; i++) {
    const last = i === tokens.length - 1;
    const t = tokens[i];
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(t) || Number(t) >= cur.length) return { found: false, inArray: last };
      if (last) return { found: true, value: cur[Number(t)], inArray: true };
      cur = cur[Number(t)];
    } else if (cur !== null && typeof cur === 'object') {
      if (!hasOwn(cur, t)) return { found: false, inArray: false };
      if (last) return { found: true, value: (cur as Record<string, unknown>)[t], inArray: false };
      cur = (cur as Record<string, unknown>)[t];
    } else {
      return { found: false, inArray: false };
    }
  }
  return { found: false, inArray: false };
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/**
 * For each operation of `patch`, what its path held in `base` (as the previous
 * operations left it) just before the operation: `{value}`, or null when
 * nothing was there. `add` into an array inserts, so it replaces nothing
 * (null); `add` onto an existing object member replaces it. `test` operations
 * change nothing (null). An operation that does not apply stops the replay:
 * it and the rest get null.
 */
export function oldValuesOf(base: unknown, patch: Operation[]): OldValue[] {
  const doc = clone(base ?? {});
  const out: OldValue[] = [];
  let broken = false;
  for (const op of patch) {
    if (broken || op.op === 'test') {
      out.push(null);
      continue;
    }
    const at = pointerLookup(doc, op.path);
    out.push(at.found && !(op.op === 'add' && at.inArray) ? { value: clone(at.value) } : null);
    const [problem] = applyPatch(doc, [op]);
    if (problem) broken = true;
  }
  return out;
}
