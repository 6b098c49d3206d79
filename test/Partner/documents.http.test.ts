/**
 * Partner documents through HTTP (spec 2.5 PartnerDocument, 3.3 documents,
 * 4.5, 7.1, 8): the rules and limits of member documents, 14008 for an
 * archived document asked of downloadDocument, downloadArchivedDocument's own
 * permission; with the right and wrong identities.
 */
import { MB } from '../../classes/_platform/file-types';
import { sample } from '../FileManager/samples';
import type { TestRuntime } from '../support/harness';
import {
  auditEntriesWhen,
  bearer,
  freshId,
  partnerBody,
  PDF,
  PNG,
  startPartnerRuntime,
  writePartnerRoles,
} from './support';

let t: TestRuntime;
let p: string;
let superUser: Record<string, string>;
let editor: Record<string, string>;
let reader: Record<string, string>;
let clerk: Record<string, string>;
let member: Record<string, string>;

beforeAll(async () => {
  t = await startPartnerRuntime();
  await writePartnerRoles(t);
  p = `/${t.projectId}/CALL`;
  superUser = bearer(t, 'pm1', ['super']);
  editor = bearer(t, 'ed', ['editor']);
  reader = bearer(t, 'rita', ['reader']);
  clerk = bearer(t, 'cleo', ['clerk']);
  member = bearer(t, 'm1', [], 'enduser');
});
afterAll(() => t.stop());

const call = (method: string, id: string, body: unknown, headers: Record<string, string> = superUser) =>
  t.post(`${p}/Partner/${method}/${id}`, body, headers);
const expectForbidden = (r: { status: number; body: any }) => expect([r.status, r.body.code]).toEqual([403, 1008]);
const fields = (r: { body: any }) => (r.body.details?.errors ?? []).map((e: { field: string }) => e.field);

async function newPartner(): Promise<string> {
  const id = freshId();
  await t.rt.call('Partner', 'init', id, partnerBody());
  return id;
}

test('upload, list newest first with paging, download, archive (active → archived) and unarchive (archived → active)', async () => {
  const id = await newPartner();
  const up1 = await call(
    'uploadDocument',
    id,
    { content: PDF, mimeType: 'application/pdf', originalFilename: 'contract.pdf', label: 'Contract' },
    editor,
  );
  expect(up1.status).toBe(200);
  expect(up1.body).toMatchObject({
    documentId: expect.any(String),
    document: {
      filename: expect.stringMatching(new RegExp(`^partner_${id}_[0-9a-f-]+\\.pdf$`)),
      originalFilename: 'contract.pdf',
      label: 'Contract',
      status: 'active',
      uploadedBy: { id: 'ed' },
    },
    download: { url: expect.stringContaining(`/FileManager/downloadFile/partner_${id}`) },
  });
  const up2 = await call(
    'uploadDocument',
    id,
    { content: PNG, mimeType: 'image/png', originalFilename: 'photo.png' },
    editor,
  );
  const up3 = await call(
    'uploadDocument',
    id,
    { content: Buffer.from('a,b\n1,2\n').toString('base64'), mimeType: 'text/csv', originalFilename: 'prices.csv' },
    editor,
  );

  const list = await t.get(`${p}/Partner/listDocuments/${id}`, reader);
  expect(list.body).toMatchObject({ totalCount: 3, page: 1, limit: 10, totalPages: 1 });
  expect(list.body.documents.map((d: { id: string }) => d.id)).toEqual([
    up3.body.documentId,
    up2.body.documentId,
    up1.body.documentId,
  ]);
  expect(list.body.documents[2]).toMatchObject({ status: 'active', label: 'Contract', isArchived: false });
  const page = await call('listDocuments', id, { limit: 2, page: 2 }, reader);
  expect([page.body.documents.map((d: { id: string }) => d.id), page.body.totalPages]).toEqual([
    [up1.body.documentId],
    2,
  ]);

  // the download link works (5 minutes) and gives the stored bytes
  const dl = await call('downloadDocument', id, { documentId: up1.body.documentId }, editor);
  expect(dl.body).toMatchObject({
    documentId: up1.body.documentId,
    status: 'active',
    url: expect.any(String),
    expiresAt: expect.any(String),
  });
  const bytes = await fetch(t.base + dl.body.url);
  expect(bytes.status).toBe(200);
  expect(Buffer.from(await bytes.arrayBuffer()).equals(Buffer.from(PDF, 'base64'))).toBe(true);

  expect((await call('archiveDocument', id, { documentId: up1.body.documentId }, editor)).body).toEqual({
    documentId: up1.body.documentId,
    status: 'archived',
  });
  const again = await call('archiveDocument', id, { documentId: up1.body.documentId }, editor);
  expect([again.status, again.body.code]).toEqual([409, 17016]);
  const refused = await call('downloadDocument', id, { documentId: up1.body.documentId }, editor);
  expect([refused.status, refused.body.code, refused.body.classId]).toEqual([400, 14008, 'Partner']);
  expect((await call('downloadArchivedDocument', id, { documentId: up1.body.documentId })).body).toMatchObject({
    status: 'archived',
    url: expect.any(String),
  });
  expect((await call('downloadArchivedDocument', id, { documentId: up2.body.documentId })).body).toMatchObject({
    status: 'active',
  });
  const archived = await t.get(`${p}/Partner/listDocuments/${id}?status=archived`, reader);
  expect(archived.body.documents).toEqual([
    expect.objectContaining({ id: up1.body.documentId, isArchived: true, status: 'archived' }),
  ]);

  expect((await call('unarchiveDocument', id, { documentId: up1.body.documentId }, editor)).body).toEqual({
    documentId: up1.body.documentId,
    status: 'active',
  });
  const twice = await call('unarchiveDocument', id, { documentId: up1.body.documentId }, editor);
  expect([twice.status, twice.body.code]).toEqual([409, 17016]);
  expect((await call('downloadDocument', id, { documentId: up1.body.documentId }, editor)).status).toBe(200);

  // every change is an audit entry of the partner's documents
  const entries = await auditEntriesWhen(t, 'partner_document', up1.body.documentId, 3);
  expect(entries.map((e) => e.additionalData.partnerId)).toEqual([id, id, id]);
  const viaPartner = await t.post(
    `${p}/Partner/getLogEntries`,
    { entityType: 'partner_document', entityId: up1.body.documentId },
    reader,
  );
  expect(viaPartner.body.totalCount).toBe(3);
});

