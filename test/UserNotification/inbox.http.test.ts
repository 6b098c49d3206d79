/**
 * UserNotification over real Redis and HTTP: inboxes created by their first
 * item, ownership (spec 5: an enduser only its M inbox, a program management
 * user only its PM inbox), pagination (1-100, default 10, newest first),
 * unread count, read / status / delete answering 204.
 */
import type { TestRuntime } from '../support/harness';
import { bearer, call, seedNotifyRoles, startNotifyRuntime, uid, type Headers } from '../NotificationManager/support';

let t: TestRuntime;

beforeAll(async () => {
  t = await startNotifyRuntime();
  await seedNotifyRoles(t);
});
afterAll(() => t.stop());

const un = (method: string, inbox: string, body: unknown, headers: Headers) =>
  call(t, 'UserNotification', method, inbox, body, headers);
/** an item delivered as NotificationManager does (a class; here the system identity) */
async function deliver(inbox: string, n: number, extra: Record<string, unknown> = {}): Promise<Record<string, any>[]> {
  const items: Record<string, any>[] = [];
  for (let i = 0; i < n; i++) {
    const r = await t.rt.call('UserNotification', 'addNotification', inbox, {
      templateId: 'MEMBER_WELCOME',
      content: `item ${i}`,
      ...extra,
    });
    items.push(r.body as Record<string, any>);
  }
  return items;
}

