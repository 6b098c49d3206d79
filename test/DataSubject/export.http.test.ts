/**
 * exportSubject end to end, over HTTP against every real class: a member with
 * a dependant (HR push), a document, audit entries and an approval is
 * exported as a ZIP; the archive holds every record and file with its origin,
 * no secret, and the export is audit-logged without personal values. Who may
 * export whom: the role's own permission, the caller's company. The CLI
 * writes the same archive.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import JSZip from 'jszip';
import { SUBJECT_DATA_CLASSES } from '../../classes/DataSubject/rules';
import { SUBJECT_DATA_METHOD } from '../../classes/_platform/personal-data';
import { projectRoot } from '../../runtime/config';
import { seedRoles, testEnv, waitFor, type TestRuntime } from '../support/harness';
import { findLogs } from '../support/logs';
import {
  API_KEY,
  createMember,
  dependantRecord,
  IMAGES,
  seedProgram,
  startMemberRuntime,
  uniq,
} from '../Member/support';

let t: TestRuntime;
let p: string;
const bearer = (userId: string, roles: string[], claims: Record<string, unknown> = {}) => ({
  authorization: `Bearer ${t.rt.tokens.sign({ sub: userId, identity: 'program_management_user', roles, ...claims })}`,
});
let superUser: Record<string, string>;

beforeAll(async () => {
  t = await startMemberRuntime();
  p = `/${t.projectId}/CALL`;
  await seedProgram(t);
  await seedRoles(t, [
    { id: 'r-export', name: 'exporter', level: 10, permissions: { DataSubject: ['exportSubject'] } },
    { id: 'r-members', name: 'members', level: 10, permissions: { Member: ['getMemberPersonal'] } },
  ]);
  superUser = bearer('pm-export', ['super']);
});
afterAll(() => t?.stop());

type Archive = { manifest: any; zip: JSZip; text: string };

async function exportOf(body: Record<string, unknown>, headers = superUser) {
  const res = await fetch(`${t.base}${p}/DataSubject/exportSubject`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes };
}

async function open(bytes: Buffer): Promise<Archive> {
  const zip = await JSZip.loadAsync(bytes);
  const manifest = JSON.parse(await zip.file('manifest.json')!.async('string'));
  const texts = await Promise.all(
    Object.values(zip.files)
      .filter((f) => !f.dir)
      .map((f) => f.async('string')),
  );
  return { manifest, zip, text: texts.join('\n') };
}

/** a member of company c-1 with a dependant, a document, and a change by a back-office user */
async function memberWithData() {
  const staffId = uniq('S');
  const member = await createMember(t, { staffId, name: 'Zenobia', surname: `Quill${staffId}` });
  const depId = uniq('d');
  const pushed = await t.post('/members/hr/dependant', dependantRecord(depId, staffId, { name: 'Ximena' }), API_KEY);
  expect(pushed.status).toBe(201);
  const uploaded = await t.post(
    `${p}/Member/uploadDocument/${member.id}`,
    { content: IMAGES.png, mimeType: 'image/png', originalFilename: 'passport.png' },
    superUser,
  );
  expect(uploaded.status).toBeLessThan(300);
  return { member, staffId, depId };
}

test('every class that keeps personal data answers exportSubjectData, and DataSubject asks each of them', () => {
  const declaring = t.rt.registry
    .list()
    .filter((c) => c.methodsByName.has(SUBJECT_DATA_METHOD))
    .map((c) => c.id)
    .sort();
  expect(declaring).toEqual([...SUBJECT_DATA_CLASSES].sort());
});

