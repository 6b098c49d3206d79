import {
  INLINE_LIMIT_BYTES,
  LOG_ID_PATTERN,
  MAX_ADDITIONAL_DATA_BYTES,
  additionalDataTooLarge,
  buildLog,
  largeLogBlobName,
  truncateUtf8,
  utf8Bytes,
  withFullValues,
  type LogInput,
} from '../../classes/LogManager/log-entry';
import { SAFE_BLOB_NAME } from '../../runtime/files/blob-store';

/** a string value whose JSON text is exactly `bytes` bytes long */
const jsonOfBytes = (bytes: number) => 'x'.repeat(bytes - 2);

const base: LogInput = {
  logId: '0b6f3c8e-5d8a-4e0f-9a59-3c1c2f7d9f10',
  timeStamp: '2024-05-01T10:00:00.000Z',
  classId: 'Member',
  entityId: 'm1',
  entityType: 'member',
  before: null,
  after: null,
  actor: { id: 'pm1', type: 'program_management_user' },
};

describe('buildLog', () => {
  test('nothing changed: no field updates', () => {
    const built = buildLog({ ...base, before: { a: 1 }, after: { a: 1 } });
    expect(built.full).toEqual([]);
    expect(built.large).toBeUndefined();
  });

  test('exactly 1024 bytes stays inline; 1025 goes to the LARGE_LOG content with a prefix preview', () => {
    const v1024 = jsonOfBytes(1024);
    const v1025 = jsonOfBytes(1025);
    expect(utf8Bytes(JSON.stringify(v1024))).toBe(1024);
    const built = buildLog({ ...base, before: { small: 'a', big: 'b' }, after: { small: v1024, big: v1025 } });
    expect(built.record.isLargeLog).toBe(true);
    const [small, big] = built.record.fieldUpdates;
    expect(small).toEqual({ key: 'small', operation: 'replace', oldValue: '"a"', newValue: JSON.stringify(v1024) });
    expect(big.isLarge).toBe(true);
    expect(big.oldValue).toBe('"b"');
    expect(utf8Bytes(big.newValue!)).toBe(INLINE_LIMIT_BYTES);
    expect(JSON.stringify(v1025).startsWith(big.newValue!)).toBe(true);
    expect(built.large!.name).toBe(`LARGE_LOG_member_m1_${base.logId}.json`);
    expect(built.large!.content.fieldUpdates).toEqual([
      { key: 'big', operation: 'replace', oldValue: '"b"', newValue: JSON.stringify(v1025) },
    ]);
    expect(built.full[1].newValue).toBe(JSON.stringify(v1025));
  });

  test('a log with only small values is not large', () => {
    const built = buildLog({ ...base, after: { small: jsonOfBytes(1024) } });
    expect(built.record.isLargeLog).toBe(false);
    expect(built.record.fieldUpdates[0].isLarge).toBeUndefined();
    expect(built.large).toBeUndefined();
  });

  test('sizes count UTF-8 bytes, and previews never split a character', () => {
    // 341 three-byte characters + 2 quotes = 1025 bytes, though only 343 characters
    expect(buildLog({ ...base, after: { e: '€'.repeat(341) } }).record.isLargeLog).toBe(true);
    expect(buildLog({ ...base, after: { e: '€'.repeat(340) + 'a' } }).record.isLargeLog).toBe(false);
    const built = buildLog({ ...base, after: { e: 'ab' + '€'.repeat(341) } });
    const preview = built.record.fieldUpdates[0].newValue!;
    expect(utf8Bytes(preview)).toBe(1023);
    expect(preview).toBe('"ab' + '€'.repeat(340));
    expect(preview).not.toContain('\uFFFD');
    expect(truncateUtf8('a€b', 3)).toBe('a');
    expect(truncateUtf8('a€b', 4)).toBe('a€');
    expect(truncateUtf8('😀x', 3)).toBe('');
  });

  test('masking happens before the size check: a large secret is not large', () => {
    const built = buildLog({ ...base, after: { password: 'p'.repeat(5000), note: { token: 't'.repeat(5000) } } });
    expect(built.record.isLargeLog).toBe(false);
    expect(built.record.fieldUpdates).toEqual([
      { key: 'password', operation: 'add', newValue: '"***"' },
      { key: 'note', operation: 'add', newValue: '{"token":"***"}' },
    ]);
  });

  test('additionalData is masked too', () => {
    const built = buildLog({
      ...base,
      after: { a: 1 },
      sensitiveFields: ['phone'],
      additionalData: { request: { phone: '1', apiKey: 'k', ok: true } },
    });
    expect(built.record.additionalData).toEqual({ request: { phone: '***', apiKey: '***', ok: true } });
    const dated = buildLog({ ...base, after: { a: 1 }, additionalData: { at: new Date('2024-05-01T00:00:00Z') } });
    expect(dated.record.additionalData).toEqual({ at: '2024-05-01T00:00:00.000Z' });
  });

  test('withFullValues puts the full values back', () => {
    const big = 'y'.repeat(3000);
    const built = buildLog({ ...base, before: { big: 'old' }, after: { big, other: 1 } });
    const { record, missing } = withFullValues(built.record, built.large!.content);
    expect(missing).toEqual([]);
    expect(record.fieldUpdates).toEqual([
      { key: 'big', operation: 'replace', oldValue: '"old"', newValue: JSON.stringify(big), isLarge: true },
      { key: 'other', operation: 'add', newValue: '1' },
    ]);
    expect(withFullValues(built.record, { ...built.large!.content, fieldUpdates: [] }).missing).toEqual(['big']);
  });
});