describe('ownership (spec 5)', () => {
  test('an enduser reaches its own M inbox only; a back-office user its own PM inbox only', async () => {
    const member = uid('m');
    const pm = uid('p');
    await deliver(`M${member}`, 1);
    await deliver(`PM${pm}`, 1);
    await deliver(`M${pm}`, 1);
    const asMember = bearer(t, 'enduser', member);
    const asPm = bearer(t, 'program_management_user', pm, ['clerk']);
    const asOtherMember = bearer(t, 'enduser', uid('m'));

    expect((await un('getUnreadCount', `M${member}`, {}, asMember)).body).toEqual({ unreadCount: 1 });
    // a level-10 user without any NotificationManager or UserNotification permission reads its own inbox
    expect((await un('getUnreadCount', `PM${pm}`, {}, asPm)).body).toEqual({ unreadCount: 1 });

    for (const [inbox, who] of [
      [`M${member}`, asOtherMember],
      [`PM${pm}`, asMember],
      [`M${member}`, asPm],
      // the same user id under the other prefix is someone else's inbox
      [`M${pm}`, asPm],
    ] as const) {
      for (const method of ['getUnreadCount', 'listUserNotifications']) {
        const r = await un(method, inbox, {}, who);
        expect([method, inbox, r.status, r.body.code]).toEqual([method, inbox, 403, 16100]);
      }
    }
    const item = (await un('listUserNotifications', `M${member}`, {}, asMember)).body.notifications[0];
    for (const [method, body] of [
      ['markNotificationAsRead', { notificationId: item.id }],
      ['updateNotificationStatus', { notificationId: item.id, status: 'archived' }],
      ['deleteNotification', { notificationId: item.id }],
    ] as const) {
      const r = await un(method, `M${member}`, body, asOtherMember);
      expect([method, r.status, r.body.code]).toEqual([method, 403, 16100]);
    }
    // nothing changed
    expect((await un('getUnreadCount', `M${member}`, {}, asMember)).body).toEqual({ unreadCount: 1 });
  });

  test('a company user reaches its own inbox; member_otp sessions and users reach no inbox method', async () => {
    const pm = uid('p');
    await deliver(`PM${pm}`, 2);
    const companyUser = {
      authorization: `Bearer ${t.rt.tokens.sign({ sub: pm, identity: 'program_management_user', roles: ['clerk'], tenant: 'c-1' })}`,
    };
    expect((await un('getUnreadCount', `PM${pm}`, {}, companyUser)).body).toEqual({ unreadCount: 2 });
    const other = {
      authorization: `Bearer ${t.rt.tokens.sign({ sub: uid('p'), identity: 'program_management_user', roles: ['super'], tenant: 'c-1' })}`,
    };
    expect((await un('getUnreadCount', `PM${pm}`, {}, other)).status).toBe(403);
    const otp = bearer(t, 'member_otp', pm);
    expect([(await un('getUnreadCount', `M${pm}`, {}, otp)).status]).toEqual([403]);
    // addNotification is for classes: users cannot write into inboxes
    const own = await un(
      'addNotification',
      `PM${pm}`,
      { templateId: 'X', content: 'spoofed' },
      bearer(t, 'program_management_user', pm, ['super']),
    );
    expect([own.status, own.body.code]).toEqual([403, 1008]);
  });

  test("another user's inbox answers the same 403 whether it exists or not: the id is judged before the inbox is looked up", async () => {
    const existing = uid('m');
    await deliver(`M${existing}`, 1);
    const stranger = bearer(t, 'enduser', uid('m'));
    for (const inbox of [`M${existing}`, `M${uid('m')}`]) {
      for (const [method, body] of [
        ['listUserNotifications', {}],
        ['getUnreadCount', {}],
        ['markNotificationAsRead', { notificationId: 'n-1' }],
        ['deleteNotification', { notificationId: 'n-1' }],
      ] as const) {
        const r = await un(method, inbox, body, stranger);
        expect([method, r.status, r.body]).toEqual([
          method,
          403,
          { code: 16100, message: expect.stringContaining(`Inbox ${inbox} is not yours`), classId: 'UserNotification' },
        ]);
      }
    }
    // an id that is no inbox id: 400 alike, whoever asks
    expect((await un('getUnreadCount', 'X123', {}, stranger)).body.code).toBe(16102);
  });

  test('an own inbox that has had no item yet reads as empty; changing an item in it is 404 and creates nothing', async () => {
    const member = uid('m');
    const asMember = bearer(t, 'enduser', member);
    const list = await un('listUserNotifications', `M${member}`, {}, asMember);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ notifications: [], totalCount: 0, page: 1 });
    expect((await un('getUnreadCount', `M${member}`, {}, asMember)).body).toEqual({ unreadCount: 0 });
    const mark = await un('markNotificationAsRead', `M${member}`, { notificationId: 'n-1' }, asMember);
    expect([mark.status, mark.body.code]).toEqual([404, 16101]);
    expect(await t.rt.store.read('UserNotification', `M${member}`)).toBeUndefined();
    // a back-office user's own empty inbox alike
    const pm = uid('p');
    expect(
      (await un('getUnreadCount', `PM${pm}`, {}, bearer(t, 'program_management_user', pm, ['clerk']))).body,
    ).toEqual({ unreadCount: 0 });
  });

  test('an id that is no inbox id is refused and creates nothing', async () => {
    await expect(
      t.rt.call('UserNotification', 'addNotification', 'X123', { templateId: 'T', content: 'c' }),
    ).rejects.toMatchObject({ status: 400, code: 16102 });
    expect(await t.rt.store.read('UserNotification', 'X123')).toBeUndefined();
  });
});

