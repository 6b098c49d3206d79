/**
 * UserNotification.eraseSubjectData over real Redis and HTTP: the subject's
 * inbox emptied for DataSubject's erasure (every item removed, counted), its
 * values nowhere in the stored state, the owner reading an empty inbox;
 * zeros on a second call, for a partner user and for an inbox never written
 * (not created); other inboxes untouched; only DataSubject may ask, only this
 * class reaches eraseInbox; a caller limited to a company erases only its
 * company's subjects, by the company DataSubject hands over.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { projectRoot, type Identity } from '../../runtime';
import { createAjv } from '../../runtime/actor/validation';
import { startTestRuntime, type TestRuntime } from '../support/harness';
import { bearer, call, inboxItems, uid } from '../NotificationManager/support';

const root = projectRoot();
let t: TestRuntime;

beforeAll(async () => {
  t = await startTestRuntime({
    env: { CLASS_DIRS: path.join(root, 'classes/UserNotification'), SCHEMA_DIRS: path.join(root, 'schemas') },
  });
});
afterAll(() => t.stop());

const asClass = (classId: string, tenant?: string): Identity => ({
  type: 'class',
  classId,
  instanceId: 'x',
  ...(tenant ? { tenant } : {}),
});
const answerValid = createAjv().compile(
  JSON.parse(fs.readFileSync(path.join(root, 'schemas/UserNotification/eraseSubjectData.answer.json'), 'utf8')),
);

/** eraseSubjectData as DataSubject calls it: the caller's company along when it has one, and the subject's */
function eraseCall(type: string, id: string, tenant?: string, subjectCompanyId?: string | null) {
  return t.rt.call(
    'UserNotification',
    'eraseSubjectData',
    undefined,
    {
      subject: { type, id },
      erasureId: 'erasure-1',
      ...(subjectCompanyId !== undefined ? { subjectCompanyId } : {}),
    },
    { identity: asClass('DataSubject', tenant), origin: 'class' },
  );
}
async function erase(
  type: string,
  id: string,
  tenant?: string,
  subjectCompanyId?: string | null,
): Promise<Record<string, any>> {
  const r = await eraseCall(type, id, tenant, subjectCompanyId);
  expect(r.status).toBe(200);
  expect(answerValid(r.body)).toBe(true);
  return r.body as Record<string, any>;
}

/** a notification delivered as NotificationManager's in-app channel delivers it (a class) */
async function deliver(inbox: string, content: string, extra: Record<string, unknown> = {}) {
  const r = await t.rt.call(
    'UserNotification',
    'addNotification',
    inbox,
    { templateId: 'MEMBER_WELCOME', content, ...extra },
    { identity: asClass('NotificationManager'), origin: 'class' },
  );
  expect(r.status).toBe(201);
  return r.body as Record<string, any>;
}

async function stateJson(inboxId: string): Promise<string | undefined> {
  return (await t.rt.store.read('UserNotification', inboxId))?.stateJson;
}

describe('eraseSubjectData', () => {
  test("a member's inbox: every item removed and counted, its values nowhere in the state; the owner reads it empty", async () => {
    const member = uid('m');
    const inbox = `M${member}`;
    const first = await deliver(inbox, 'Dear Zelda Quistgaard, your tier changed', {
      subject: 'Hello Zelda Quistgaard',
      metadata: { link: '/benefits/zq-7781' },
    });
    await deliver(inbox, 'Your claim ZQ-CLAIM-4410 was paid');
    const read = await call(
      t,
      'UserNotification',
      'markNotificationAsRead',
      inbox,
      { notificationId: first.id },
      bearer(t, 'enduser', member),
    );
    expect(read.status).toBe(204);
    // another member's inbox, and a back-office user's inbox of the same id, are someone else's
    const other = uid('m');
    await deliver(`M${other}`, 'Someone else: Ola Nordmann');
    await deliver(`PM${member}`, 'Not the member: Kari Nordmann');

    expect(await erase('member', member)).toEqual({ records: 2, files: 0 });

    const json = (await stateJson(inbox))!;
    for (const value of ['Zelda', 'Quistgaard', 'zq-7781', 'ZQ-CLAIM-4410', first.id])
      expect(json).not.toContain(value);
    const state = JSON.parse(json).private;
    expect(state.items).toEqual([]);
    expect(state.owner).toEqual({ type: 'member', userId: member });
    // the owner reads an empty inbox
    const headers = bearer(t, 'enduser', member);
    const listed = await call(t, 'UserNotification', 'listUserNotifications', inbox, {}, headers);
    expect([listed.status, listed.body.notifications, listed.body.totalCount]).toEqual([200, [], 0]);
    const unread = await call(t, 'UserNotification', 'getUnreadCount', inbox, {}, headers);
    expect(unread.body).toEqual({ unreadCount: 0 });

    // the others are untouched
    expect((await inboxItems(t, `M${other}`)).map((i) => i.content)).toEqual(['Someone else: Ola Nordmann']);
    expect((await inboxItems(t, `PM${member}`)).map((i) => i.content)).toEqual(['Not the member: Kari Nordmann']);

    // nothing left: a second call (a retry) answers zeros and writes nothing
    const version = (await t.rt.store.read('UserNotification', inbox))!.version;
    expect(await erase('member', member)).toEqual({ records: 0, files: 0 });
    expect((await t.rt.store.read('UserNotification', inbox))!.version).toBe(version);
  });

  test("a back-office user's inbox is PM<id>; the count of items dropped for the cap stays", async () => {
    const pm = uid('p');
    await deliver(`PM${pm}`, 'Approval waiting for Ingrid Vasquez-Lindqvist');
    const before = JSON.parse((await stateJson(`PM${pm}`))!).private;
    expect(await erase('program_management_user', pm)).toEqual({ records: 1, files: 0 });
    const after = JSON.parse((await stateJson(`PM${pm}`))!).private;
    expect(after).toEqual({ ...before, items: [] });
    expect(JSON.stringify(after)).not.toContain('Vasquez');
  });

  test('zeros for a partner user, an inbox never written (not created), or an id no inbox can have', async () => {
    const someone = uid('x');
    await deliver(`M${someone}`, 'kept');
    expect(await erase('partner_user', someone)).toEqual({ records: 0, files: 0 });
    expect(await erase('member', `id!${someone}`)).toEqual({ records: 0, files: 0 });
    const fresh = uid('m');
    expect(await erase('member', fresh)).toEqual({ records: 0, files: 0 });
    expect(await t.rt.store.read('UserNotification', `M${fresh}`)).toBeUndefined();
    expect(await inboxItems(t, `M${someone}`)).toHaveLength(1);
  });
});

