import {
  actingActor,
  activeFile,
  checkDownloadToken,
  contentDisposition,
  DOWNLOAD_TOKEN_TTL_SECONDS,
  downloadUrl,
  enduserMayAccess,
  existingFile,
  fileDocuments,
  fileHeaders,
  fileReference,
  initInstanceId,
  instanceIdOf,
  markDeleted,
  newFileMetadata,
  parseInstanceId,
  publicUrl,
  safeDownloadName,
  storedExtension,
  storedFilename,
  type FileMetadata,
  companyOfFiles,
} from '../../classes/FileManager/rules';
import { SAFE_BLOB_NAME } from '../../runtime/files/blob-store';
import { typeByExt } from './samples';

const pm = { id: 'pm1', type: 'program_management_user' as const, roles: ['super'] };
const FILE_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const NOW = '2025-01-02T03:04:05.000Z';

function pdf(overrides: Partial<Parameters<typeof newFileMetadata>[0]> = {}): FileMetadata {
  return newFileMetadata({
    fileId: FILE_ID,
    instanceId: 'Member_m1',
    type: typeByExt('pdf'),
    size: 42,
    actor: pm,
    now: NOW,
    ...overrides,
  });
}

describe('instance ids', () => {
  test.each([
    ['Member_m1', 'Member', 'm1'],
    ['Partner_6f1c-22_a', 'Partner', '6f1c-22_a'],
    ['member_0f8fad5b-d9cb-469f-a165-70867728950e', 'member', '0f8fad5b-d9cb-469f-a165-70867728950e'],
    ['ContentManager_default', 'ContentManager', 'default'],
  ])('%s is {entityType}_{entityId}', (id, entityType, entityId) => {
    expect(parseInstanceId(id)).toEqual({ entityType, entityId });
    expect(instanceIdOf(entityType, entityId)).toBe(id);
  });

  test.each([
    'member',
    'Member_',
    '_m1',
    '1Member_m1',
    'Mem-ber_m1',
    'Member_../x',
    'Member_a.b',
    'Member_a b',
    'Member_a/b',
    'Member_-x',
    '',
    `Member_${'x'.repeat(129)}`,
  ])('%p is refused', (id) => {
    expect(parseInstanceId(id)).toBeNull();
  });
  test('undefined is refused', () => expect(parseInstanceId(undefined)).toBeNull());

  test('generated file names follow {entityType}_{entityId}_{fileId}.{ext} and are safe blob names, even at the longest', () => {
    expect(storedFilename('Member_m1', FILE_ID, 'pdf')).toBe(`Member_m1_${FILE_ID}.pdf`);
    const longest = instanceIdOf('E'.repeat(64), 'x'.repeat(128));
    expect(parseInstanceId(longest)).not.toBeNull();
    expect(SAFE_BLOB_NAME.test(storedFilename(longest, FILE_ID, 'xlsx'))).toBe(true);
  });

  test('the extension of a stored name is the part after its last dot', () => {
    expect(storedExtension(storedFilename('Member_m1', FILE_ID, 'pdf'))).toBe('pdf');
    expect(storedExtension(storedFilename('Member_m1', FILE_ID, 'docx'))).toBe('docx');
  });

  test("init's instance: the path's id, else {entityType}_{entityId} from the body, else none", () => {
    expect(initInstanceId('Member_m1', { entityType: 'Partner', entityId: 'p1' })).toBe('Member_m1');
    expect(initInstanceId(undefined, { entityType: 'Partner', entityId: 'p1' })).toBe('Partner_p1');
    for (const body of [
      undefined,
      null,
      'Partner_p1',
      {},
      { entityType: 'Partner' },
      { entityType: 'Partner', entityId: 1 },
    ]) {
      expect([body, initInstanceId(undefined, body)]).toEqual([body, undefined]);
    }
  });
});