test('not found, missing id, bad listing input: 4xx naming the field', async () => {
  const id = await newPartner();
  for (const m of ['downloadDocument', 'downloadArchivedDocument', 'archiveDocument', 'unarchiveDocument']) {
    const none = await call(m, id, { documentId: 'nope' });
    expect([m, none.status, none.body.code]).toEqual([m, 404, 17015]);
    const missing = await call(m, id, {});
    expect([m, missing.status, missing.body.code, fields(missing)]).toEqual([m, 400, 17000, ['documentId']]);
  }
  const bad = await t.get(`${p}/Partner/listDocuments/${id}?status=deleted&limit=500`, reader);
  expect([bad.status, bad.body.code, fields(bad).sort()]).toEqual([400, 17010, ['limit', 'status']]);
});

test('the limits of member documents: images up to 5 MB, documents up to 10 MB, no JSON, the content must match its type', async () => {
  const id = await newPartner();
  const up = (content: Buffer | string, mimeType: string) =>
    call('uploadDocument', id, {
      content: typeof content === 'string' ? content : content.toString('base64'),
      mimeType,
      originalFilename: 'f',
    });
  expect((await up(sample('png', 5 * MB), 'image/png')).status).toBe(200);
  const bigImage = await up(sample('png', 5 * MB + 1), 'image/png');
  expect([bigImage.status, bigImage.body.code, fields(bigImage)]).toEqual([400, 17013, ['content']]);
  expect((await up(sample('pdf', 10 * MB), 'application/pdf')).status).toBe(200);
  const bigDoc = await up(sample('pdf', 10 * MB + 1), 'application/pdf');
  expect([bigDoc.status, bigDoc.body.code, fields(bigDoc)]).toEqual([400, 17013, ['content']]);
  const json = await up(Buffer.from('{"a":1}'), 'application/json');
  expect([json.status, json.body.code, fields(json)]).toEqual([400, 17013, ['mimeType']]);
  const mismatch = await up(PDF, 'image/png');
  expect([mismatch.status, mismatch.body.code, fields(mismatch)]).toEqual([400, 17013, ['content']]);
  const exe = await up(PDF, 'application/x-msdownload');
  expect([exe.status, fields(exe)]).toEqual([400, ['mimeType']]);
  const listed = await t.get(`${p}/Partner/listDocuments/${id}`, reader);
  expect(listed.body.totalCount).toBe(2);
});

test('identities: downloadArchivedDocument has a permission of its own; others are refused', async () => {
  const id = await newPartner();
  const up = await call(
    'uploadDocument',
    id,
    { content: PDF, mimeType: 'application/pdf', originalFilename: 'a.pdf' },
    editor,
  );
  const ref = { documentId: up.body.documentId };
  expect((await call('downloadDocument', id, ref, editor)).status).toBe(200);
  expectForbidden(await call('downloadArchivedDocument', id, ref, editor));
  expect((await call('downloadArchivedDocument', id, ref, superUser)).status).toBe(200);
  expectForbidden(
    await call('uploadDocument', id, { content: PDF, mimeType: 'application/pdf', originalFilename: 'a.pdf' }, reader),
  );
  for (const m of [
    'uploadDocument',
    'listDocuments',
    'downloadDocument',
    'downloadArchivedDocument',
    'archiveDocument',
    'unarchiveDocument',
  ]) {
    expectForbidden(await call(m, id, ref, clerk));
    expectForbidden(await call(m, id, ref, member));
    expect([m, (await call(m, id, ref, {})).status]).toEqual([m, 401]);
  }
});
