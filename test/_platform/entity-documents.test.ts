/** The platform's entity documents: the pure rules (classes/_platform/entity-documents.ts). */
import { ActorError, errorFactory } from '../../runtime';
import {
  documentListing,
  findDocument,
  fileRefusal,
  moveDocument,
  documentListQuery,
  type EntityDocument,
} from '../../classes/_platform/entity-documents';

const doc = (id: string, uploadedAt: string, status: EntityDocument['status'] = 'active'): EntityDocument => ({
  id,
  fileId: `f-${id}`,
  filename: `${id}.pdf`,
  originalFilename: `${id}.pdf`,
  label: null,
  mimeType: 'application/pdf',
  size: 1,
  status,
  uploadedBy: { id: 'u', type: 'program_management_user' } as EntityDocument['uploadedBy'],
  uploadedAt,
  updatedAt: uploadedAt,
});

const error = errorFactory('Thing', {
  DOCUMENT_NOT_FOUND: { code: 9100, status: 404 },
  DOCUMENT_ARCHIVED: { code: 9101, status: 400 },
  DOCUMENT_STATUS_CONFLICT: { code: 9102, status: 409 },
  INVALID_FILE: { code: 9103, status: 400 },
  INVALID_INPUT: { code: 9104, status: 400 },
  INVALID_QUERY: { code: 9105, status: 400 },
  FILE_STORE_FAILED: { code: 9106, status: 500 },
});

test('findDocument: the document, or DOCUMENT_NOT_FOUND', () => {
  expect(findDocument([doc('a', '2024-01-01')], 'a')).toMatchObject({ ok: true, doc: { id: 'a' } });
  expect(findDocument(undefined, 'a')).toEqual({ ok: false, error: 'DOCUMENT_NOT_FOUND', message: "No document 'a'" });
});

test('moveDocument: active ↔ archived, the same status is a conflict', () => {
  expect(moveDocument(doc('a', '2024-01-01'), 'archived', 'T')).toMatchObject({
    ok: true,
    doc: { status: 'archived', updatedAt: 'T' },
  });
  expect(moveDocument(doc('a', '2024-01-01', 'archived'), 'archived', 'T')).toMatchObject({
    ok: false,
    error: 'DOCUMENT_STATUS_CONFLICT',
  });
});

test('documentListing: newest first, filtered by status, with isArchived', () => {
  const docs = [doc('a', '2024-01-01'), doc('b', '2024-03-01', 'archived'), doc('c', '2024-02-01')];
  expect(documentListing(docs).map((d) => [d.id, d.isArchived])).toEqual([
    ['b', true],
    ['c', false],
    ['a', false],
  ]);
  expect(documentListing(docs, 'active').map((d) => d.id)).toEqual(['c', 'a']);
});

test('documentListQuery: the checked input with page 1 and 10 a page unless given', () => {
  expect(documentListQuery({})).toEqual({ page: 1, limit: 10, skip: 0 });
  expect(documentListQuery({ status: 'active', page: 3, limit: 5 })).toEqual({
    status: 'active',
    page: 3,
    limit: 5,
    skip: 10,
  });
});

test("fileRefusal: FileManager's 4xx is INVALID_FILE on the type field (13001) or the content field; anything else FILE_STORE_FAILED", () => {
  const typeRefused = fileRefusal(error, new ActorError(400, 13001, 'unsupported'), {
    content: 'content',
    type: 'mimeType',
  });
  expect(typeRefused).toMatchObject({ status: 400, code: 9103, details: { errors: [{ field: 'mimeType' }] } });
  const tooBig = fileRefusal(error, new ActorError(413, 13002, 'too big'), { content: 'content', type: 'mimeType' });
  expect(tooBig).toMatchObject({ code: 9103, details: { errors: [{ field: 'content' }] } });
  expect(fileRefusal(error, new Error('disk'), { content: 'c', type: 't' })).toMatchObject({ status: 500, code: 9106 });
});
