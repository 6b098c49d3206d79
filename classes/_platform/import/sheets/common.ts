/** Helpers the sheet definitions share. */
import { isUnknownInstance } from '../../../../runtime';
import type { ImportContext, Row } from '../types';

export const text = (v: Row[string]): string => (typeof v === 'string' ? v : '');
export const list = (v: Row[string]): string[] => (Array.isArray(v) ? v : []);
/** equal as JSON values */
export const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** the record under `key` of a read operation's answer, or undefined when the instance (or record) does not exist */
export async function current(
  ctx: ImportContext,
  classId: string,
  method: string,
  id: string,
  body: unknown,
  key: string,
): Promise<Record<string, unknown> | undefined> {
  try {
    const res = await ctx.call(classId, method, id, body);
    return (res.body as Record<string, Record<string, unknown> | undefined>)[key];
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
}

/** the fields of `wanted` that differ from `held` (an absent list or text held counts as empty) */
export function changes(wanted: Record<string, unknown>, held: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(wanted).filter(
      ([k, v]) =>
        v !== undefined && !same(v, held[k] ?? (Array.isArray(v) ? [] : typeof v === 'string' ? '' : undefined)),
    ),
  );
}

/** the answer for a record that does not exist: the runtime's unknown instance, or a class's 404 */
export function isMissing(err: unknown): boolean {
  return isUnknownInstance(err) || (err as { status?: number } | undefined)?.status === 404;
}