describe('who may call it', () => {
  test('DataSubject only: users over HTTP, anonymous callers and other classes are refused, and nothing goes', async () => {
    const member = uid('m');
    await deliver(`M${member}`, 'private');
    const body = { subject: { type: 'member', id: member }, erasureId: 'e-1' };
    const url = `/${t.projectId}/CALL/UserNotification/eraseSubjectData`;
    for (const headers of [bearer(t, 'program_management_user', uid('p'), ['super']), bearer(t, 'enduser', member)]) {
      const r = await t.post(url, body, headers);
      expect([r.status, r.body.code]).toEqual([403, 1008]);
    }
    expect((await t.post(url, body)).status).toBe(401);
    for (const classId of ['Member', 'NotificationManager', 'UserNotification']) {
      await expect(
        t.rt.call('UserNotification', 'eraseSubjectData', undefined, body, {
          identity: asClass(classId),
          origin: 'class',
        }),
      ).rejects.toMatchObject({ status: 403, code: 1008 });
    }
    expect(await inboxItems(t, `M${member}`)).toHaveLength(1);
  });

  test('eraseInbox is this class’s own: neither DataSubject, nor another class, nor the owner over HTTP reaches it', async () => {
    const member = uid('m');
    await deliver(`M${member}`, 'private');
    for (const classId of ['DataSubject', 'NotificationManager']) {
      await expect(
        t.rt.call('UserNotification', 'eraseInbox', `M${member}`, {}, { identity: asClass(classId), origin: 'class' }),
      ).rejects.toMatchObject({ status: 403 });
    }
    const own = await t.post(
      `/${t.projectId}/CALL/UserNotification/eraseInbox/M${member}`,
      {},
      bearer(t, 'enduser', member),
    );
    expect(own.status).toBe(403);
    expect(await inboxItems(t, `M${member}`)).toHaveLength(1);
  });
});

describe('company scope', () => {
  test("a caller limited to a company erases its company's subjects, by the company DataSubject hands over", async () => {
    const member = uid('m');
    await deliver(`M${member}`, 'private');
    expect(await erase('member', member, 'c-1', 'c-1')).toEqual({ records: 1, files: 0 });
    expect(await inboxItems(t, `M${member}`)).toEqual([]);
  });

  test("another company's subject, or a call naming no company, is refused 403 1023 and nothing goes", async () => {
    const member = uid('m');
    await deliver(`M${member}`, 'private');
    await deliver(`PM${member}`, 'private');
    for (const subjectCompanyId of ['c-2', null, undefined]) {
      for (const type of ['member', 'program_management_user']) {
        await expect(eraseCall(type, member, 'c-1', subjectCompanyId)).rejects.toMatchObject({
          status: 403,
          code: 1023,
        });
      }
    }
    expect(await inboxItems(t, `M${member}`)).toHaveLength(1);
    expect(await inboxItems(t, `PM${member}`)).toHaveLength(1);
    // a subject of whom the class keeps nothing is no refusal
    expect(await erase('partner_user', member, 'c-1')).toEqual({ records: 0, files: 0 });
  });
});
