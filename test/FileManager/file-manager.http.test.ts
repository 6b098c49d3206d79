/**
 * FileManager through real HTTP: uploads and their checks, getFile, signed
 * downloads, public files, deletion, access rules, class proxies, streaming
 * and file store failures.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Signer } from '../../runtime/auth/signer';
import { TEST_JWT_SECRET, waitFor } from '../support/harness';
import { DOWNLOAD_TOKEN_PURPOSE, downloadTokenPayload } from '../../classes/FileManager/rules';
import { sample } from './samples';
import { fetchBytes, startFileRuntime, UUID, type FileTestRuntime } from './support';

let t: FileTestRuntime;
const signer = new Signer(TEST_JWT_SECRET);

beforeAll(async () => {
  t = await startFileRuntime();
});
afterAll(() => t.stop());

const png = sample('png', 2048);
const pdf = sample('pdf', 3000);

async function upload(instanceId: string, body: Record<string, unknown>, headers = t.pm) {
  return t.call('uploadFile', instanceId, body, headers);
}

async function uploadOk(instanceId: string, data: Buffer, mimeType: string, extra: Record<string, unknown> = {}) {
  const r = await upload(instanceId, { content: data.toString('base64'), mimeType, ...extra });
  expect(r.status).toBe(200);
  return r.body as { file: any; download: { token: string; url: string; expiresAt: string }; publicUrl?: string };
}

function download(instanceId: string, query: Record<string, string>) {
  return fetchBytes(`${t.base}${t.path('downloadFile', instanceId)}?${new URLSearchParams(query).toString()}`);
}

describe('uploadFile', () => {
  test('the first upload creates the instance; metadata has every spec field and a generated name', async () => {
    const before = Date.now();
    const r = await uploadOk('Member_up1', png, 'image/png', { originalFilename: 'me.png' });
    const f = r.file;
    expect(f).toEqual({
      id: expect.stringMatching(new RegExp(`^${UUID}$`)),
      filename: expect.stringMatching(new RegExp(`^Member_up1_${UUID}\\.png$`)),
      originalFilename: 'me.png',
      fileType: 'image',
      mimeType: 'image/png',
      size: png.length,
      actionHistory: [
        {
          action: 'upload',
          actor: { id: 'pm1', type: 'program_management_user', roles: ['super'] },
          timestamp: f.createdAt,
        },
      ],
      createdAt: expect.any(String),
      updatedAt: f.createdAt,
      status: 'active',
      isPublic: false,
    });
    expect(f.filename).toBe(`Member_up1_${f.id}.png`);
    expect(Date.parse(f.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(r.publicUrl).toBeUndefined();
    // a 5-minute link of the documented form
    expect(r.download.url).toBe(
      `/${t.projectId}/CALL/FileManager/downloadFile/Member_up1?filename=${f.filename}&token=${encodeURIComponent(r.download.token)}`,
    );
    const ttl = (Date.parse(r.download.expiresAt) - Date.now()) / 1000;
    expect(ttl).toBeGreaterThan(290);
    expect(ttl).toBeLessThanOrEqual(301);
    // the content is in the store under the generated name
    const blob = await t.rt.ports.blobs.get(f.filename);
    expect(blob!.data.equals(png)).toBe(true);
    expect(blob!.info.contentType).toBe('image/png');
  });

  test('each upload of an instance gets its own id and name', async () => {
    const a = await uploadOk('Member_up2', pdf, 'application/pdf');
    const b = await uploadOk('Member_up2', pdf, 'application/pdf');
    expect(a.file.id).not.toBe(b.file.id);
    expect(a.file.filename).not.toBe(b.file.filename);
  });

  test('aliases are stored with the canonical mime type; JSON is a json file', async () => {
    const r = await uploadOk('Member_up3', Buffer.from('{"hello":"world"}'), 'text/json');
    expect(r.file).toMatchObject({
      fileType: 'json',
      mimeType: 'application/json',
      filename: expect.stringMatching(/\.json$/),
    });
    const j = await uploadOk('Member_up3', sample('jpg', 100), 'image/jpg');
    expect(j.file).toMatchObject({
      fileType: 'image',
      mimeType: 'image/jpeg',
      filename: expect.stringMatching(/\.jpg$/),
    });
  });

  test('wrong magic bytes are refused with CONTENT_MISMATCH and nothing is stored', async () => {
    const put = jest.spyOn(t.rt.ports.blobs, 'put');
    try {
      const r = await upload('Member_bad1', { content: png.toString('base64'), mimeType: 'image/jpeg' });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 13004, classId: 'FileManager', details: { declared: 'image/jpeg' } });
      expect(r.body.details.reason).toMatch(/png/);
      const p = await upload('Member_bad1', { content: png.toString('base64'), mimeType: 'application/pdf' });
      expect(p.body.code).toBe(13004);
      expect(put).not.toHaveBeenCalled();
    } finally {
      put.mockRestore();
    }
    // the refused upserts created no instance
    const g = await t.call('getFile', 'Member_bad1', { fileId: 'x' });
    expect(g.status).toBe(500);
    expect(g.body).toEqual({ message: expect.stringContaining("No instance with id 'Member_bad1'") });
  });

  test.each([
    ['a line break', `${png.toString('base64').slice(0, 12)}\n${png.toString('base64').slice(12)}`],
    ['missing padding', pdf.subarray(0, 10).toString('base64').replace(/=+$/, '')],
    ['URL-safe characters', png.toString('base64url')],
    ['a data URL', `data:image/png;base64,${png.toString('base64')}`],
  ])('invalid Base64 (%s) is refused with INVALID_BASE64', async (_label, content) => {
    const r = await upload('Member_b64', { content, mimeType: 'image/png' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 13002, classId: 'FileManager' });
  });

  test('unsupported types are refused with UNSUPPORTED_TYPE', async () => {
    for (const mimeType of ['image/svg+xml', 'text/html', 'application/octet-stream']) {
      const r = await upload('Member_type', { content: Buffer.from('<svg/>').toString('base64'), mimeType });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        code: 13001,
        details: { allowedExtensions: expect.arrayContaining(['jpg', 'pdf', 'csv']) },
      });
    }
  });

  test('input that breaks the schema is a 400 with field details, never a 500', async () => {
    const r = await upload('Member_schema', { mimeType: 'image/png', isPublic: 'yes', extra: 1 });
    expect(r.status).toBe(400);
    expect(r.body.details.errors).toEqual(
      expect.arrayContaining([
        { field: 'content', reason: 'is required' },
        { field: 'isPublic', reason: expect.any(String) },
        { field: 'extra', reason: 'is not allowed' },
      ]),
    );
    const empty = await upload('Member_schema', { content: '', mimeType: 'image/png' });
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe(13005);
  });

  test('instance ids must be {entityType}_{entityId}; a refused id creates nothing', async () => {
    for (const id of ['member', 'Member_a.b', 'Mem-ber_1', 'Member_-x']) {
      const r = await upload(id, { content: png.toString('base64'), mimeType: 'image/png' });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(13000);
    }
    expect(await t.rt.store.exists('FileManager', 'member')).toBe(false);
  });

  test('a file store failure is FILE_STORE_ERROR with the inner message, and no metadata is committed', async () => {
    await uploadOk('Member_fail', pdf, 'application/pdf');
    const put = jest
      .spyOn(t.rt.ports.blobs, 'put')
      .mockRejectedValueOnce(Object.assign(new Error('disk full'), { code: 'ENOSPC' }));
    try {
      const r = await upload('Member_fail', { content: png.toString('base64'), mimeType: 'image/png' });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({
        code: 13014,
        message: expect.stringContaining('file store'),
        classId: 'FileManager',
        details: { message: 'disk full', code: 'ENOSPC', name: 'Error' },
      });
    } finally {
      put.mockRestore();
    }
    const state = await t.post(
      `/${t.projectId}/CALL/FileClient/forward`,
      { method: 'getState', instanceId: 'Member_fail' },
      t.pm,
    );
    expect(state.body.body.files).toHaveLength(1);
  });
});

describe('getFile', () => {
  let file: any;
  beforeAll(async () => {
    file = (await uploadOk('Member_get', pdf, 'application/pdf', { originalFilename: 'contract.pdf' })).file;
  });

  test('by fileId (POST body): Base64 content and metadata, not cached', async () => {
    const r = await t.call('getFile', 'Member_get', { fileId: file.id });
    expect(r.status).toBe(200);
    expect(r.body.file).toEqual(file);
    expect(Buffer.from(r.body.content, 'base64').equals(pdf)).toBe(true);
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  test('by filename (GET query)', async () => {
    const r = await t.get(`${t.path('getFile', 'Member_get')}?filename=${file.filename}`, t.pm);
    expect(r.status).toBe(200);
    expect(r.body.file.id).toBe(file.id);
    expect(Buffer.from(r.body.content, 'base64').equals(pdf)).toBe(true);
  });

  test('unknown id or filename is 404; neither or both is 400', async () => {
    expect((await t.call('getFile', 'Member_get', { fileId: 'nope' })).body).toMatchObject({ code: 13007 });
    expect((await t.call('getFile', 'Member_get', { filename: 'nope.pdf' })).status).toBe(404);
    expect((await t.call('getFile', 'Member_get', {})).body).toMatchObject({ code: 13006 });
    expect((await t.call('getFile', 'Member_get', { fileId: file.id, filename: file.filename })).status).toBe(400);
  });

  test('a level-10 role needs the permission; end users may not read content directly', async () => {
    const reader = { authorization: `Bearer ${t.token('program_management_user', 'pm2', ['reader'])}` };
    expect((await t.call('getFile', 'Member_get', { fileId: file.id }, reader)).status).toBe(200);
    const up = await upload('Member_get', { content: pdf.toString('base64'), mimeType: 'application/pdf' }, reader);
    expect(up.status).toBe(403);
    expect(up.body.code).toBe(1008);
    const enduser = { authorization: `Bearer ${t.token('enduser', 'get')}` };
    expect((await t.call('getFile', 'Member_get', { fileId: file.id }, enduser)).status).toBe(403);
    expect((await t.get(`${t.path('getFile', 'Member_get')}?fileId=${file.id}`)).status).toBe(401);
  });
});

describe('downloadFile (signed, 5 minutes, no role check)', () => {
  let a: Awaited<ReturnType<typeof uploadOk>>;
  let b: Awaited<ReturnType<typeof uploadOk>>;
  beforeAll(async () => {
    a = await uploadOk('Member_dl', pdf, 'application/pdf', { originalFilename: 'Annual report.pdf' });
    b = await uploadOk('Member_dl', png, 'image/png', { originalFilename: 'photo.png' });
  });

  test('the URL from the upload downloads the raw bytes without authentication', async () => {
    const r = await fetchBytes(t.base + a.download.url);
    expect(r.status).toBe(200);
    expect(r.data.equals(pdf)).toBe(true);
    expect(r.headers.get('content-type')).toBe('application/pdf');
    expect(r.headers.get('content-disposition')).toBe(
      `attachment; filename="Annual report.pdf"; filename*=UTF-8''Annual%20report.pdf`,
    );
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    const cache = /^private, max-age=(\d+)$/.exec(r.headers.get('cache-control') ?? '');
    expect(cache).not.toBeNull();
    expect(Number(cache![1])).toBeGreaterThan(0);
    expect(Number(cache![1])).toBeLessThanOrEqual(300);
  });

  test('images are served inline; the token may come in a POST body', async () => {
    const r = await t.post(t.path('downloadFile', 'Member_dl'), { token: b.download.token, filename: b.file.filename });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(r.headers.get('content-disposition')).toMatch(/^inline; filename="photo.png"/);
  });

  test('cache max-age never exceeds the remaining validity of the token', async () => {
    // a 60 s token, well under the 300 s other tokens get: max-age follows the token, not a fixed value;
    // the lower bound leaves the request 10 s, so a loaded machine does not fail it
    const token = signer.sign(DOWNLOAD_TOKEN_PURPOSE, downloadTokenPayload('Member_dl', a.file.filename), 60);
    const r = await download('Member_dl', { filename: a.file.filename, token });
    expect(r.status).toBe(200);
    const maxAge = Number(/max-age=(\d+)/.exec(r.headers.get('cache-control')!)![1]);
    expect(maxAge).toBeLessThanOrEqual(60);
    expect(maxAge).toBeGreaterThanOrEqual(50);
  });

  test('an expired token is refused with 403', async () => {
    const expired = signer.sign(DOWNLOAD_TOKEN_PURPOSE, downloadTokenPayload('Member_dl', a.file.filename), -5);
    const r = await download('Member_dl', { filename: a.file.filename, token: expired });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ code: 13009, classId: 'FileManager' });
  });

  test('a tampered token is refused with 403', async () => {
    const token = a.download.token;
    const [h, p, s] = token.split('.');
    const flipped = `${h}.${p}.${s!.slice(0, -2)}${s!.endsWith('AA') ? 'BB' : 'AA'}`;
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, filename: b.file.filename })).toString('base64url')}.${s}`;
    for (const bad of [flipped, forged, `${token}x`, 'not-a-token']) {
      const r = await download('Member_dl', { filename: a.file.filename, token: bad });
      expect(r.status).toBe(403);
      expect(r.json.code).toBe(13009);
    }
    const forgedB = await download('Member_dl', { filename: b.file.filename, token: forged });
    expect(forgedB.status).toBe(403);
  });

  test('a token for another filename, instance or purpose is refused; so is a login token', async () => {
    const other = await download('Member_dl', { filename: b.file.filename, token: a.download.token });
    expect(other.status).toBe(403);
    expect(other.json.code).toBe(13009);
    const elsewhere = await uploadOk('Member_dl2', pdf, 'application/pdf');
    const cross = await download('Member_dl', { filename: elsewhere.file.filename, token: elsewhere.download.token });
    expect(cross.status).toBe(403);
    const invite = signer.sign('invitation', downloadTokenPayload('Member_dl', a.file.filename), 60);
    expect((await download('Member_dl', { filename: a.file.filename, token: invite })).status).toBe(403);
    const login = t.token('program_management_user', 'pm1', ['super']);
    expect((await download('Member_dl', { filename: a.file.filename, token: login })).status).toBe(403);
  });

  test('no token at all is 403; bearer credentials do not replace it', async () => {
    const r = await fetchBytes(`${t.base}${t.path('downloadFile', 'Member_dl')}?filename=${a.file.filename}`, t.pm);
    expect(r.status).toBe(403);
    expect(r.json.code).toBe(13009);
  });

  test('without a filename parameter the token names the file', async () => {
    const r = await download('Member_dl', { token: b.download.token });
    expect(r.status).toBe(200);
    expect(r.data.equals(png)).toBe(true);
  });
});

describe('createDownloadToken', () => {
  test('returns {token, url, expiresAt} for a file, by id or filename', async () => {
    const { file } = await uploadOk('Member_tok', pdf, 'application/pdf');
    const r = await t.call('createDownloadToken', 'Member_tok', { fileId: file.id });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['expiresAt', 'token', 'url']);
    expect(r.body.url).toContain(`/downloadFile/Member_tok?filename=${file.filename}&token=`);
    const got = await fetchBytes(t.base + r.body.url);
    expect(got.status).toBe(200);
    expect(got.data.equals(pdf)).toBe(true);
    const byName = await t.get(`${t.path('createDownloadToken', 'Member_tok')}?filename=${file.filename}`, t.pm);
    expect(byName.status).toBe(200);
    expect((await t.call('createDownloadToken', 'Member_tok', { fileId: 'missing' })).status).toBe(404);
  });

  test('an end user gets links for its own entity only', async () => {
    const own = { authorization: `Bearer ${t.token('enduser', 'u5')}` };
    const { file } = await uploadOk('Member_u5', pdf, 'application/pdf');
    const r = await t.call('createDownloadToken', 'Member_u5', { fileId: file.id }, own);
    expect(r.status).toBe(200);
    const stranger = { authorization: `Bearer ${t.token('enduser', 'u6')}` };
    const s = await t.call('createDownloadToken', 'Member_u5', { fileId: file.id }, stranger);
    expect(s.status).toBe(403);
    expect(s.body.code).toBe(13012);
  });
});

describe('getPublicFile', () => {
  test('a non-public file is 403 NOT_PUBLIC', async () => {
    const { file } = await uploadOk('Content_pub', png, 'image/png');
    const r = await fetchBytes(`${t.base}${t.path('getPublicFile', 'Content_pub')}?filename=${file.filename}`);
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ code: 13010, classId: 'FileManager' });
  });

  test('a public file is served without authentication with a 30-minute public cache', async () => {
    const up = await uploadOk('Content_pub', png, 'image/png', { isPublic: true, originalFilename: 'banner.png' });
    expect(up.file.isPublic).toBe(true);
    expect(up.publicUrl).toBe(
      `/${t.projectId}/CALL/FileManager/getPublicFile/Content_pub?filename=${up.file.filename}`,
    );
    const r = await fetchBytes(t.base + up.publicUrl!);
    expect(r.status).toBe(200);
    expect(r.data.equals(png)).toBe(true);
    expect(r.headers.get('cache-control')).toBe('public, max-age=1800');
    expect(r.headers.get('content-type')).toBe('image/png');
    const viaPost = await t.post(t.path('getPublicFile', 'Content_pub'), { filename: up.file.filename });
    expect(viaPost.status).toBe(200);
  });

  test('unknown or missing filenames', async () => {
    expect(
      (await fetchBytes(`${t.base}${t.path('getPublicFile', 'Content_pub')}?filename=none.png`)).json,
    ).toMatchObject({ code: 13007 });
    expect((await fetchBytes(`${t.base}${t.path('getPublicFile', 'Content_pub')}`)).json).toMatchObject({
      code: 13006,
    });
  });
});

describe('deleteFile', () => {
  test('active → deleted: history kept, downloads stop, content purged, the projection follows', async () => {
    const up = await uploadOk('Member_del', pdf, 'application/pdf', { isPublic: true });
    const { file } = up;
    const r = await t.call('deleteFile', 'Member_del', { filename: file.filename });
    expect(r.status).toBe(200);
    expect(r.body.file).toMatchObject({ id: file.id, status: 'deleted', createdAt: file.createdAt });
    expect(r.body.file.actionHistory).toEqual([
      file.actionHistory[0],
      {
        action: 'delete',
        actor: { id: 'pm1', type: 'program_management_user', roles: ['super'] },
        timestamp: r.body.file.updatedAt,
      },
    ]);
    // a token minted before the delete no longer downloads
    const dl = await fetchBytes(t.base + up.download.url);
    expect(dl.status).toBe(404);
    expect(dl.json.code).toBe(13008);
    expect((await fetchBytes(t.base + up.publicUrl!)).status).toBe(404);
    const g = await t.call('getFile', 'Member_del', { fileId: file.id });
    expect(g.status).toBe(404);
    expect(g.body).toMatchObject({ code: 13008, details: { status: 'deleted' } });
    expect((await t.call('createDownloadToken', 'Member_del', { fileId: file.id })).status).toBe(404);
    const again = await t.call('deleteFile', 'Member_del', { fileId: file.id });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe(13008);
    // content is removed after the commit; the metadata and its history stay
    await waitFor(async () => (await t.rt.ports.blobs.stat(file.filename)) === null, { what: 'content purge' });
    const doc = await waitFor(async () => {
      const d = await t.rt.documents.get('files', file.id);
      return d?.status === 'deleted' ? d : undefined;
    });
    expect(doc).toMatchObject({
      instanceId: 'Member_del',
      entityType: 'Member',
      entityId: 'del',
      filename: file.filename,
    });
    expect((doc!.actionHistory as unknown[]).map((h: any) => h.action)).toEqual(['upload', 'delete']);
  });

  test('unknown files are 404; deleting needs a reference', async () => {
    await uploadOk('Member_del2', pdf, 'application/pdf');
    expect((await t.call('deleteFile', 'Member_del2', { fileId: 'missing' })).body).toMatchObject({ code: 13007 });
    expect((await t.call('deleteFile', 'Member_del2', {})).body).toMatchObject({ code: 13006 });
  });
});

describe('actors and class callers', () => {
  const forward = (method: string, instanceId: string, body: unknown, headers = t.pm) =>
    t.post(`/${t.projectId}/CALL/FileClient/forward`, { method, instanceId, body }, headers);

  test('a class may upload and delete on behalf of a user; the class is recorded as via', async () => {
    const actor = { id: 'm77', type: 'member' };
    const up = await forward('uploadFile', 'Member_m77', {
      content: pdf.toString('base64'),
      mimeType: 'application/pdf',
      actor,
    });
    expect(up.status).toBe(200);
    const file = up.body.body.file;
    expect(file.actionHistory[0]).toMatchObject({
      action: 'upload',
      actor,
      via: { type: 'system', name: 'class:FileClient' },
    });
    const token = await forward('createDownloadToken', 'Member_m77', { fileId: file.id });
    expect((await fetchBytes(t.base + token.body.body.url)).data.equals(pdf)).toBe(true);
    const got = await forward('getFile', 'Member_m77', { fileId: file.id });
    expect(Buffer.from(got.body.body.content, 'base64').equals(pdf)).toBe(true);
    const del = await forward('deleteFile', 'Member_m77', {
      fileId: file.id,
      actor: { id: 'pm9', type: 'program_management_user' },
    });
    expect(del.body.body.file.actionHistory[1]).toMatchObject({
      action: 'delete',
      actor: { id: 'pm9' },
      via: { name: 'class:FileClient' },
    });
    const state = await forward('getState', 'Member_m77', {});
    expect(state.body.body).toMatchObject({
      entityType: 'Member',
      entityId: 'm77',
      files: [{ id: file.id, status: 'deleted' }],
    });
    const id = await forward('getInstanceId', 'Member_m77', {});
    expect(id.body.body).toEqual({ instanceId: 'Member_m77', entityType: 'Member', entityId: 'm77' });
  });

  test('users may not name another actor', async () => {
    const actor = { id: 'someone', type: 'program_management_user' };
    const pmTry = await upload('Member_act', { content: pdf.toString('base64'), mimeType: 'application/pdf', actor });
    expect(pmTry.status).toBe(403);
    expect(pmTry.body.code).toBe(13011);
    const own = { authorization: `Bearer ${t.token('enduser', 'act')}` };
    const endTry = await upload(
      'Member_act',
      { content: pdf.toString('base64'), mimeType: 'application/pdf', actor },
      own,
    );
    expect(endTry.body.code).toBe(13011);
  });

  test('an end user uploads to its own entity only; anonymous callers not at all', async () => {
    const own = { authorization: `Bearer ${t.token('enduser', 'e1')}` };
    const ok = await upload('Member_e1', { content: png.toString('base64'), mimeType: 'image/png' }, own);
    expect(ok.status).toBe(200);
    expect(ok.body.file.actionHistory[0].actor).toEqual({ id: 'e1', type: 'member' });
    expect(await t.rt.store.exists('FileManager', 'Member_e1')).toBe(true);
    const other = await upload('Member_e2', { content: png.toString('base64'), mimeType: 'image/png' }, own);
    expect(other.status).toBe(403);
    expect(other.body.code).toBe(13012);
    expect(await t.rt.store.exists('FileManager', 'Member_e2')).toBe(false);
    expect(
      (await t.post(t.path('uploadFile', 'Member_e1'), { content: png.toString('base64'), mimeType: 'image/png' }))
        .status,
    ).toBe(401);
  });

  test('INTERNAL methods are not reachable over HTTP', async () => {
    await uploadOk('Member_int', pdf, 'application/pdf');
    expect((await t.call('getState', 'Member_int', {})).status).toBe(403);
    expect((await t.call('purgeFileContent', 'Member_int', { fileId: 'x' })).status).toBe(403);
  });
});

describe('init', () => {
  test('creates an empty instance from the path or from the body', async () => {
    const r = await t.call('init', 'Partner_p1', {});
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ instanceId: 'Partner_p1', entityType: 'Partner', entityId: 'p1' });
    expect((await t.call('init', 'Partner_p1', {})).status).toBe(409);
    const fromBody = await t.post(t.path('init'), { entityType: 'Company', entityId: 'c9' }, t.pm);
    expect(fromBody.body).toEqual({ instanceId: 'Company_c9', entityType: 'Company', entityId: 'c9' });
    const up = await uploadOk('Company_c9', pdf, 'application/pdf');
    expect(up.file.filename).toMatch(new RegExp(`^Company_c9_${UUID}\\.pdf$`));
  });

  test('refuses ids of the wrong shape and bodies naming another entity', async () => {
    expect((await t.call('init', 'nounderscore', {})).body).toMatchObject({ code: 13000 });
    expect((await t.call('init', 'Partner_p2', { entityType: 'Partner', entityId: 'p3' })).body).toMatchObject({
      code: 13013,
    });
    expect(await t.rt.store.exists('FileManager', 'Partner_p2')).toBe(false);
    expect(
      (await t.call('init', 'Partner_p4', {}, { authorization: `Bearer ${t.token('enduser', 'p4')}` })).status,
    ).toBe(403);
  });
});

describe('streaming', () => {
  test('each file is a document of the files collection', async () => {
    const { file } = await uploadOk('Tier_t1', Buffer.from('a,b\n1,2\n'), 'text/csv', {
      originalFilename: 'rules.csv',
    });
    const doc = await waitFor(() => t.rt.documents.get('files', file.id));
    expect(doc).toMatchObject({
      ...file,
      instanceId: 'Tier_t1',
      entityType: 'Tier',
      entityId: 't1',
      _class: 'FileManager',
    });
    const listed = await t.rt.documents.find('files', { entityType: 'Tier', status: 'active' });
    expect(listed.items.map((d) => d._id)).toContain(file.id);
  });
});

describe('path traversal never reaches the store', () => {
  test('user text in originalFilename or filename is never used as a stored name', async () => {
    const names: string[] = [];
    const blobs = t.rt.ports.blobs;
    const spies = (['put', 'get', 'stat', 'delete'] as const).map((m) => {
      const original = blobs[m].bind(blobs) as (...args: any[]) => any;
      return jest.spyOn(blobs, m).mockImplementation(((name: string, ...rest: unknown[]) => {
        names.push(name);
        return original(name, ...rest);
      }) as any);
    });
    try {
      const evil = [
        '../../../etc/passwd',
        '..\\..\\windows\\system32\\x.png',
        '/abs/path.png',
        'a/../../b.png',
        '.hidden',
      ];
      const uploaded = [];
      for (const originalFilename of evil) {
        const r = await uploadOk('Member_trav', png, 'image/png', { originalFilename });
        expect(r.file.originalFilename).toBe(originalFilename);
        expect(r.file.filename).toMatch(new RegExp(`^Member_trav_${UUID}\\.png$`));
        uploaded.push(r);
      }
      const first = uploaded[0]!;
      // the download name is the last segment only, with the stored type's extension
      const dl = await fetchBytes(t.base + first.download.url);
      expect(dl.headers.get('content-disposition')).toMatch(/^inline; filename="passwd.png"/);
      for (const filename of [
        '../../../etc/passwd',
        `../${first.file.filename}`,
        `Member_trav/../${first.file.filename}`,
        '..',
      ]) {
        expect((await t.call('getFile', 'Member_trav', { filename })).status).toBe(404);
        expect((await t.call('deleteFile', 'Member_trav', { filename })).status).toBe(404);
        expect(
          (
            await fetchBytes(
              `${t.base}${t.path('getPublicFile', 'Member_trav')}?filename=${encodeURIComponent(filename)}`,
            )
          ).status,
        ).toBe(404);
        const d = await download('Member_trav', { filename, token: first.download.token });
        expect(d.status).toBe(403);
      }
      expect(names.length).toBeGreaterThan(0);
      for (const n of names) expect(n).toMatch(new RegExp(`^Member_trav_${UUID}\\.png$`));
    } finally {
      for (const s of spies) s.mockRestore();
    }
    // and on disk only generated names exist
    const dir = path.join(t.rt.config.dataDir, 'files');
    const entries = await fs.readdir(dir);
    expect(entries.filter((e) => e.startsWith('Member_trav')).length).toBe(5);
    for (const e of entries) expect(e).toMatch(new RegExp(`^[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_-]+_${UUID}\\.[a-z]+$`));
  });
});
