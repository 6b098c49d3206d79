/**
 * LogManager.eraseSubjectData over real Redis, real HTTP and the real
 * classes: the audit entries real changes left about a member (created by a
 * back-office user with a note large enough for a LARGE_LOG file, approved by
 * another, its contact changed, a document uploaded) lose every personal
 * value, in their instances, in the `logs` listing and in the file store,
 * while the fact of each change stays and getLog still answers; the
 * back-office users who made those changes lose their names; a second call
 * erases nothing; another member's entries are untouched; a company-scoped
 * call reaches its company's entries only; nobody but DataSubject may call it.
 */
import { ERASED, type SubjectErasure, type SubjectType } from '../../classes/_platform/personal-data';
import { ERASED_JSON } from '../../classes/LogManager/erasure-rules';
import { largeLogBlobName } from '../../classes/LogManager/log-entry';
import { IMAGES } from '../Member/support';
import { waitFor, type TestRuntime } from '../support/harness';
import {
  approveMemberCreation,
  backOfficeUser,
  createMemberForApproval,
  erasedBy,
  expectClassOwn,
  expectDataSubjectOnly,
  exportedBy,
  exportedWhen,
  holdsAny,
  seedProgramme,
  startSubjectRuntime,
  storedState,
} from '../support/subject-data';

/** the subject's values, each distinctive enough to be searched for anywhere */
const NAME = 'Zephyrine';
const SURNAME = 'Quillfeather';
const STAFF_ID = 'ZQ4471';
const NOTE = 'Zephyrine Quillfeather memoir, '.repeat(60);
const FILE_NAME = 'zephyrine-quillfeather-passport.png';
const LABEL = 'Passport of Zephyrine';
const SUBJECT_VALUES = [NAME, SURNAME, STAFF_ID, 'memoir', 'passport', 'Passport'];
/** the back-office users' names (a token's `name` claim becomes the actor's name) */
const MAKER_NAME = 'Maren Makerly';
const REVIEWER_NAME = 'Rhoswen Reviewer';

let t: TestRuntime;
let p: string;
let maker: Record<string, string>;
let reviewer: Record<string, string>;

const eraseOf = (type: SubjectType, id: string, erasureId: string, tenant?: string) =>
  erasedBy(t, 'LogManager', { type, id }, erasureId, { tenant, subjectCompanyId: null });

const exportOf = (type: SubjectType, id: string) => exportedBy(t, 'LogManager', { type, id });

/** the entry as its instance stores it */
const stored = async (logId: string): Promise<Record<string, any>> =>
  (await storedState(t, 'LogManager', logId)).private.log;

/** the entry's document in the `logs` listing */
async function listed(logId: string): Promise<Record<string, any> | null> {
  return (await t.rt.documents.get('logs', logId)) as Record<string, any> | null;
}

/** the ids of the member's entries (its record's, its documents'), once the listing holds `n` */
async function entriesOf(memberId: string, n: number): Promise<string[]> {
  const found = await exportedWhen(
    t,
    'LogManager',
    { type: 'member', id: memberId },
    (d) => d.records.length >= n,
    `${n} entries`,
  );
  return found.records.map((r) => r.instanceId);
}

const createMember = (body: Record<string, unknown>, headers = maker) => createMemberForApproval(t, body, headers);

beforeAll(async () => {
  t = await startSubjectRuntime();
  p = `/${t.projectId}/CALL`;
  await seedProgramme(t);
  maker = backOfficeUser(t, 'pm-maker', ['super'], MAKER_NAME);
  reviewer = backOfficeUser(t, 'pm-reviewer', ['super', 'approver'], REVIEWER_NAME);
});
afterAll(() => t.stop());