describe('a member with a dependant, a document and audit entries', () => {
  let data: Awaited<ReturnType<typeof memberWithData>>;
  let archive: Archive;
  let answer: Awaited<ReturnType<typeof exportOf>>;

  beforeAll(async () => {
    data = await memberWithData();
    // the listings (audit entries, approvals) are read from the projection: wait until the member's entries are there
    await waitFor(async () => (await findLogs(t, { classId: 'Member', entityId: data.member.id })).total > 0, {
      what: "the member's audit entries projected",
    });
    answer = await exportOf({ subjectType: 'member', subjectId: data.member.id, includeDependants: true });
    expect(answer.status).toBe(201);
    archive = await open(answer.bytes);
  });

  test('a ZIP, not to be cached, named by the export id', () => {
    expect(answer.headers.get('content-type')).toBe('application/zip');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const exportId = answer.headers.get('x-export-id')!;
    expect(answer.headers.get('content-disposition')).toBe(`attachment; filename="subject-export-${exportId}.zip"`);
    expect(archive.manifest).toMatchObject({
      format: 'membership-subject-export/1',
      exportId,
      subject: { type: 'member', id: data.member.id },
      includeDependants: true,
      subjects: [
        { type: 'member', id: data.member.id },
        { type: 'member', id: data.depId },
      ],
      requestedBy: { id: 'pm-export', type: 'program_management_user' },
    });
  });

  test('the manifest lists every entry of the archive, and every entry is listed', () => {
    const listed = [...archive.manifest.records, ...archive.manifest.files].map((e: { path: string }) => e.path);
    const present = Object.values(archive.zip.files)
      .filter((f) => !f.dir && f.name !== 'manifest.json')
      .map((f) => f.name);
    expect(listed.sort()).toEqual(present.sort());
  });

  test("the member's state, listing, audit entries and document; the dependant's state", async () => {
    const mine = archive.manifest.records.filter((r: any) => r.subject.id === data.member.id);
    const stores = new Set(mine.map((r: any) => r.store));
    for (const store of ['state', 'listing', 'audit']) expect(stores).toContain(store);
    expect(archive.text).toContain('Zenobia');
    expect(archive.text).toContain(data.staffId);
    const depState = archive.manifest.records.find(
      (r: any) => r.subject.id === data.depId && r.store === 'state' && r.classId === 'Member',
    );
    expect(depState).toBeDefined();
    expect(await archive.zip.file(depState.path)!.async('string')).toContain('Ximena');
    const doc = archive.manifest.files.find((f: any) => f.classId === 'FileManager' && f.kind === 'file');
    expect(doc).toMatchObject({ contentType: 'image/png', size: Buffer.from(IMAGES.png, 'base64').length });
    expect((await archive.zip.file(doc.path)!.async('nodebuffer')).equals(Buffer.from(IMAGES.png, 'base64'))).toBe(
      true,
    );
  });

  test('no secret: no password hash, no credentials', () => {
    expect(archive.text).not.toMatch(/passwordHash|"credentials"|scrypt/i);
  });

  test('the export is kept and audit-logged: who asked for whose data, counts, the digest; no personal value', async () => {
    const exportId = answer.headers.get('x-export-id')!;
    const { items } = (await waitFor(
      async () => {
        const found = await findLogs(t, { classId: 'DataSubject', entityId: exportId });
        return found.total > 0 ? found : null;
      },
      { what: 'the export audit entry' },
    ))!;
    expect(items).toHaveLength(1);
    const entry = items[0]!;
    expect(entry).toMatchObject({ entityType: 'data_subject_export', actor: { id: 'pm-export' } });
    const text = JSON.stringify(entry);
    expect(text).toContain(data.member.id);
    expect(text).not.toContain('Zenobia');
    expect(text).not.toContain(data.staffId);
    const stored = await t.rt.store.read('DataSubject', exportId);
    expect(JSON.parse(stored!.stateJson).private.export).toMatchObject({
      subject: { type: 'member', id: data.member.id },
      recordCount: archive.manifest.records.length,
      fileCount: archive.manifest.files.length,
      companyId: 'c-1',
    });
  });

  test('without includeDependants, the member alone', async () => {
    const alone = await exportOf({ subjectType: 'member', subjectId: data.member.id });
    expect(alone.status).toBe(201);
    expect((await open(alone.bytes)).manifest.subjects).toEqual([{ type: 'member', id: data.member.id }]);
  });
});

describe('who may export whom', () => {
  let memberId: string;
  beforeAll(async () => {
    memberId = (await createMember(t)).id;
  });

  test('a level-10 role needs the method itself: DataSubject.exportSubject', async () => {
    const refused = await exportOf({ subjectType: 'member', subjectId: memberId }, bearer('pm-10', ['r-members']));
    expect(refused.status).toBe(403);
    const granted = await exportOf({ subjectType: 'member', subjectId: memberId }, bearer('pm-11', ['r-export']));
    expect(granted.status).toBe(201);
  });

  test('members and anonymous callers are refused', async () => {
    const member = { authorization: `Bearer ${t.token('enduser', memberId)}` };
    expect((await exportOf({ subjectType: 'member', subjectId: memberId }, member)).status).toBe(403);
    expect((await exportOf({ subjectType: 'member', subjectId: memberId }, {})).status).toBe(401);
  });

  test("a company user exports its own company's members, never another's", async () => {
    const own = await exportOf(
      { subjectType: 'member', subjectId: memberId },
      bearer('pm-c1', ['super'], { tenant: 'c-1' }),
    );
    expect(own.status).toBe(201);
    const other = await exportOf(
      { subjectType: 'member', subjectId: memberId },
      bearer('pm-c2', ['super'], { tenant: 'c-2' }),
    );
    expect(other.status).toBe(403);
    expect([1023, 20002]).toContain(JSON.parse(other.bytes.toString()).code);
  });

  test('an unknown subject is 404 20001; a bad body 400 naming the field', async () => {
    const missing = await exportOf({ subjectType: 'member', subjectId: 'no-such-member' });
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.bytes.toString()).code).toBe(20001);
    const bad = await exportOf({ subjectType: 'pet', subjectId: memberId });
    expect(bad.status).toBe(400);
    expect(bad.bytes.toString()).toContain('subjectType');
  });
});

describe('npm run cli -- export-subject', () => {
  const run = promisify(execFile);
  test('writes the same archive to a file, never over an existing one', async () => {
    const { id } = await createMember(t);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'export-cli-'));
    const file = path.join(dir, 'out.zip');
    const cli = () =>
      run(
        process.execPath,
        ['--import', 'tsx', path.join(projectRoot(), 'runtime/cli.ts'), 'export-subject', 'member', id, file],
        {
          cwd: projectRoot(),
          env: {
            ...process.env,
            ...testEnv(t.projectId, { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas', LOG_LEVEL: 'warn' }),
          },
        },
      );
    try {
      const { stdout } = await cli();
      const summary = JSON.parse(stdout.trim().split('\n').pop()!);
      const bytes = await fs.readFile(file);
      expect(summary).toMatchObject({ file, bytes: bytes.length });
      expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
      const { manifest } = await open(bytes);
      expect(manifest).toMatchObject({ exportId: summary.exportId, subject: { type: 'member', id } });
      await expect(cli()).rejects.toMatchObject({ stderr: expect.stringContaining('exists') });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
