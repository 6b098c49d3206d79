/**
 * FileManager.exportSubjectData over real Redis and real HTTP: a member's
 * files for DataSubject's export (every file's metadata, deleted ones
 * included, and the content the store still holds, as uploaded), nothing of
 * other entities, empty lists where there is nothing, who may ask, and the
 * company scope. The files are stored as Member stores them: by a class,
 * naming the member's company.
 */
import { waitFor } from '../support/harness';
import {
  asClass,
  expectClassOwn,
  expectDataSubjectOnly,
  expectValidAnswer,
  exportBody,
  exportedBy,
  storedState,
  subjectCall,
} from '../support/subject-data';
import { sample } from './samples';
import { startFileRuntime, type FileTestRuntime } from './support';

let t: FileTestRuntime;

const memberId = `m${Date.now().toString(36)}`;
const png = sample('png', 1500);
const pdf = sample('pdf', 2500);
const csv = sample('csv', 300);
let photo: { id: string; filename: string };
let removed: { id: string; filename: string };
let lost: { id: string; filename: string };

/** a file stored as Member stores one: by the class, naming the member's company */
async function store(instanceId: string, content: Buffer, mimeType: string, companyId = 'c-1') {
  const r = await t.rt.call(
    'FileManager',
    'uploadFile',
    instanceId,
    { content: content.toString('base64'), mimeType, originalFilename: `upload.${mimeType.split('/')[1]}`, companyId },
    asClass('Member'),
  );
  return (r.body as { file: { id: string; filename: string } }).file;
}

const exportOf = (subject: { type: string; id: string }, tenant?: string) =>
  exportedBy(t, 'FileManager', subject, { tenant });

beforeAll(async () => {
  t = await startFileRuntime();
  const instance = `member_${memberId}`;
  photo = await store(instance, png, 'image/png');
  removed = await store(instance, pdf, 'application/pdf');
  lost = await store(instance, csv, 'text/csv');
  // deleted: its content is purged after the deletion commits
  const deleted = await t.call('deleteFile', instance, { fileId: removed.id });
  expect(deleted.status).toBe(200);
  await waitFor(async () => (await t.rt.ports.blobs.get(removed.filename)) === null, { what: 'the content purged' });
  // an active file whose content the store lost: its metadata is still what the service keeps
  await t.rt.ports.blobs.delete(lost.filename);
  // other entities' files with the same id, and another member's
  await store(`partner_${memberId}`, png, 'image/png');
  await store(`member_${memberId}x`, png, 'image/png');
});
afterAll(() => t.stop());

describe("a member's files", () => {
  test('every file metadata as stored (the deleted one too), and the content still held, as uploaded', async () => {
    const data = await exportOf({ type: 'member', id: memberId });
    const files = (await storedState(t, 'FileManager', `member_${memberId}`)).private.files as unknown[];
    expect(data.records).toEqual(
      files.map((f) => ({
        store: 'files',
        classId: 'FileManager',
        instanceId: `member_${memberId}`,
        kind: 'fileMetadata',
        data: f,
      })),
    );
    expect(data.records.map((r) => (r.data as { status: string }).status)).toEqual(['active', 'deleted', 'active']);
    expect(data.files).toEqual([
      {
        classId: 'FileManager',
        instanceId: `member_${memberId}`,
        name: photo.filename,
        contentType: 'image/png',
        kind: 'file',
        contentBase64: png.toString('base64'),
      },
    ]);
    expect(Buffer.from(data.files[0]!.contentBase64, 'base64').equals(png)).toBe(true);
    expect(data).not.toHaveProperty('related');
    expect(data).not.toHaveProperty('companyId');
  });

  test('the answers are what their answer schemas say: the method and the READ behind it', async () => {
    // exportOf checks the method's answer
    const exported = await exportOf({ type: 'member', id: memberId });
    const read = (await t.rt.call('FileManager', 'subjectFilesOf', `member_${memberId}`, {})).body;
    expect(read).toEqual(exported);
    expectValidAnswer(t, 'FileManager', 'subjectFilesOf', read);
  });

  test('nothing stored for the member, an id no instance can have, another subject type: empty lists', async () => {
    expect(await exportOf({ type: 'member', id: 'nobody-here' })).toEqual({ records: [], files: [] });
    expect(await exportOf({ type: 'member', id: 'not an id!' })).toEqual({ records: [], files: [] });
    for (const type of ['program_management_user', 'partner_user'])
      expect(await exportOf({ type, id: memberId })).toEqual({ records: [], files: [] });
  });
});

describe('who may ask', () => {
  const body = exportBody({ type: 'member', id: memberId });

  test('DataSubject only: not a back-office super user over HTTP, not another class', async () => {
    await expectDataSubjectOnly(t, 'FileManager', 'exportSubjectData', body, { users: [t.pm], classes: ['Member'] });
    // the instance read behind it is FileManager's own
    await expectClassOwn(t, 'FileManager', 'subjectFilesOf', `member_${memberId}`, {}, { classes: ['DataSubject'] });
  });

  test("a company user's export: its company's member's files; another company's are refused (403 1023)", async () => {
    const own = await exportOf({ type: 'member', id: memberId }, 'c-1');
    expect(own.files.map((f) => f.name)).toEqual([photo.filename]);
    await expect(subjectCall(t, 'FileManager', 'exportSubjectData', body, 'c-2')).rejects.toMatchObject({
      status: 403,
      code: 1023,
    });
  });
});