describe('the inbox', () => {
  test('addNotification answers the created item, unread; the first one creates the inbox', async () => {
    const inbox = `M${uid('m')}`;
    expect(await t.rt.store.read('UserNotification', inbox)).toBeUndefined();
    const r = await t.rt.call('UserNotification', 'addNotification', inbox, {
      templateId: 'MEMBER_WELCOME',
      subject: 'Hi',
      content: 'Hello',
      metadata: { link: '/home' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      templateId: 'MEMBER_WELCOME',
      subject: 'Hi',
      content: 'Hello',
      metadata: { link: '/home' },
      status: 'unread',
      userId: inbox.slice(1),
    });
    expect(typeof (r.body as { id: string }).id).toBe('string');
    expect(Date.parse((r.body as { createdAt: string }).createdAt)).not.toBeNaN();
  });

  test('pages of 10 by default, newest first, 1 to 100 per page, filtered by status (POST body or GET query)', async () => {
    const member = uid('m');
    const inbox = `M${member}`;
    await deliver(inbox, 25);
    const me = bearer(t, 'enduser', member);
    const first = await un('listUserNotifications', inbox, {}, me);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ totalCount: 25, page: 1, limit: 10, totalPages: 3 });
    expect(first.body.notifications.map((n: { content: string }) => n.content)).toEqual(
      Array.from({ length: 10 }, (_, i) => `item ${24 - i}`),
    );
    const last = await t.get(`/${t.projectId}/CALL/UserNotification/listUserNotifications/${inbox}?page=3`, me);
    expect(last.body.notifications.map((n: { content: string }) => n.content)).toEqual([
      'item 4',
      'item 3',
      'item 2',
      'item 1',
      'item 0',
    ]);
    const all = await un('listUserNotifications', inbox, { limit: 100 }, me);
    expect(all.body.notifications).toHaveLength(25);
    const beyond = await un('listUserNotifications', inbox, { page: 9 }, me);
    expect(beyond.body).toMatchObject({ notifications: [], totalCount: 25, page: 9 });

    const tooMany = await un('listUserNotifications', inbox, { limit: 101 }, me);
    expect(tooMany.status).toBe(400);
    const badQuery = await t.get(
      `/${t.projectId}/CALL/UserNotification/listUserNotifications/${inbox}?limit=0&status=gone`,
      me,
    );
    expect([badQuery.status, badQuery.body.code]).toEqual([400, 16103]);
    expect(badQuery.body.details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['limit', 'status']);

    const newest = first.body.notifications[0];
    expect((await un('markNotificationAsRead', inbox, { notificationId: newest.id }, me)).status).toBe(204);
    const read = await un('listUserNotifications', inbox, { status: 'read' }, me);
    expect(read.body.notifications.map((n: { id: string }) => n.id)).toEqual([newest.id]);
    expect((await un('listUserNotifications', inbox, { status: 'unread' }, me)).body.totalCount).toBe(24);
  });

  test('read, status and delete answer 204 and move the unread count; an unknown id is 404', async () => {
    const pm = uid('p');
    const inbox = `PM${pm}`;
    const [a, b, c] = await deliver(inbox, 3);
    const me = bearer(t, 'program_management_user', pm, ['clerk']);
    const count = async () => (await un('getUnreadCount', inbox, {}, me)).body.unreadCount;
    const item = async (id: string) =>
      (await un('listUserNotifications', inbox, { limit: 100 }, me)).body.notifications.find(
        (n: { id: string }) => n.id === id,
      );
    expect(await count()).toBe(3);

    const read = await un('markNotificationAsRead', inbox, { notificationId: a!.id }, me);
    expect([read.status, read.body]).toEqual([204, null]);
    const readAt = (await item(a!.id)).readAt;
    expect(Date.parse(readAt)).not.toBeNaN();
    expect(await count()).toBe(2);
    // reading it again keeps the first readAt
    await un('markNotificationAsRead', inbox, { notificationId: a!.id }, me);
    expect((await item(a!.id)).readAt).toBe(readAt);

    expect(
      (await un('updateNotificationStatus', inbox, { notificationId: b!.id, status: 'archived' }, me)).status,
    ).toBe(204);
    expect((await item(b!.id)).status).toBe('archived');
    expect(await count()).toBe(1);
    expect((await un('updateNotificationStatus', inbox, { notificationId: a!.id, status: 'unread' }, me)).status).toBe(
      204,
    );
    expect(await item(a!.id)).not.toHaveProperty('readAt');
    expect(await count()).toBe(2);

    expect((await un('deleteNotification', inbox, { notificationId: c!.id }, me)).status).toBe(204);
    expect(await item(c!.id)).toBeUndefined();
    expect(await count()).toBe(1);

    for (const [method, body] of [
      ['markNotificationAsRead', { notificationId: c!.id }],
      ['updateNotificationStatus', { notificationId: 'nope', status: 'read' }],
      ['deleteNotification', { notificationId: c!.id }],
    ] as const) {
      const r = await un(method, inbox, body, me);
      expect([method, r.status, r.body.code]).toEqual([method, 404, 16101]);
    }
    const bad = await un('updateNotificationStatus', inbox, { notificationId: a!.id, status: 'deleted' }, me);
    expect(bad.status).toBe(400);
  });
});
