/**
 * UserNotification.eraseSubjectData over real Redis and HTTP: the subject's
 * inbox emptied for DataSubject's erasure (every item removed, counted), its
 * values nowhere in the stored state, the owner reading an empty inbox;
 * zeros on a second call, for a partner user and for an inbox never written
 * (not created); other inboxes untouched; only DataSubject may ask, only this
 * class reaches eraseInbox; a caller limited to a company erases only its
 * company's subjects, by the company DataSubject hands over.
 */
import type { TestRuntime } from '../support/harness';
import {
  asClass,
  eraseBody,
  erasedBy,
  expectClassOwn,
  expectDataSubjectOnly,
  expectOnlyHandedOverCompany,
  startSubjectRuntime,
  storedState,
} from '../support/subject-data';
import { bearer, call, inboxItems, uid } from '../NotificationManager/support';

let t: TestRuntime;

beforeAll(async () => {
  t = await startSubjectRuntime({ CLASS_DIRS: 'classes/UserNotification' });
});
afterAll(() => t.stop());

/** eraseSubjectData as DataSubject calls it: the caller's company along when it has one, and the subject's */
const erase = (type: string, id: string, tenant?: string, subjectCompanyId?: string | null) =>
  erasedBy(t, 'UserNotification', { type, id }, 'erasure-1', { tenant, subjectCompanyId });

/** a notification delivered as NotificationManager's in-app channel delivers it (a class) */
async function deliver(inbox: string, content: string, extra: Record<string, unknown> = {}) {
  const r = await t.rt.call(
    'UserNotification',
    'addNotification',
    inbox,
    { templateId: 'MEMBER_WELCOME', content, ...extra },
    asClass('NotificationManager'),
  );
  expect(r.status).toBe(201);
  return r.body as Record<string, any>;
}

const stored = (inboxId: string) => storedState(t, 'UserNotification', inboxId);

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

    const { json, private: state } = await stored(inbox);
    for (const value of ['Zelda', 'Quistgaard', 'zq-7781', 'ZQ-CLAIM-4410', first.id])
      expect(json).not.toContain(value);
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
    const { version } = await stored(inbox);
    expect(await erase('member', member)).toEqual({ records: 0, files: 0 });
    expect((await stored(inbox)).version).toBe(version);
  });

  test("a back-office user's inbox is PM<id>; the count of items dropped for the cap stays", async () => {
    const pm = uid('p');
    await deliver(`PM${pm}`, 'Approval waiting for Ingrid Vasquez-Lindqvist');
    const before = (await stored(`PM${pm}`)).private;
    expect(await erase('program_management_user', pm)).toEqual({ records: 1, files: 0 });
    const after = (await stored(`PM${pm}`)).private;
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
    const body = eraseBody({ type: 'member', id: member }, 'e-1');
    await expectDataSubjectOnly(t, 'UserNotification', 'eraseSubjectData', body, {
      users: [bearer(t, 'program_management_user', uid('p'), ['super']), bearer(t, 'enduser', member)],
      classes: ['Member', 'NotificationManager', 'UserNotification'],
    });
    expect(await inboxItems(t, `M${member}`)).toHaveLength(1);
  });

  test('eraseInbox is this class’s own: neither DataSubject, nor another class, nor the owner over HTTP reaches it', async () => {
    const member = uid('m');
    await deliver(`M${member}`, 'private');
    await expectClassOwn(
      t,
      'UserNotification',
      'eraseInbox',
      `M${member}`,
      {},
      {
        users: [bearer(t, 'enduser', member)],
        classes: ['DataSubject', 'NotificationManager'],
      },
    );
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
    await expectOnlyHandedOverCompany(t, 'UserNotification', 'eraseSubjectData', member, [
      'member',
      'program_management_user',
    ]);
    expect(await inboxItems(t, `M${member}`)).toHaveLength(1);
    expect(await inboxItems(t, `PM${member}`)).toHaveLength(1);
    // a subject of whom the class keeps nothing is no refusal
    expect(await erase('partner_user', member, 'c-1')).toEqual({ records: 0, files: 0 });
  });
});