describe('metadata record', () => {
  test('a new file has every spec 2.8 field', () => {
    const f = pdf({ originalFilename: 'contract.pdf', isPublic: true });
    expect(f).toEqual({
      id: FILE_ID,
      filename: `Member_m1_${FILE_ID}.pdf`,
      originalFilename: 'contract.pdf',
      fileType: 'document',
      mimeType: 'application/pdf',
      size: 42,
      actionHistory: [{ action: 'upload', actor: pm, timestamp: NOW }],
      createdAt: NOW,
      updatedAt: NOW,
      status: 'active',
      isPublic: true,
    });
  });

  test('defaults: private, original name = generated name', () => {
    const f = pdf();
    expect(f.isPublic).toBe(false);
    expect(f.originalFilename).toBe(f.filename);
  });

  test('the extension comes from the type, never from the original name', () => {
    const f = newFileMetadata({
      fileId: FILE_ID,
      instanceId: 'Member_m1',
      type: typeByExt('jpg'),
      size: 1,
      originalFilename: '../../evil.sh',
      actor: pm,
      now: NOW,
    });
    expect(f.filename).toBe(`Member_m1_${FILE_ID}.jpg`);
    expect(f.originalFilename).toBe('../../evil.sh');
  });

  test('delete: active → deleted, history kept and extended, a second delete is refused', () => {
    const later = '2025-02-01T00:00:00.000Z';
    const via = { id: 'Partner_p1', type: 'system' as const, name: 'class:Partner' };
    const r = markDeleted(pdf(), { id: 'u2', type: 'member' }, later, via);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({ status: 'deleted', updatedAt: later, createdAt: NOW });
    expect(r.value.actionHistory).toEqual([
      { action: 'upload', actor: pm, timestamp: NOW },
      { action: 'delete', actor: { id: 'u2', type: 'member' }, timestamp: later, via },
    ]);
    expect(markDeleted(r.value, pm, later)).toMatchObject({ ok: false, error: 'FILE_DELETED' });
  });
});

describe('file references', () => {
  const files = [pdf(), { ...pdf({ fileId: 'other' }), status: 'deleted' as const }];

  test('fileId or filename (a GET query is the input as a POST body is)', () => {
    expect(fileReference({ fileId: 'a' })).toEqual({ ok: true, value: { fileId: 'a' } });
    expect(fileReference({ filename: 'b' })).toEqual({ ok: true, value: { filename: 'b' } });
  });

  test('neither or both are refused (the schema refuses non-strings and empty strings)', () => {
    expect(fileReference({})).toMatchObject({ ok: false, error: 'INVALID_FILE_REFERENCE' });
    expect(fileReference({ fileId: 'a', filename: 'b' })).toMatchObject({
      ok: false,
      error: 'INVALID_FILE_REFERENCE',
    });
  });

  test('found by id and by exact filename only', () => {
    expect(activeFile(files, { fileId: FILE_ID })).toMatchObject({ ok: true, value: { id: FILE_ID } });
    expect(activeFile(files, { filename: `Member_m1_${FILE_ID}.pdf` })).toMatchObject({ ok: true });
    expect(activeFile(files, { filename: `../Member_m1_${FILE_ID}.pdf` })).toMatchObject({
      ok: false,
      error: 'FILE_NOT_FOUND',
    });
    expect(activeFile(files, { filename: `member_m1_${FILE_ID}.PDF` })).toMatchObject({
      ok: false,
      error: 'FILE_NOT_FOUND',
    });
    expect(activeFile(undefined, { fileId: FILE_ID })).toMatchObject({ ok: false, error: 'FILE_NOT_FOUND' });
  });

  test("a frozen list (a READ's snapshot) is searched the same, answering its own element", () => {
    const frozen = Object.freeze(files.map((f) => Object.freeze({ ...f })));
    const found = activeFile(frozen, { fileId: FILE_ID });
    expect(found.ok && found.value).toBe(frozen[0]);
    expect(existingFile(frozen, { fileId: 'other' })).toMatchObject({ ok: true, value: { status: 'deleted' } });
  });

  test('a deleted file exists but is not active', () => {
    expect(existingFile(files, { fileId: 'other' })).toMatchObject({ ok: true });
    expect(activeFile(files, { fileId: 'other' })).toMatchObject({
      ok: false,
      error: 'FILE_DELETED',
      details: { status: 'deleted' },
    });
  });
});

