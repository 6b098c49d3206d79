/**
 * What the HTTP layer checks of a JSON body before any handler sees it: its
 * size (BODY_LIMIT, or a smaller MethodOptions.bodyLimit) and its nesting
 * depth (MAX_JSON_DEPTH). Pure functions.
 */

const UNITS: Record<string, number> = { b: 1, kb: 2 ** 10, mb: 2 ** 20, gb: 2 ** 30, tb: 2 ** 40, pb: 2 ** 50 };

/**
 * A body size in body-parser's notation ('16mb', '64kb', '512b', '1.5mb', or a
 * number of bytes; units are powers of 1024, case-insensitive) as bytes.
 * Throws on anything else, so a broken option stops the start.
 */
export function parseByteSize(size: string | number): number {
  if (typeof size === 'number') {
    if (Number.isFinite(size) && size >= 0) return Math.floor(size);
  } else {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb|pb)?\s*$/i.exec(size);
    if (m) return Math.floor(Number(m[1]) * UNITS[(m[2] ?? 'b').toLowerCase()]);
  }
  throw new Error(`not a body size: '${String(size)}' (e.g. '64kb', '16mb' or a number of bytes)`);
}

/**
 * Whether a parsed JSON value nests objects or arrays deeper than `maxDepth`
 * levels (`{}` and `[]` are level 1, `{"a": []}` level 2; scalars level 0).
 * Iterative, so a body nested a million deep costs memory in proportion to
 * its size, never the call stack.
 */
export function nestedDeeperThan(value: unknown, maxDepth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop()!;
    const depth = depths.pop()!;
    if (depth > maxDepth) return true;
    const children: unknown[] = Array.isArray(v) ? v : Object.values(v);
    for (const child of children) {
      if (child !== null && typeof child === 'object') {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
