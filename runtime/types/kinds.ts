/** The kinds of method a class declares (GUIDE 2). */

export type MethodKind = 'INIT' | 'READ' | 'WRITE' | 'QUEUED_WRITE' | 'STATIC' | 'INTERNAL';

/** Kinds that change state and therefore hold the instance exclusively. */
export const EXCLUSIVE_KINDS: ReadonlySet<MethodKind> = new Set(['INIT', 'WRITE', 'QUEUED_WRITE', 'INTERNAL']);