describe('download tokens', () => {
  const now = 1_700_000_000;
  const payload = (over: Record<string, unknown> = {}) => ({
    instanceId: 'Member_m1',
    filename: 'f.pdf',
    exp: now + 120,
    ...over,
  });

  test('a valid token grants its own file with the validity left', () => {
    expect(checkDownloadToken(payload(), 'Member_m1', 'f.pdf', now)).toEqual({
      ok: true,
      value: { filename: 'f.pdf', remainingSeconds: 120 },
    });
    expect(checkDownloadToken(payload(), 'Member_m1', undefined, now)).toMatchObject({
      ok: true,
      value: { filename: 'f.pdf' },
    });
  });

  test('remaining validity is capped at 5 minutes', () => {
    const r = checkDownloadToken(payload({ exp: now + 3600 }), 'Member_m1', 'f.pdf', now);
    expect(r).toMatchObject({ ok: true, value: { remainingSeconds: DOWNLOAD_TOKEN_TTL_SECONDS } });
    expect(DOWNLOAD_TOKEN_TTL_SECONDS).toBe(300);
  });

  test.each([
    ['no or unverifiable token', null, 'f.pdf'],
    ['another instance', payload({ instanceId: 'Member_m2' }), 'f.pdf'],
    ['another filename', payload(), 'g.pdf'],
    ['no filename in the token', payload({ filename: undefined }), undefined],
    ['expired', payload({ exp: now }), 'f.pdf'],
    ['no expiry', payload({ exp: undefined }), 'f.pdf'],
  ])('refused: %s', (_label, verified, filename) => {
    expect(checkDownloadToken(verified as Record<string, unknown> | null, 'Member_m1', filename, now)).toMatchObject({
      ok: false,
      error: 'INVALID_TOKEN',
    });
  });

  test('URLs', () => {
    expect(downloadUrl('proj', 'Member_m1', 'Member_m1_x.pdf', 'a.b+c')).toBe(
      '/proj/CALL/FileManager/downloadFile/Member_m1?filename=Member_m1_x.pdf&token=a.b%2Bc',
    );
    expect(publicUrl('proj', 'Member_m1', 'Member_m1_x.png')).toBe(
      '/proj/CALL/FileManager/getPublicFile/Member_m1?filename=Member_m1_x.png',
    );
  });
});

describe('download names and headers', () => {
  test.each([
    ['contract.pdf', 'pdf', 'contract.pdf'],
    ['../../etc/passwd', 'pdf', 'passwd.pdf'],
    ['C:\\Users\\x\\report.final.docx', 'docx', 'report.final.docx'],
    ['photo.exe', 'jpg', 'photo.jpg'],
    ['résumé 2024.pdf', 'pdf', 'résumé 2024.pdf'],
    ['a"b\r\nSet-Cookie: x=1.pdf', 'pdf', 'abSet-Cookie x=1.pdf'],
    ['.htaccess', 'txt', 'FALLBACK'],
    ['', 'txt', 'FALLBACK'],
    [undefined, 'txt', 'FALLBACK'],
    ['...', 'txt', 'FALLBACK'],
  ])('%p → %p', (original, ext, expected) => {
    expect(safeDownloadName(original, ext, 'FALLBACK')).toBe(expected);
  });

  test('names are capped', () => {
    expect(safeDownloadName(`${'a'.repeat(500)}.pdf`, 'pdf', 'F')).toBe(`${'a'.repeat(100)}.pdf`);
  });

  test('Content-Disposition: images inline, others attachment; no header injection; UTF-8 name encoded', () => {
    const file = { filename: 'Member_m1_x.pdf', originalFilename: 'résumé "x"\r\n.pdf', fileType: 'document' as const };
    const value = contentDisposition(file, 'pdf');
    expect(value).toBe(`attachment; filename="r_sum_ x.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20x.pdf`);
    expect(value).not.toMatch(/[\r\n]/);
    expect(contentDisposition({ ...file, fileType: 'image', originalFilename: 'me.png' }, 'png')).toBe(
      `inline; filename="me.png"; filename*=UTF-8''me.png`,
    );
    expect(contentDisposition({ ...file, originalFilename: '東京.pdf' }, 'pdf')).toBe(
      `attachment; filename="Member_m1_x.pdf"; filename*=UTF-8''%E6%9D%B1%E4%BA%AC.pdf`,
    );
  });

  test('file headers carry the stored type, cache policy and nosniff', () => {
    expect(fileHeaders({ ...pdf(), originalFilename: 'a.pdf' }, 'pdf', 'private, max-age=10')).toEqual({
      'content-type': 'application/pdf',
      'content-disposition': `attachment; filename="a.pdf"; filename*=UTF-8''a.pdf`,
      'cache-control': 'private, max-age=10',
      'x-content-type-options': 'nosniff',
    });
  });
});

