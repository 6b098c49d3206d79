import {
  ALLOWED_EXTENSIONS,
  base64DecodedLength,
  checkContent,
  checkUpload,
  classify,
  decodeBase64Strict,
  FILE_TYPES,
  MB,
  SIZE_LIMITS,
  sniff,
  typeForExtension,
  typeForMimeType,
} from '../../classes/_platform/file-types';
import { sample, typeByExt } from './samples';

describe('spec 8 types and limits', () => {
  test('limits are 5 MB for images and JSON and 10 MB for documents, in bytes', () => {
    expect(SIZE_LIMITS).toEqual({ image: 5 * 1024 * 1024, json: 5 * 1024 * 1024, document: 10 * 1024 * 1024 });
  });

  test.each([
    ['image/jpeg', 'jpg', 'image'],
    ['image/jpg', 'jpg', 'image'],
    ['image/png', 'png', 'image'],
    ['image/gif', 'gif', 'image'],
    ['image/webp', 'webp', 'image'],
    ['application/json', 'json', 'json'],
    ['text/json', 'json', 'json'],
    ['application/pdf', 'pdf', 'document'],
    ['application/msword', 'doc', 'document'],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx', 'document'],
    ['application/vnd.ms-excel', 'xls', 'document'],
    ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx', 'document'],
    ['text/plain', 'txt', 'document'],
    ['text/csv', 'csv', 'document'],
    ['Text/Plain; charset=UTF-8', 'txt', 'document'],
  ])('mime type %s is a %s (%s)', (mime, ext, fileType) => {
    expect(typeForMimeType(mime)).toMatchObject({ ext, fileType });
    expect(classify(mime)).toMatchObject({ ext, fileType });
  });

  test.each([
    ['jpg', 'jpg'],
    ['jpeg', 'jpg'],
    ['.JPEG', 'jpg'],
    ['png', 'png'],
    ['gif', 'gif'],
    ['webp', 'webp'],
    ['json', 'json'],
    ['pdf', 'pdf'],
    ['doc', 'doc'],
    ['docx', 'docx'],
    ['xls', 'xls'],
    ['xlsx', 'xlsx'],
    ['txt', 'txt'],
    ['CSV', 'csv'],
  ])('extension %s classifies as %s', (given, ext) => {
    expect(typeForExtension(given)?.ext).toBe(ext);
    expect(classify(given)?.ext).toBe(ext);
  });

  test.each([
    'image/svg+xml',
    'text/html',
    'application/octet-stream',
    'application/x-msdownload',
    'image/bmp',
    'svg',
    'exe',
    'html',
    '',
    '/',
  ])('%p is not an allowed type', (declared) => {
    expect(classify(declared)).toBeNull();
  });

  test('the allowed extensions are exactly those of spec 8', () => {
    expect([...ALLOWED_EXTENSIONS].sort()).toEqual(
      ['jpeg', 'jpg', 'png', 'gif', 'webp', 'json', 'pdf', 'doc', 'docx', 'xls', 'xlsx', 'txt', 'csv'].sort(),
    );
  });
});

describe('strict Base64', () => {
  test.each([
    ['', ''],
    ['QQ==', 'A'],
    ['QUI=', 'AB'],
    ['QUJD', 'ABC'],
    ['+/+/', Buffer.from([0xfb, 0xff, 0xbf]).toString('latin1')],
  ])('%p decodes', (text, expected) => {
    const r = decodeBase64Strict(text);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.data.toString('latin1')).toBe(expected);
  });

  test('round-trips random binary data of every length up to 64 bytes', () => {
    for (let n = 0; n <= 64; n++) {
      const data = Buffer.from(Array.from({ length: n }, (_, i) => (i * 37 + n) % 256));
      const r = decodeBase64Strict(data.toString('base64'));
      expect(r.ok && r.data.equals(data)).toBe(true);
      expect(base64DecodedLength(data.toString('base64'))).toBe(n);
    }
  });

  test.each([
    ['QQ', 'missing padding'],
    ['QUI', 'missing padding'],
    ['QQ===', 'extra padding'],
    ['Q===', 'three padding characters'],
    ['QQ==QQ==', 'padding in the middle'],
    ['QR==', 'non-zero padding bits'],
    ['QUJ=', 'non-zero padding bits'],
    ['QU I=', 'a space'],
    ['QUJD\n', 'a newline'],
    ['QUJD\r\nQUJD', 'a line break'],
    ['-_-_', 'URL-safe alphabet'],
    ['QUJ*', 'a symbol'],
    ['QUJDé===', 'a non-ASCII character'],
    ['data:image/png;base64,iVBORw0KGgo=', 'a data URL'],
  ])('%p is refused (%s), though Node decodes it leniently', (text) => {
    expect(decodeBase64Strict(text).ok).toBe(false);
  });
});

