/**
 * FileManager.eraseSubjectData over real Redis and real HTTP: a member's
 * files erased for DataSubject's approved erasure (every file's content
 * deleted from the blob store, a content already gone being no error, every
 * file's metadata removed and its `files` document with it), nothing of other
 * entities or other members touched, zeros on a second call and where there
 * is nothing, who may ask, and the company scope. The files are stored as
 * Member stores them: by a class, naming the member's company.
 */
import { waitFor } from '../support/harness';
import {
  asClass,
  eraseBody,
  erasedBy,
  expectClassOwn,
  expectDataSubjectOnly,
  exportedBy,
  storedState,
  subjectCall,
} from '../support/subject-data';
import { sample } from './samples';
import { startFileRuntime, type FileTestRuntime } from './support';

let t: FileTestRuntime;
const ERASURE_ID = 'erasure-1';

const memberId = `m${Date.now().toString(36)}`;
const instance = `member_${memberId}`;
type Stored = { id: string; filename: string };
let photo: Stored;
let document: Stored;
let removed: Stored;
let lost: Stored;
let partnerFile: Stored;
let otherMemberFile: Stored;

/** a file stored as Member stores one: by the class, naming the member's company */
async function store(instanceId: string, content: Buffer, mimeType: string, companyId = 'c-1'): Promise<Stored> {
  const r = await t.rt.call(
    'FileManager',
    'uploadFile',
    instanceId,
    {
      content: content.toString('base64'),
      mimeType,
      originalFilename: `passport-scan.${mimeType.split('/')[1]}`,
      companyId,
    },
    asClass('Member'),
  );
  return (r.body as { file: Stored }).file;
}

const erase = (subject: { type: string; id: string }, tenant?: string) =>
  erasedBy(t, 'FileManager', subject, ERASURE_ID, { tenant });

const filesOf = async (instanceId: string): Promise<Stored[]> =>
  (await storedState(t, 'FileManager', instanceId)).private.files;

beforeAll(async () => {
  t = await startFileRuntime();
  photo = await store(instance, sample('png', 1500), 'image/png');
  document = await store(instance, sample('pdf', 2500), 'application/pdf');
  removed = await store(instance, sample('csv', 300), 'text/csv');
  lost = await store(instance, sample('csv', 400), 'text/csv');
  // deleted: its content is purged after the deletion commits
  expect((await t.call('deleteFile', instance, { fileId: removed.id })).status).toBe(200);
  await waitFor(async () => (await t.rt.ports.blobs.get(removed.filename)) === null, { what: 'the content purged' });
  // an active file whose content the store lost already
  await t.rt.ports.blobs.delete(lost.filename);
  // another entity's files with the same id, and another member's
  partnerFile = await store(`partner_${memberId}`, sample('png', 500), 'image/png');
  otherMemberFile = await store(`member_${memberId}x`, sample('png', 500), 'image/png');
  await waitFor(async () => (await t.rt.documents.get('files', photo.id)) !== null, { what: 'the files listed' });
});
afterAll(() => t.stop());

describe('who may erase', () => {
  const body = eraseBody({ type: 'member', id: memberId }, ERASURE_ID);

  test('DataSubject only: not a back-office super user over HTTP, not another class, not the write behind it', async () => {
    await expectDataSubjectOnly(t, 'FileManager', 'eraseSubjectData', body, { users: [t.pm], classes: ['Member'] });
    await expectClassOwn(t, 'FileManager', 'eraseSubjectFiles', instance, {}, { classes: ['DataSubject'] });
  });

  test("a company user's erasure of another company's member is refused (403 1023), nothing deleted", async () => {
    await expect(subjectCall(t, 'FileManager', 'eraseSubjectData', body, 'c-2')).rejects.toMatchObject({
      status: 403,
      code: 1023,
    });
    expect(await filesOf(instance)).toHaveLength(4);
    expect(await t.rt.ports.blobs.get(photo.filename)).not.toBeNull();
  });

  test('nothing stored for the member, an id no instance can have, another subject type: zeros', async () => {
    expect(await erase({ type: 'member', id: 'nobody-here' })).toEqual({ records: 0, files: 0 });
    expect(await erase({ type: 'member', id: 'not an id!' })).toEqual({ records: 0, files: 0 });
    for (const type of ['program_management_user', 'partner_user'])
      expect(await erase({ type, id: memberId })).toEqual({ records: 0, files: 0 });
    expect(await filesOf(instance)).toHaveLength(4);
  });
});

describe("a member's files erased", () => {
  test('every metadata removed (4), the content still held deleted (2); a content already gone is no error', async () => {
    // its own company's user may: the erasure reaches that company's files
    const erased = await erase({ type: 'member', id: memberId }, 'c-1');
    expect(erased).toEqual({ records: 4, files: 2 });
    expect(await filesOf(instance)).toEqual([]);
    for (const f of [photo, document, removed, lost]) expect(await t.rt.ports.blobs.get(f.filename)).toBeNull();
    expect((await storedState(t, 'FileManager', instance)).json).not.toContain('passport-scan');
  });

  test("the files' documents leave the `files` collection", async () => {
    for (const f of [photo, document, removed, lost]) {
      await waitFor(async () => (await t.rt.documents.get('files', f.id)) === null, { what: `document ${f.id} gone` });
    }
  });

  test("other entities' and other members' files are untouched", async () => {
    for (const [instanceId, f] of [
      [`partner_${memberId}`, partnerFile],
      [`member_${memberId}x`, otherMemberFile],
    ] as const) {
      expect((await filesOf(instanceId)).map((x) => x.id)).toEqual([f.id]);
      expect(await t.rt.ports.blobs.get(f.filename)).not.toBeNull();
    }
  });

  test('a second call finds nothing left: zeros; the export is empty', async () => {
    expect(await erase({ type: 'member', id: memberId })).toEqual({ records: 0, files: 0 });
    expect(await exportedBy(t, 'FileManager', { type: 'member', id: memberId })).toEqual({ records: [], files: [] });
  });

  test('the answer is what the answer schema says', async () => {
    // erase checks every answer against the method's answer schema: here the zeros of a call finding nothing
    expect(await erase({ type: 'member', id: memberId })).toEqual({ records: 0, files: 0 });
  });
});
