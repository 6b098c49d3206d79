/**
 * Base64 text checked without a regular expression. A pattern such as
 * /^[A-Za-z0-9+/]+={0,2}$/ over a multi-megabyte value (a 5 MB image is 7
 * million characters) can make V8's regexp engine throw "Maximum call stack
 * size exceeded" depending on where it runs; the suite saw it as a 500 from
 * createContent now and then. This loop is linear and never throws.
 */

/** Pure: is the character code one of the standard Base64 alphabet's (not `=`)? */
export function isBase64Char(c: number): boolean {
  return (
    (c >= 65 && c <= 90) || // A-Z
    (c >= 97 && c <= 122) || // a-z
    (c >= 48 && c <= 57) || // 0-9
    c === 43 || // +
    c === 47 // /
  );
}

/**
 * Pure: is `text` standard-alphabet Base64 (RFC 4648 section 4): one or more
 * alphabet characters, then at most two `=` at the very end? Whitespace is
 * not accepted (remove it first). The length is not checked: callers that
 * need whole quanta check `length % 4` themselves.
 */
export function isBase64Text(text: string): boolean {
  let end = text.length;
  if (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  if (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  if (end === 0) return false;
  for (let i = 0; i < end; i++) if (!isBase64Char(text.charCodeAt(i))) return false;
  return true;
}

/** Pure: `text` without ASCII whitespace (space, tab, CR, LF, FF, VT), in one pass. */
export function withoutWhitespace(text: string): string {
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13)) break;
  }
  if (i === text.length) return text;
  const parts: string[] = [text.slice(0, i)];
  let start = -1;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c === 32 || (c >= 9 && c <= 13);
    if (space && start >= 0) {
      parts.push(text.slice(start, i));
      start = -1;
    } else if (!space && start < 0) start = i;
  }
  if (start >= 0) parts.push(text.slice(start));
  return parts.join('');
}