describe('content checks (magic bytes)', () => {
  test.each(FILE_TYPES.map((t) => [t.ext, t]))('valid %s content passes', (_ext, type) => {
    expect(checkContent(type, sample(type, 4096))).toEqual({ ok: true });
  });

  const wrong: Array<[string, Buffer]> = [
    ['jpg', Buffer.from([0xff, 0xd8, 0xfe, 0x00])],
    ['jpg', Buffer.from([0xff, 0xd8])],
    ['png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0b, 0])],
    ['png', Buffer.from([0x89, 0x50, 0x4e, 0x47])],
    ['gif', Buffer.from('GIF88a\0\0', 'latin1')],
    ['gif', Buffer.from('gif89a\0\0', 'latin1')],
    ['webp', Buffer.from('RIFF\0\0\0\0WEBQ', 'latin1')],
    ['webp', Buffer.from('RIFX\0\0\0\0WEBP', 'latin1')],
    ['webp', Buffer.from('RIFF\0\0\0\0WAVE', 'latin1')],
    ['pdf', Buffer.from('%PDF 1.4', 'latin1')],
    ['pdf', Buffer.from('PDF-1.4', 'latin1')],
    ['doc', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe0])],
    ['xls', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0])],
    ['docx', Buffer.from([0x50, 0x4b, 0x05, 0x06, 0, 0])],
    ['xlsx', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])],
  ];
  test.each(wrong)('%s with wrong magic bytes %#', (ext, data) => {
    const r = checkContent(typeByExt(ext), data);
    expect(r.ok).toBe(false);
  });

  test.each(FILE_TYPES.filter((t) => !['json', 'text'].includes(t.content)).map((t) => [t.ext, t]))(
    '%s refuses the content of every other binary type',
    (_ext, type) => {
      for (const other of FILE_TYPES) {
        if (other.content === type.content || other.content === 'json' || other.content === 'text') continue;
        expect(checkContent(type, sample(other, 64)).ok).toBe(false);
      }
      expect(checkContent(type, sample('txt', 64)).ok).toBe(false);
    },
  );

  test('a mismatch says what the content looks like', () => {
    const r = checkContent(typeByExt('jpg'), sample('png', 64));
    expect(r).toEqual({ ok: false, reason: expect.stringContaining('looks like png') });
    expect(sniff(sample('pdf', 16))).toBe('pdf');
    expect(sniff(Buffer.from('hello'))).toBeNull();
  });

  test('JSON must parse as UTF-8 JSON (a BOM is allowed)', () => {
    const json = typeByExt('json');
    expect(checkContent(json, Buffer.from('{"a":[1,2,{"b":null}]}')).ok).toBe(true);
    expect(checkContent(json, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')])).ok).toBe(true);
    expect(checkContent(json, Buffer.from('{"a":')).ok).toBe(false);
    expect(checkContent(json, Buffer.from("{'a':1}")).ok).toBe(false);
    expect(checkContent(json, Buffer.from([0x22, 0xc3, 0x28, 0x22])).ok).toBe(false);
    expect(checkContent(json, sample('png', 32)).ok).toBe(false);
  });

  test('text and CSV must be UTF-8 without NUL bytes', () => {
    for (const ext of ['txt', 'csv']) {
      const t = typeByExt(ext);
      expect(checkContent(t, Buffer.from('naïve, café, 東京\n', 'utf8')).ok).toBe(true);
      expect(checkContent(t, Buffer.from('a\0b')).ok).toBe(false);
      expect(checkContent(t, Buffer.from([0x61, 0xc3, 0x28])).ok).toBe(false);
      expect(checkContent(t, Buffer.from([0xed, 0xa0, 0x80])).ok).toBe(false); // UTF-16 surrogate
      expect(checkContent(t, sample('pdf', 32)).ok).toBe(false);
    }
  });
});

describe('checkUpload: each type at exactly its limit and one byte over', () => {
  test.each(FILE_TYPES.map((t) => [t.ext, t.mimeType, t]))('%s (%s)', (_ext, mimeType, type) => {
    const atLimit = sample(type, type.maxBytes);
    expect(atLimit.length).toBe(type.fileType === 'document' ? 10 * MB : 5 * MB);
    const ok = checkUpload({ content: atLimit.toString('base64'), mimeType });
    expect(ok.ok).toBe(true);
    if (ok.ok) {
      expect(ok.data.length).toBe(type.maxBytes);
      expect(ok.type.ext).toBe(type.ext);
    }
    const over = checkUpload({ content: sample(type, type.maxBytes + 1).toString('base64'), mimeType });
    expect(over).toMatchObject({
      ok: false,
      error: 'FILE_TOO_LARGE',
      details: { size: type.maxBytes + 1, maxBytes: type.maxBytes },
    });
  });

  test('mime aliases share the canonical limit (text/json, image/jpg)', () => {
    expect(checkUpload({ content: sample('json', 5 * MB).toString('base64'), mimeType: 'text/json' }).ok).toBe(true);
    expect(checkUpload({ content: sample('jpg', 5 * MB + 1).toString('base64'), mimeType: 'image/jpg' })).toMatchObject(
      {
        error: 'FILE_TOO_LARGE',
      },
    );
  });
});

describe('checkUpload: order of the rules', () => {
  const png = sample('png', 100).toString('base64');
  test('an unsupported type is refused first', () => {
    expect(checkUpload({ content: '!!!', mimeType: 'image/svg+xml' })).toMatchObject({
      ok: false,
      error: 'UNSUPPORTED_TYPE',
    });
  });
  test('then invalid Base64', () => {
    expect(checkUpload({ content: png.slice(0, -1), mimeType: 'image/png' })).toMatchObject({
      ok: false,
      error: 'INVALID_BASE64',
    });
    expect(checkUpload({ content: `${png.slice(0, 8)}\n${png.slice(8)}`, mimeType: 'image/png' })).toMatchObject({
      error: 'INVALID_BASE64',
    });
  });
  test('then empty content', () => {
    expect(checkUpload({ content: '', mimeType: 'image/png' })).toMatchObject({ ok: false, error: 'EMPTY_FILE' });
  });
  test('then the content type', () => {
    expect(checkUpload({ content: png, mimeType: 'image/gif' })).toMatchObject({
      ok: false,
      error: 'CONTENT_MISMATCH',
    });
    expect(checkUpload({ content: png, mimeType: 'image/png' })).toMatchObject({ ok: true });
  });
});
