/** UserNotification's pure rules (classes/UserNotification/rules.ts). */
import {
  INBOX_CAP,
  inboxOwner,
  mayReach,
  invalidQuery,
  listQuery,
  pageOf,
  unreadCount,
  withItem,
  withStatus,
} from '../../classes/UserNotification/rules';
import type { NotificationItem } from '../../classes/UserNotification/types';
import { schemaRefusal } from './support';

function item(i: number, status: NotificationItem['status'] = 'unread'): NotificationItem {
  return {
    id: `n${i}`,
    userId: 'u',
    templateId: 'T',
    content: `item ${i}`,
    status,
    createdAt: `2030-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
  };
}

describe('inbox ids and ownership (spec 5)', () => {
  test('M<userId> is a member inbox, PM<userId> a program management user inbox', () => {
    expect(inboxOwner('M123')).toEqual({ type: 'member', userId: '123' });
    expect(inboxOwner('PM123')).toEqual({ type: 'program_management_user', userId: '123' });
    // a member whose id starts with M: the prefix is the first M only
    expect(inboxOwner('MM1')).toEqual({ type: 'member', userId: 'M1' });
    for (const bad of ['', 'M', 'PM', 'X1', 'm1', 'pm1']) expect([bad, inboxOwner(bad)]).toEqual([bad, undefined]);
  });

  test('an enduser reaches its own M inbox, a back-office user its own PM inbox, classes and the system every inbox', () => {
    const member = { type: 'member' as const, userId: 'u1' };
    const pm = { type: 'program_management_user' as const, userId: 'u1' };
    expect(mayReach({ type: 'enduser', userId: 'u1' }, member)).toBe(true);
    expect(mayReach({ type: 'enduser', userId: 'u2' }, member)).toBe(false);
    expect(mayReach({ type: 'enduser', userId: 'u1' }, pm)).toBe(false);
    expect(mayReach({ type: 'program_management_user', userId: 'u1' }, pm)).toBe(true);
    expect(mayReach({ type: 'program_management_user', userId: 'u1' }, member)).toBe(false);
    expect(mayReach({ type: 'program_management_user', userId: 'u2' }, pm)).toBe(false);
    expect(mayReach({ type: 'enduser' }, member)).toBe(false);
    expect(mayReach({ type: 'member_otp', userId: 'u1' }, member)).toBe(false);
    expect(mayReach({ type: 'class' }, member)).toBe(true);
    expect(mayReach({ type: 'system' }, pm)).toBe(true);
  });
});

describe('items', () => {
  test('the inbox keeps the newest INBOX_CAP items', () => {
    let items: NotificationItem[] = [];
    let dropped = 0;
    for (let i = 0; i < INBOX_CAP + 3; i++) {
      const next = withItem(items, item(i));
      items = next.items;
      dropped += next.dropped;
    }
    expect(items).toHaveLength(INBOX_CAP);
    expect(dropped).toBe(3);
    expect(items[0]!.id).toBe('n3');
    expect(items.at(-1)!.id).toBe(`n${INBOX_CAP + 2}`);
    expect(withItem([item(0)], item(1), 2)).toEqual({ items: [item(0), item(1)], dropped: 0 });
  });

  test('read sets readAt once; unread clears it; archived keeps it; the same status changes nothing', () => {
    const read = withStatus(item(1), 'read', 'T1');
    expect(read).toMatchObject({ status: 'read', readAt: 'T1' });
    expect(withStatus(withStatus(read, 'archived', 'T2'), 'read', 'T3')).toMatchObject({
      status: 'read',
      readAt: 'T1',
    });
    expect(withStatus(read, 'unread', 'T2')).not.toHaveProperty('readAt');
    expect(withStatus(read, 'read', 'T9')).toBe(read);
  });

  test('unread count', () => {
    expect(unreadCount([item(1), item(2, 'read'), item(3, 'archived'), item(4)])).toBe(2);
  });
});

describe('listing', () => {
  test('newest first, filtered by status, paged', () => {
    const items = Array.from({ length: 25 }, (_, i) => item(i, i % 5 === 0 ? 'read' : 'unread'));
    const p = pageOf(items, { page: 3, limit: 10 });
    expect(p).toMatchObject({ totalCount: 25, page: 3, limit: 10, totalPages: 3 });
    expect(p.notifications.map((n) => n.id)).toEqual(['n4', 'n3', 'n2', 'n1', 'n0']);
    expect(pageOf(items, { page: 1, limit: 10, status: 'read' }).notifications.map((n) => n.id)).toEqual([
      'n20',
      'n15',
      'n10',
      'n5',
      'n0',
    ]);
    expect(pageOf([], { page: 1, limit: 10 })).toEqual({
      notifications: [],
      totalCount: 0,
      page: 1,
      limit: 10,
      totalPages: 0,
    });
  });

  test('status, page (default 1) and limit (default 10)', () => {
    expect(listQuery({})).toEqual({ page: 1, limit: 10 });
    expect(listQuery({ status: 'archived', page: 3, limit: 100 })).toEqual({ status: 'archived', page: 3, limit: 100 });
  });

  test('a GET query is coerced by the schema; bad values and other keys are refused, as 400 16103', () => {
    expect(schemaRefusal('UserNotification', 'listUserNotifications', { status: 'archived', page: '3' })).toEqual({
      input: { status: 'archived', page: 3 },
      fields: [],
    });
    const bad = { status: 'deleted', page: '0', limit: '101', sort: 'x' };
    expect(schemaRefusal('UserNotification', 'listUserNotifications', bad).fields.sort()).toEqual([
      'limit',
      'page',
      'sort',
      'status',
    ]);
    const err = invalidQuery([{ field: 'page', reason: 'must be >= 1' }]);
    expect([err.status, err.code, err.message]).toEqual([400, 16103, 'Invalid listing: page must be >= 1']);
  });
});