describe('largeLogBlobName', () => {
  test('unsafe characters are replaced and long parts cut, so the name is always a safe blob name', () => {
    expect(largeLogBlobName('member profile', '../etc/passwd', 'abc-123')).toBe(
      'LARGE_LOG_member_profile____etc_passwd_abc-123.json',
    );
    const long = largeLogBlobName('t'.repeat(500), 'é'.repeat(500), '0b6f3c8e-5d8a-4e0f-9a59-3c1c2f7d9f10');
    expect(long.length).toBeLessThanOrEqual(255);
    expect(SAFE_BLOB_NAME.test(long)).toBe(true);
    expect(long).not.toContain('..');
  });
});

describe('additionalDataTooLarge', () => {
  /** an object whose JSON text is exactly `bytes` bytes long ({"x":"..."} is 8 bytes around the string) */
  const ofBytes = (bytes: number) => ({ x: 'a'.repeat(bytes - 8) });

  test('up to 16 KB of JSON is accepted, one byte more is not; absent is fine', () => {
    expect(JSON.stringify(ofBytes(MAX_ADDITIONAL_DATA_BYTES)).length).toBe(MAX_ADDITIONAL_DATA_BYTES);
    expect(additionalDataTooLarge(ofBytes(MAX_ADDITIONAL_DATA_BYTES))).toBe(false);
    expect(additionalDataTooLarge(ofBytes(MAX_ADDITIONAL_DATA_BYTES + 1))).toBe(true);
    expect(additionalDataTooLarge(undefined)).toBe(false);
  });

  test('bytes are counted in UTF-8, not characters', () => {
    const chars = Math.floor((MAX_ADDITIONAL_DATA_BYTES - 8) / 2) + 1;
    expect(additionalDataTooLarge({ x: 'é'.repeat(chars) })).toBe(true);
  });
});

describe('LOG_ID_PATTERN', () => {
  test('log ids are letters, digits, _ and -, 1 to 200 characters', () => {
    expect(LOG_ID_PATTERN.test('0b6f3c8e-5d8a-4e0f-9a59-3c1c2f7d9f10')).toBe(true);
    expect(LOG_ID_PATTERN.test('a'.repeat(200))).toBe(true);
    for (const bad of ['', 'a'.repeat(201), 'a b', '../x', 'staffId!1'])
      expect([bad, LOG_ID_PATTERN.test(bad)]).toEqual([bad, false]);
  });
});
