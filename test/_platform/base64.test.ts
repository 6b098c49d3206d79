/**
 * _platform/base64.ts: Base64 checked by a loop, not a regular expression
 * (a regexp over millions of characters threw "Maximum call stack size
 * exceeded" inside createContent now and then).
 */
import { isBase64Text, withoutWhitespace } from '../../classes/_platform/base64';

describe('isBase64Text', () => {
  test.each([
    ['QQ==', true],
    ['QUI=', true],
    ['QUJD', true],
    ['ab+/09AZ', true],
    ['', false],
    ['==', false],
    ['QQ===', false],
    ['Q=Q=', false],
    ['QUJD-_', false],
    ['QU JD', false],
    ['QUJD\n', false],
    ['é', false],
  ])('%j → %s', (text, ok) => {
    expect(isBase64Text(text)).toBe(ok);
  });

  test('a 40 MB image is checked, and one bad character at its end is found', () => {
    const big = Buffer.alloc(40 * 1024 * 1024, 7).toString('base64');
    expect(isBase64Text(big)).toBe(true);
    expect(isBase64Text(`${big.slice(0, -1)}*`)).toBe(false);
  });
});

describe('withoutWhitespace', () => {
  test.each([
    ['', ''],
    ['abc', 'abc'],
    [' a b\tc\r\n', 'abc'],
    ['\n\nQUJD\nRUZH\n', 'QUJDRUZH'],
    ['a\u00a0b', 'a\u00a0b'], // only ASCII whitespace, as Base64 line breaks are
  ])('%j → %j', (text, out) => {
    expect(withoutWhitespace(text)).toBe(out);
  });

  test('text without whitespace is answered as it is', () => {
    const s = 'QUJD'.repeat(1000);
    expect(withoutWhitespace(s)).toBe(s);
  });
});
