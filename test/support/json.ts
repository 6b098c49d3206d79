/** JSON text helpers for tests of malformed and extreme inputs. */

/** JSON text of objects and arrays nested `depth` deep around `leaf`, alternating {"a": …} and […]. Iterative. */
export function nested(depth: number, leaf = '1'): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i++) {
    open.push(i % 2 ? '[' : '{"a":');
    close.push(i % 2 ? ']' : '}');
  }
  return open.join('') + leaf + close.reverse().join('');
}