describe('actors and ownership', () => {
  const proxied = { id: 'u7', type: 'member' as const };

  test("the caller's own actor by default", () => {
    expect(actingActor({ type: 'program_management_user', userId: 'pm1', roles: ['super'] }, undefined)).toEqual({
      ok: true,
      value: { actor: { id: 'pm1', type: 'program_management_user', roles: ['super'] } },
    });
    expect(actingActor({ type: 'enduser', userId: 'u1' }, undefined)).toMatchObject({
      ok: true,
      value: { actor: { id: 'u1', type: 'member' } },
    });
  });

  test('a proxied actor is taken from classes (and the system) only, with the class as via', () => {
    expect(actingActor({ type: 'class', classId: 'Member', instanceId: 'u7' }, proxied)).toEqual({
      ok: true,
      value: { actor: proxied, via: { id: 'u7', type: 'system', name: 'class:Member' } },
    });
    expect(actingActor({ type: 'system' }, proxied)).toMatchObject({ ok: true, value: { actor: proxied } });
    expect(actingActor({ type: 'enduser', userId: 'u1' }, proxied)).toMatchObject({
      ok: false,
      error: 'ACTOR_NOT_ALLOWED',
    });
    expect(actingActor({ type: 'program_management_user', userId: 'pm1' }, proxied)).toMatchObject({
      ok: false,
      error: 'ACTOR_NOT_ALLOWED',
    });
  });

  test('an enduser reaches only its own entity', () => {
    expect(enduserMayAccess({ type: 'enduser', userId: 'm1' }, 'm1')).toBe(true);
    expect(enduserMayAccess({ type: 'enduser', userId: 'm1' }, 'm2')).toBe(false);
    expect(enduserMayAccess({ type: 'enduser' }, 'm1')).toBe(false);
    expect(enduserMayAccess({ type: 'program_management_user', userId: 'x' }, 'm1')).toBe(true);
    expect(enduserMayAccess({ type: 'class', classId: 'Member' }, 'm1')).toBe(true);
  });
});

describe('streaming', () => {
  test('one document per file, with the instance and entity', () => {
    const a = pdf();
    const b = { ...pdf({ fileId: 'f2' }), status: 'deleted' as const };
    expect(fileDocuments({ entityType: 'Member', entityId: 'm1', files: [a, b] }, 'Member_m1')).toEqual([
      {
        collection: 'files',
        id: FILE_ID,
        doc: { ...a, instanceId: 'Member_m1', entityType: 'Member', entityId: 'm1', companyId: null },
      },
      {
        collection: 'files',
        id: 'f2',
        doc: { ...b, instanceId: 'Member_m1', entityType: 'Member', entityId: 'm1', companyId: null },
      },
    ]);
    // the company scope's field: the company the entity's files belong to
    expect(
      fileDocuments({ entityType: 'Member', entityId: 'm1', companyId: 'c-1', files: [a] }, 'Member_m1')[0]!.doc
        .companyId,
    ).toBe('c-1');
    expect(fileDocuments({}, 'Member_m1')).toEqual([]);
  });
});

describe("companyOfFiles (company scope of an entity's files)", () => {
  test('the class storing the files names the company, and moves them with its entity', () => {
    expect(companyOfFiles(undefined, 'c-1', true)).toEqual({ ok: true, value: 'c-1' });
    expect(companyOfFiles('c-1', 'c-1', true)).toEqual({ ok: true, value: 'c-1' });
    expect(companyOfFiles('c-1', undefined, true)).toEqual({ ok: true, value: 'c-1' });
    // a member moved to another company by the HR system: its next upload moves its files
    expect(companyOfFiles('c-1', 'c-2', true)).toEqual({ ok: true, value: 'c-2' });
  });

  test('a user names no company: its claim proves nothing about the entity', () => {
    expect(companyOfFiles(undefined, 'c-1', false)).toMatchObject({ ok: false, error: 'ENTITY_MISMATCH' });
    expect(companyOfFiles('c-1', 'c-1', false)).toMatchObject({ ok: false, error: 'ENTITY_MISMATCH' });
    expect(companyOfFiles(undefined, undefined, false)).toEqual({ ok: true, value: undefined });
    expect(companyOfFiles('c-1', undefined, false)).toEqual({ ok: true, value: 'c-1' });
  });
});
