/**
 * LogManager through real HTTP (and class-to-class calls through the
 * dispatcher): recording, masking, large values, listing and access.
 */
import { ActorError, type Identity } from '../../runtime';
import { largeLogBlobName } from '../../classes/LogManager/log-entry';
import { startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime, seedRoles } from '../support/harness';

const GIZMO: Identity = { type: 'class', classId: 'Gizmo', instanceId: 'g1' };
/** a string whose JSON text is exactly `bytes` bytes long */
const valueOfJsonBytes = (bytes: number, ch = 'x') => ch.repeat(bytes - 2);

describe('LogManager', () => {
  let t: TestRuntime;
  let p: string;
  let pm: Record<string, string>;
  let pmLimited: Record<string, string>;
  let pmReader: Record<string, string>;

  const addAs = (identity: Identity, body: Record<string, unknown>) =>
    t.rt.dispatcher.call({ classId: 'LogManager', method: 'addLogEntry', body, identity, origin: 'class' });
  /** as the class whose change it logs (a class logs its own changes only) */
  const addAsClass = async (body: Record<string, unknown>) =>
    (await addAs({ ...GIZMO, classId: String(body.classId ?? GIZMO.classId) }, body)).body as {
      logId: string | null;
      fieldUpdates: number;
    };
  const entries = (query: string, headers = pm) => t.get(`${p}/getLogEntries?${query}`, headers);
  const getLog = (logId: string, headers = pm) => t.get(`${p}/getLog?logId=${encodeURIComponent(logId)}`, headers);
  /** wait until the listing for `query` holds `n` entries */
  const listed = (query: string, n: number) =>
    waitFor(
      async () => {
        const r = await entries(query);
        return r.status === 200 && r.body.totalCount === n ? r.body : undefined;
      },
      { what: `${n} entries for ${query}` },
    );
  /** a distinct millisecond, so that time stamps differ (polls the clock, no fixed sleep) */
  const nextMs = async () => {
    const now = Date.now();
    await waitFor(() => Date.now() > now);
  };

  beforeAll(async () => {
    t = await startTestRuntime({
      env: { CLASS_DIRS: 'classes/LogManager,classes/RoleManager,test/LogManager/fixtures', SCHEMA_DIRS: 'schemas' },
    });
    p = `/${t.projectId}/CALL/LogManager`;
    await seedRoles(t, [
      { id: 'super', name: 'super', level: 1, permissions: {} },
      { id: 'nothing', name: 'nothing', level: 10, permissions: {} },
      { id: 'reader', name: 'reader', level: 10, permissions: { LogManager: ['getLogEntries'] } },
    ]);
    pm = { authorization: `Bearer ${t.token('program_management_user', 'pm1', ['super'])}` };
    pmLimited = { authorization: `Bearer ${t.token('program_management_user', 'pm2', ['nothing'])}` };
    pmReader = { authorization: `Bearer ${t.token('program_management_user', 'pm3', ['reader'])}` };
  });
  afterAll(() => t.stop());

  describe('recording', () => {
    test('a class records a change; getLog returns the Log record of spec 2.8', async () => {
      const actor = { id: 'pm9', type: 'program_management_user', name: 'Pat' };
      const res = await addAsClass({
        classId: 'Member',
        entityType: 'member',
        entityId: 'rec-1',
        before: { name: 'Ann', status: 'pending', tags: ['a'] },
        after: { name: 'Anna', status: 'pending', grade: 'A' },
        actor,
        additionalData: { reason: 'hr sync' },
      });
      expect(res).toEqual({ logId: expect.stringMatching(/^[0-9a-f-]{36}$/), fieldUpdates: 3 });
      const r = await getLog(res.logId!);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        id: res.logId,
        classId: 'Member',
        entityId: 'rec-1',
        entityType: 'member',
        timeStamp: expect.any(String),
        isLargeLog: false,
        fieldUpdates: [
          { key: 'name', operation: 'replace', oldValue: '"Ann"', newValue: '"Anna"' },
          { key: 'tags', operation: 'remove', oldValue: '["a"]' },
          { key: 'grade', operation: 'add', newValue: '"A"' },
        ],
        actor,
        additionalData: { reason: 'hr sync' },
      });
      expect(new Date(r.body.timeStamp).toISOString()).toBe(r.body.timeStamp);
      expect(Math.abs(Date.now() - Date.parse(r.body.timeStamp))).toBeLessThan(60_000);
    });

    test('without an actor, a class caller is logged as the system acting through that class', async () => {
      const res = await addAsClass({
        classId: 'Gizmo',
        entityType: 'gizmo',
        entityId: 'rec-2',
        before: null,
        after: { a: 1 },
      });
      expect((await getLog(res.logId!)).body.actor).toEqual({ id: 'g1', type: 'system', name: 'class:Gizmo' });
    });

    test('users cannot write the audit log (spec 4.5: class identities only); a class logs only its own changes', async () => {
      const body = { classId: 'Note', entityType: 'note', entityId: 'rec-3', before: null, after: { text: 'hi' } };
      const byUser = await t.post(`${p}/addLogEntry`, body, pm);
      expect([byUser.status, byUser.body.code]).toEqual([403, 1008]);
      const forged = await t.post(`${p}/addLogEntry`, { ...body, actor: { id: 'boss', type: 'developer' } }, pm);
      expect([forged.status, forged.body.code]).toEqual([403, 1008]);
      // Gizmo writing an entry in Note's name
      const other = await addAs(GIZMO, body).catch((e: ActorError) => e);
      expect([(other as ActorError).status, (other as ActorError).code]).toEqual([403, 12003]);
      expect((await entries('entityId=rec-3')).body.totalCount).toBe(0);
    });

    test('nothing changed: no entry is written', async () => {
      const same = { name: 'Same', nested: { a: [1, 2] } };
      expect(
        await addAsClass({
          classId: 'Member',
          entityType: 'member',
          entityId: 'nochange',
          before: same,
          after: { nested: { a: [1, 2] }, name: 'Same' },
        }),
      ).toEqual({
        logId: null,
        fieldUpdates: 0,
      });
      expect(
        await addAsClass({
          classId: 'Member',
          entityType: 'member',
          entityId: 'nochange',
          before: { x: 1, updatedAt: 'a' },
          after: { x: 1, updatedAt: 'b' },
          ignore: ['updatedAt'],
        }),
      ).toEqual({
        logId: null,
        fieldUpdates: 0,
      });
      // a later entry is projected, so an earlier one would have been too
      await addAsClass({
        classId: 'Member',
        entityType: 'member',
        entityId: 'nochange-marker',
        before: null,
        after: { x: 1 },
      });
      await listed('entityId=nochange-marker', 1);
      expect((await entries('entityId=nochange')).body.totalCount).toBe(0);
    });

    test('bad input is a 400, never a 500', async () => {
      const good = { classId: 'Member', entityType: 'member', entityId: 'bad', before: null, after: { a: 1 } };
      for (const body of [
        { ...good, before: 'text' },
        { ...good, after: [1, 2] },
        { ...good, entityId: '' },
        { ...good, entityId: 12 },
        { classId: 'Member', entityType: 'member', before: null, after: {} },
        { ...good, sensitiveFields: 'phone' },
        { ...good, extra: true },
        { ...good, actor: { id: 'x', type: 'robot' } },
      ]) {
        const r = (await addAs({ ...GIZMO, classId: 'Member' }, body).catch((e: ActorError) => e)) as ActorError;
        expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 400]);
        expect((r.details as { errors: unknown[] }).errors.length).toBeGreaterThan(0);
      }
      const huge = await addAs(
        { ...GIZMO, classId: 'Member' },
        { ...good, additionalData: { blob: 'z'.repeat(17_000) } },
      ).catch((e: ActorError) => e);
      expect(huge).toBeInstanceOf(ActorError);
      expect([(huge as ActorError).status, (huge as ActorError).code]).toEqual([400, 12006]);
      // in-process callers can pass what JSON cannot encode: still a 400
      const bigint = await addAs({ ...GIZMO, classId: 'Member' }, { ...good, after: { n: BigInt(1) } }).catch(
        (e: ActorError) => e,
      );
      expect([(bigint as ActorError).status, (bigint as ActorError).code]).toEqual([400, 12008]);
    });

    test('logChange from another class logs under that class with the user behind the call', async () => {
      const created = await t.post(`/${t.projectId}/CALL/Gizmo/create/gz-1`, { name: 'G', phone: '555-1234' }, pm);
      expect(created.status).toBe(200);
      expect(created.body.logged).toEqual({ logId: expect.any(String), fieldUpdates: 2 });
      const updated = await t.post(`/${t.projectId}/CALL/Gizmo/update/gz-1`, { name: 'G2', updatedAt: 'now' }, pm);
      expect(updated.body.logged.fieldUpdates).toBe(1);
      const same = await t.post(`/${t.projectId}/CALL/Gizmo/update/gz-1`, { updatedAt: 'later' }, pm);
      expect(same.body.logged).toEqual({ logId: null, fieldUpdates: 0 });

      const list = await listed('classId=Gizmo&entityId=gz-1', 2);
      expect(list.entries.map((e: any) => e.fieldUpdates)).toEqual([
        [{ key: 'name', operation: 'replace', oldValue: '"G"', newValue: '"G2"' }],
        [
          { key: 'name', operation: 'add', newValue: '"G"' },
          { key: 'phone', operation: 'add', newValue: '"***"' },
        ],
      ]);
      for (const e of list.entries) {
        expect(e).toMatchObject({
          classId: 'Gizmo',
          entityType: 'gizmo',
          actor: { id: 'pm1', type: 'program_management_user' },
        });
      }
    });
  });

  describe('masking', () => {
    test('credentials at any depth and declared personal fields are masked, and still show that they changed', async () => {
      const res = await addAsClass({
        classId: 'Member',
        entityType: 'member',
        entityId: 'mask-1',
        before: {
          password: 'old-pass',
          birthdate: '1990-01-01',
          auth: { accessToken: 'tok-old', kind: 'sso' },
          name: 'A',
        },
        after: {
          password: 'new-pass',
          birthdate: '1991-01-01',
          auth: { accessToken: 'tok-new', kind: 'sso' },
          name: 'A',
          otp: '123456',
        },
        sensitiveFields: ['birthdate'],
        additionalData: { request: { apiKey: 'k-123', birthdate: '1991-01-01', source: 'hr' } },
      });
      expect(res.fieldUpdates).toBe(4);
      const full = await getLog(res.logId!);
      const list = await listed('entityId=mask-1', 1);
      for (const entry of [full.body, list.entries[0]]) {
        expect(entry.fieldUpdates).toEqual([
          { key: 'password', operation: 'replace', oldValue: '"***"', newValue: '"***"' },
          { key: 'birthdate', operation: 'replace', oldValue: '"***"', newValue: '"***"' },
          {
            key: 'auth',
            operation: 'replace',
            oldValue: '{"accessToken":"***","kind":"sso"}',
            newValue: '{"accessToken":"***","kind":"sso"}',
          },
          { key: 'otp', operation: 'add', newValue: '"***"' },
        ]);
        expect(entry.additionalData).toEqual({ request: { apiKey: '***', birthdate: '***', source: 'hr' } });
        const text = JSON.stringify(entry);
        for (const secret of [
          'old-pass',
          'new-pass',
          '1990-01-01',
          '1991-01-01',
          'tok-old',
          'tok-new',
          '123456',
          'k-123',
        ]) {
          expect(text).not.toContain(secret);
        }
      }
      // and a search for a secret finds nothing
      expect((await entries('entityId=mask-1&search=new-pass')).body.totalCount).toBe(0);
    });
  });

  describe('large values', () => {
    test('a value of exactly 1024 bytes stays inline; 1025 bytes goes to the LARGE_LOG file', async () => {
      const v1024 = valueOfJsonBytes(1024, 'a');
      const v1025 = valueOfJsonBytes(1025, 'b');

      const inline = await addAsClass({
        classId: 'Member',
        entityType: 'member',
        entityId: 'large-1',
        before: { note: 'x' },
        after: { note: v1024 },
      });
      const inlineLog = await getLog(inline.logId!);
      expect(inlineLog.body.isLargeLog).toBe(false);
      expect(inlineLog.body.fieldUpdates).toEqual([
        { key: 'note', operation: 'replace', oldValue: '"x"', newValue: JSON.stringify(v1024) },
      ]);
      expect(await t.rt.ports.blobs.stat(largeLogBlobName('member', 'large-1', inline.logId!))).toBeNull();

      await nextMs();
      const large = await addAsClass({
        classId: 'Member',
        entityType: 'member',
        entityId: 'large-1',
        before: { note: v1024, photo: v1025 },
        after: { note: v1025, photo: null, small: 1 },
      });
      expect(large.fieldUpdates).toBe(3);
      const name = `LARGE_LOG_member_large-1_${large.logId}.json`;
      const stat = await t.rt.ports.blobs.stat(name);
      expect(stat).toMatchObject({ name, contentType: 'application/json' });
      const stored = JSON.parse((await t.rt.ports.blobs.get(name))!.data.toString('utf8'));
      expect(stored.fieldUpdates.map((f: any) => f.key)).toEqual(['note', 'photo']);

      const expectedFull = [
        {
          key: 'note',
          operation: 'replace',
          oldValue: JSON.stringify(v1024),
          newValue: JSON.stringify(v1025),
          isLarge: true,
        },
        { key: 'photo', operation: 'replace', oldValue: JSON.stringify(v1025), newValue: 'null', isLarge: true },
        { key: 'small', operation: 'add', newValue: '1' },
      ];
      const full = await getLog(large.logId!);
      expect(full.status).toBe(200);
      expect(full.body.isLargeLog).toBe(true);
      expect(full.body.fieldUpdates).toEqual(expectedFull);

      const list = await listed('entityId=large-1', 2);
      expect(list.entries[0].id).toBe(large.logId);
      const [note, photo, small] = list.entries[0].fieldUpdates;
      expect(list.entries[0].isLargeLog).toBe(true);
      expect(note).toMatchObject({ key: 'note', isLarge: true, oldValue: JSON.stringify(v1024) });
      expect(Buffer.byteLength(note.newValue)).toBe(1024);
      expect(note.newValue).not.toBe(JSON.stringify(v1025));
      expect(JSON.stringify(v1025).startsWith(note.newValue)).toBe(true);
      expect(photo).toMatchObject({ key: 'photo', isLarge: true, newValue: 'null' });
      expect(Buffer.byteLength(photo.oldValue)).toBe(1024);
      expect(small).toEqual(expectedFull[2]);
    });

    test('entity type and id are made safe for the file name', async () => {
      const res = await addAsClass({
        classId: 'Member',
        entityType: 'member doc',
        entityId: '../x/ü',
        before: null,
        after: { big: 'q'.repeat(2000) },
      });
      expect(await t.rt.ports.blobs.stat(`LARGE_LOG_member_doc____x___${res.logId}.json`)).not.toBeNull();
      expect((await getLog(res.logId!)).body.fieldUpdates[0].newValue).toBe(JSON.stringify('q'.repeat(2000)));
    });

    test('a LARGE_LOG file that has gone missing is reported, not silently truncated', async () => {
      const res = await addAsClass({
        classId: 'Member',
        entityType: 'member',
        entityId: 'large-gone',
        before: null,
        after: { big: 'g'.repeat(2000) },
      });
      expect(await t.rt.ports.blobs.delete(largeLogBlobName('member', 'large-gone', res.logId!))).toBe(true);
      const r = await getLog(res.logId!);
      expect(r.status).toBe(500);
      expect(r.body).toMatchObject({ code: 12005 });
    });
  });

  describe('listing', () => {
    const ids: string[] = [];
    const stamps: string[] = [];

    beforeAll(async () => {
      for (let i = 0; i < 5; i++) {
        await nextMs();
        const res = await addAsClass({
          classId: i % 2 ? 'Company' : 'Tier',
          entityType: 'thing',
          entityId: i < 3 ? 'list-a' : 'list-b',
          before: { step: i },
          after: { step: i + 1, ...(i === 3 ? { Motto: 'Fly (high).' } : {}) },
          actor: { id: `user-${i}`, type: 'program_management_user', name: i === 4 ? 'Kari Nordmann' : `User ${i}` },
        });
        ids.push(res.logId!);
      }
      const all = await listed('entityType=thing&limit=100', 5);
      for (const id of ids) stamps.push(all.entries.find((e: any) => e.id === id).timeStamp);
    });

    test('newest first, with page info', async () => {
      const r = await entries('entityId=list-a');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ totalCount: 3, page: 1, limit: 20, totalPages: 1 });
      expect(r.body.entries.map((e: any) => e.id)).toEqual([ids[2], ids[1], ids[0]]);
      expect(stamps[0] < stamps[1] && stamps[1] < stamps[2]).toBe(true);
      for (const e of r.body.entries) expect(Object.keys(e).filter((k) => k.startsWith('_'))).toEqual([]);
    });

    test('pages', async () => {
      const p1 = await entries(`entityId=list-a&limit=2&page=1`);
      const p2 = await entries(`entityId=list-a&limit=2&page=2`);
      const p3 = await entries(`entityId=list-a&limit=2&page=3`);
      expect(p1.body).toMatchObject({ totalCount: 3, page: 1, limit: 2, totalPages: 2 });
      expect(p1.body.entries.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
      expect(p2.body.entries.map((e: any) => e.id)).toEqual([ids[0]]);
      expect(p3.body).toMatchObject({ entries: [], totalCount: 3, page: 3 });
      // POST with a body works the same
      const posted = await t.post(`${p}/getLogEntries`, { entityId: 'list-a', limit: 2, page: 2 }, pm);
      expect(posted.body.entries.map((e: any) => e.id)).toEqual([ids[0]]);
    });

    test('page size 1 to 100: 0 and 101 are refused, 100 is fine', async () => {
      for (const bad of ['limit=0', 'limit=101', 'limit=-5', 'limit=abc', 'page=0']) {
        const r = await entries(bad);
        expect([bad, r.status, r.body.code]).toEqual([bad, 400, 12001]);
      }
      for (const body of [{ limit: 0 }, { limit: 101 }, { page: 0 }, { limit: '10' }]) {
        const r = await t.post(`${p}/getLogEntries`, body, pm);
        expect([body, r.status]).toEqual([body, 400]);
        expect(r.body.details.errors.length).toBeGreaterThan(0);
      }
      const ok = await entries('limit=100');
      expect(ok.status).toBe(200);
      expect(ok.body.limit).toBe(100);
      expect(ok.body.entries.length).toBe(Math.min(100, ok.body.totalCount));
    });

    test('filters: classId, entityId', async () => {
      const tier = await entries('entityType=thing&classId=Tier');
      expect(tier.body.entries.map((e: any) => e.id).sort()).toEqual([ids[0], ids[2], ids[4]].sort());
      const b = await entries('entityId=list-b');
      expect(b.body.entries.map((e: any) => e.id)).toEqual([ids[4], ids[3]]);
      const both = await entries('classId=Company&entityId=list-b');
      expect(both.body.entries.map((e: any) => e.id)).toEqual([ids[3]]);
      expect((await entries('classId=Nobody')).body).toMatchObject({ entries: [], totalCount: 0, totalPages: 0 });
    });

    test('filters: date range (inclusive bounds, offsets understood); from after to is refused', async () => {
      const only2 = await entries(`entityType=thing&from=${stamps[2]}&to=${stamps[2]}`);
      expect(only2.body.entries.map((e: any) => e.id)).toEqual([ids[2]]);
      const from3 = await entries(`entityType=thing&from=${encodeURIComponent(stamps[3])}`);
      expect(from3.body.entries.map((e: any) => e.id)).toEqual([ids[4], ids[3]]);
      const to1 = await entries(`entityType=thing&to=${stamps[1]}`);
      expect(to1.body.entries.map((e: any) => e.id)).toEqual([ids[1], ids[0]]);
      // the same instant written with a +02:00 offset
      const shifted = new Date(Date.parse(stamps[1]) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      const to1b = await entries(`entityType=thing&to=${encodeURIComponent(shifted)}`);
      expect(to1b.body.entries.map((e: any) => e.id)).toEqual([ids[1], ids[0]]);
      const reversed = await entries(`from=${stamps[3]}&to=${stamps[1]}`);
      expect(reversed.status).toBe(400);
      expect(reversed.body.code).toBe(12002);
      expect((await entries('from=yesterday')).status).toBe(400);
    });

    test('search: case-insensitive in keys, values, actor name and id; special characters are literal', async () => {
      const byValue = await entries('entityType=thing&search=fly%20(HIGH)');
      expect(byValue.body.entries.map((e: any) => e.id)).toEqual([ids[3]]);
      const byKey = await entries('entityType=thing&search=motto');
      expect(byKey.body.entries.map((e: any) => e.id)).toEqual([ids[3]]);
      const byActorName = await entries('entityType=thing&search=nordmann');
      expect(byActorName.body.entries.map((e: any) => e.id)).toEqual([ids[4]]);
      const byActorId = await entries('entityType=thing&search=USER-1');
      expect(byActorId.body.entries.map((e: any) => e.id)).toEqual([ids[1]]);
      expect((await entries('entityType=thing&search=.*')).body.totalCount).toBe(0);
      expect((await entries('entityType=thing&search=(high')).body.totalCount).toBe(1);
    });
  });

  describe('access', () => {
    let logId: string;
    beforeAll(async () => {
      logId = (
        await addAsClass({ classId: 'Member', entityType: 'member', entityId: 'acc-1', before: null, after: { a: 1 } })
      ).logId!;
    });

    test('getLog is for program management users only', async () => {
      expect((await getLog(logId, { 'x-api-key': TEST_API_KEY })).status).toBe(403);
      expect((await getLog(logId, { authorization: `Bearer ${t.token('enduser', 'm1')}` })).status).toBe(403);
      expect((await getLog(logId, { authorization: `Bearer ${t.token('member_otp', 'm1')}` })).status).toBe(403);
      expect((await getLog(logId, {})).status).toBe(401);
      expect((await getLog(logId, pmReader)).status).toBe(403);
      expect((await getLog(logId, pm)).status).toBe(200);
      const byClass = await t.rt.dispatcher
        .call({ classId: 'LogManager', method: 'getLog', body: { logId }, identity: GIZMO, origin: 'class' })
        .catch((e: ActorError) => e);
      expect(byClass).toBeInstanceOf(ActorError);
      expect((byClass as ActorError).status).toBe(403);
    });

    test('getLogEntries is for program management users (with the permission) and classes', async () => {
      expect((await entries('entityId=acc-1', { 'x-api-key': TEST_API_KEY })).status).toBe(403);
      expect((await entries('entityId=acc-1', { authorization: `Bearer ${t.token('enduser', 'm1')}` })).status).toBe(
        403,
      );
      expect((await entries('entityId=acc-1', pmLimited)).status).toBe(403);
      await listed('entityId=acc-1', 1);
      expect((await entries('entityId=acc-1', pmReader)).body.totalCount).toBe(1);
      const byClass = await t.rt.dispatcher.call({
        classId: 'LogManager',
        method: 'getLogEntries',
        body: { entityId: 'acc-1' },
        identity: GIZMO,
        origin: 'class',
      });
      expect((byClass.body as { totalCount: number }).totalCount).toBe(1);
    });

    test('addLogEntry and record are refused to every user (back office, end users, integration); readEntry to everyone but LogManager; a class records only its own changes', async () => {
      const body = { classId: 'Member', entityType: 'member', entityId: 'acc-2', before: null, after: { a: 1 } };
      expect((await t.post(`${p}/addLogEntry`, body, pm)).status).toBe(403);
      expect((await t.post(`${p}/addLogEntry`, body, { 'x-api-key': TEST_API_KEY })).status).toBe(403);
      expect(
        (await t.post(`${p}/addLogEntry`, body, { authorization: `Bearer ${t.token('enduser', 'm1')}` })).status,
      ).toBe(403);
      expect((await t.post(`${p}/record/${'1'.repeat(8)}`, { id: '1'.repeat(8) }, pm)).status).toBe(403);
      expect((await t.get(`${p}/readEntry/${logId}`, pm)).status).toBe(403);
      // record is for classes, each recording its own changes only: Gizmo cannot write an entry in Member's name
      const forged = await t.rt.dispatcher
        .call({ classId: 'LogManager', method: 'record', instanceId: 'forged', body, identity: GIZMO, origin: 'class' })
        .catch((e: ActorError) => e);
      expect([(forged as ActorError).status, (forged as ActorError).code]).toEqual([403, 12003]);
      expect(await t.rt.store.exists('LogManager', 'forged')).toBe(false);
    });

    test('getLog: unknown or malformed ids are 404 (12004); a missing id is 400', async () => {
      for (const id of ['00000000-0000-4000-8000-000000000000', '../etc', 'a!b', 'x'.repeat(199)]) {
        const r = await getLog(id);
        expect([id, r.status, r.body.code]).toEqual([id, 404, 12004]);
      }
      const missing = await t.get(`${p}/getLog`, pm);
      expect([missing.status, missing.body.code]).toEqual([400, 12001]);
      const byBody = await t.post(`${p}/getLog`, { logId }, pm);
      expect(byBody.body.id).toBe(logId);
    });
  });
});