describe('a member', () => {
  let subject: { id: string; approvalId: string };
  let other: { id: string };
  let ids: string[];
  let otherIds: string[];
  let before: Map<string, Record<string, any>>;
  let otherBefore: Record<string, any>[];
  let documentLogId: string;
  let largeLogId: string;
  let erased: SubjectErasure;

  beforeAll(async () => {
    subject = await createMember({
      name: NAME,
      surname: SURNAME,
      staffId: STAFF_ID,
      note: NOTE,
      company: { id: 'c-1' },
    });
    await approveMemberCreation(t, subject, reviewer, maker);
    expect(
      (await t.post(`${p}/Member/updateMemberContact/${subject.id}`, { phone: '+971500004471' }, maker)).status,
    ).toBe(200);
    const uploaded = await t.post(
      `${p}/Member/uploadDocument/${subject.id}`,
      { content: IMAGES.png, mimeType: 'image/png', originalFilename: FILE_NAME, label: LABEL },
      maker,
    );
    expect(uploaded.status).toBe(200);
    other = await createMember({ name: 'Bartholomew', surname: 'Otherwise', company: { id: 'c-2' } });

    // creation, approved creation, contact change, document upload
    ids = await entriesOf(subject.id, 4);
    otherIds = await entriesOf(other.id, 1);
    before = new Map(await Promise.all(ids.map(async (id) => [id, await stored(id)] as const)));
    otherBefore = await Promise.all(otherIds.map(stored));
    const entries = [...before.values()];
    documentLogId = entries.find((e) => e.entityType === 'member_document')!.id;
    largeLogId = entries.find((e) => e.isLargeLog)!.id;
    expect(holdsAny(entries, SUBJECT_VALUES)).toEqual(SUBJECT_VALUES);
    erased = await eraseOf('member', subject.id, 'erasure-m');
  });

  test("the entries of its documents are found by the member's id (the listing's subjectId), in the export too", async () => {
    const doc = before.get(documentLogId)!;
    expect(doc).toMatchObject({
      classId: 'Member',
      entityType: 'member_document',
      additionalData: { memberId: subject.id },
    });
    expect(doc.entityId).not.toBe(subject.id);
    expect(await listed(documentLogId)).toMatchObject({ subjectId: subject.id });
    const found = await t.rt.documents.find('logs', { subjectId: subject.id }, { sort: { timeStamp: -1, id: 1 } });
    expect(found.items.map((d) => String(d._id))).toEqual([documentLogId]);
  });

  test('it answers how many entries it anonymised and files it deleted', () => {
    expect(erased).toEqual({ records: ids.length, files: 1 });
  });

  test('no value of the subject is left in the stored entries; the fact of each change stays; each is marked', async () => {
    for (const id of ids) {
      const was = before.get(id)!;
      const now = await stored(id);
      expect(holdsAny(now, SUBJECT_VALUES)).toEqual([]);
      // which fields changed and how, by whom, when, in which company: as before
      expect(now.fieldUpdates.map((u: any) => [u.key, u.operation, u.isLarge])).toEqual(
        was.fieldUpdates.map((u: any) => [u.key, u.operation, u.isLarge]),
      );
      for (const u of now.fieldUpdates) {
        if (u.oldValue !== undefined) expect(u.oldValue).toBe(ERASED_JSON);
        if (u.newValue !== undefined) expect(u.newValue).toBe(ERASED_JSON);
      }
      const { fieldUpdates: _a, additionalData: _b, erasedBy, erasedAt, ...rest } = now;
      const { fieldUpdates: _c, additionalData: _d, ...restBefore } = was;
      expect(rest).toEqual(restBefore);
      expect(erasedBy).toBe('erasure-m');
      expect(Date.parse(erasedAt)).not.toBeNaN();
      // the back-office users are other people: their names stay
      expect([MAKER_NAME, REVIEWER_NAME]).toContain(now.actor.name);
    }
    // additionalData keeps its keys, and the document's link to the member
    const doc = await stored(documentLogId);
    expect(doc.additionalData).toEqual({ memberId: subject.id });
    const creation = await stored(largeLogId);
    expect(Object.keys(creation.additionalData)).toEqual(Object.keys(before.get(largeLogId)!.additionalData));
    expect(Object.values(creation.additionalData).filter((v) => typeof v === 'string' && v !== ERASED)).toEqual([]);
  });

  test('the listing is projected again: its search text and fields hold no value of the subject', async () => {
    await waitFor(
      async () => {
        const docs = await Promise.all(ids.map(listed));
        return docs.every((d) => d && holdsAny(d, SUBJECT_VALUES).length === 0);
      },
      { what: 'the erased entries projected again' },
    );
    for (const id of ids) {
      const doc = (await listed(id))!;
      expect(doc.searchText).toContain(ERASED_JSON);
      expect(doc.fieldCount).toBe(before.get(id)!.fieldUpdates.length);
    }
    const searched = await t.get(`${p}/LogManager/getLogEntries?search=${SURNAME}&limit=100`, maker);
    expect(searched.body.entries.map((e: any) => e.id).filter((id: string) => ids.includes(id))).toEqual([]);
  });

  test("the large entry's LARGE_LOG file is deleted, and no LARGE_LOG file holds a value of the subject", async () => {
    const was = before.get(largeLogId)!;
    expect(await t.rt.ports.blobs.stat(largeLogBlobName(was.entityType, was.entityId, largeLogId))).toBeNull();
    for await (const name of t.rt.ports.blobs.names()) {
      if (!name.startsWith('LARGE_LOG_')) continue;
      const blob = await t.rt.ports.blobs.get(name);
      expect([name, holdsAny(blob!.data.toString('utf8'), SUBJECT_VALUES)]).toEqual([name, []]);
    }
  });

  test('getLog still answers every erased entry, the large one too, with its values [erased]', async () => {
    for (const id of ids) {
      const r = await t.get(`${p}/LogManager/getLog?logId=${id}`, maker);
      expect([id, r.status]).toEqual([id, 200]);
      expect(holdsAny(r.body, SUBJECT_VALUES)).toEqual([]);
    }
    const large = await t.get(`${p}/LogManager/getLog?logId=${largeLogId}`, maker);
    expect(large.body).toMatchObject({ isLargeLog: true, erasedBy: 'erasure-m' });
    expect(large.body.fieldUpdates.find((u: any) => u.key === 'note')).toEqual({
      key: 'note',
      operation: 'add',
      newValue: ERASED_JSON,
      isLarge: true,
    });
    // the export of someone who made such an entry does not look for its file either
    const byMaker = await exportOf('program_management_user', 'pm-maker');
    expect(byMaker.records.map((r) => r.instanceId)).toContain(largeLogId);
    expect(byMaker.files.map((f) => f.instanceId)).not.toContain(largeLogId);
  });

  test('a second call erases nothing', async () => {
    expect(await eraseOf('member', subject.id, 'erasure-m')).toEqual({ records: 0, files: 0 });
    expect(await eraseOf('member', subject.id, 'erasure-again')).toEqual({ records: 0, files: 0 });
    expect((await stored(ids[0])).erasedBy).toBe('erasure-m');
  });

  test("another member's entries are untouched", async () => {
    expect(await Promise.all(otherIds.map(stored))).toEqual(otherBefore);
    expect(holdsAny(otherBefore, ['Bartholomew'])).toEqual(['Bartholomew']);
  });

  describe('the back-office users who made the changes', () => {
    test("a company user's erasure takes the maker's name off its company's entries only", async () => {
      const otherCompany = otherIds.filter((id) => otherBefore.find((e) => e.id === id)!.actor.id === 'pm-maker');
      expect(otherCompany.length).toBeGreaterThan(0);
      const inC1 = (await eraseOf('program_management_user', 'pm-maker', 'erasure-u', 'c-1')).records;
      expect(inC1).toBeGreaterThan(0);
      for (const id of ids) {
        const e = await stored(id);
        if (e.actor.id === 'pm-maker')
          expect(e.actor).toMatchObject({ id: 'pm-maker', name: ERASED, roles: ['super'] });
      }
      // the entries of the member in c-2 still name the maker
      for (const id of otherCompany) expect((await stored(id)).actor.name).toBe(MAKER_NAME);
      // and a member of c-2 is beyond a c-1 erasure
      expect(await eraseOf('member', other.id, 'erasure-x', 'c-1')).toEqual({ records: 0, files: 0 });
      expect(await Promise.all(otherIds.map(stored))).toEqual(otherBefore);
    });

    test("an unscoped erasure takes it off the rest; the values of the maker's entries (about others) stay, but for its name", async () => {
      const rest = await eraseOf('program_management_user', 'pm-maker', 'erasure-u');
      expect(rest.records).toBeGreaterThan(0);
      expect(rest.files).toBe(0);
      const made = await Promise.all(otherIds.map(stored));
      const byMaker = made.filter((x) => x.actor.id === 'pm-maker');
      // the other member's creation copies its maker (createdBy) among its values
      expect(
        holdsAny(
          otherBefore.filter((x) => x.actor.id === 'pm-maker'),
          [MAKER_NAME],
        ),
      ).toEqual([MAKER_NAME]);
      for (const e of byMaker) {
        expect(e.actor.name).toBe(ERASED);
        expect(e.erasedBy).toBeUndefined();
        expect(holdsAny(e, ['Bartholomew', 'Otherwise', MAKER_NAME])).toEqual(['Bartholomew', 'Otherwise']);
        const was = otherBefore.find((x) => x.id === e.id)!;
        expect(e.fieldUpdates.map((u: any) => u.key)).toEqual(was.fieldUpdates.map((u: any) => u.key));
      }
      await waitFor(
        async () => {
          const docs = await t.rt.documents.find(
            'logs',
            { 'actor.id': 'pm-maker' },
            { sort: { timeStamp: -1, id: 1 } },
          );
          return docs.items.every((d) => !holdsAny(d, [MAKER_NAME]).length);
        },
        { what: "the maker's entries projected without its name" },
      );
      expect(await eraseOf('program_management_user', 'pm-maker', 'erasure-u')).toEqual({ records: 0, files: 0 });
      // the reviewer is someone else again
      const approvedBy = [...before.values()].find((e) => e.actor.id === 'pm-reviewer')!;
      expect((await stored(approvedBy.id)).actor.name).toBe(REVIEWER_NAME);
    });
  });
});

describe('access', () => {
  test('only DataSubject may call it: a back-office user (even level 1) and another class are refused', async () => {
    const body = { subject: { type: 'member', id: 'nobody' }, erasureId: 'e' };
    await expectDataSubjectOnly(t, 'LogManager', 'eraseSubjectData', body, {
      users: [backOfficeUser(t, 'pm-root', ['super'])],
      classes: ['Member'],
    });
    // the entries' own write is LogManager's
    const some = (await t.rt.documents.find('logs', {}, { sort: { timeStamp: -1, id: 1 }, limit: 1 })).items[0];
    await expectClassOwn(t, 'LogManager', 'eraseEntry', String(some._id), body, { classes: ['DataSubject'] });
    // a subject with nothing: zeros
    expect(await eraseOf('partner_user', 'nobody', 'e')).toEqual({ records: 0, files: 0 });
  });
});
