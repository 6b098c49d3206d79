/**
 * UserNotification's part of a data subject's export and erasure, pure
 * (classes/UserNotification/subject-data-rules.ts): the subject's inbox id,
 * the records its items become, and the inbox once erased.
 */
import { erasedInbox, inboxRecords, subjectInboxId } from '../../classes/UserNotification/subject-data-rules';
import type { NotificationItem } from '../../classes/UserNotification/types';

const item = (id: string, extra: Partial<NotificationItem> = {}): NotificationItem => ({
  id,
  userId: 'u1',
  templateId: 'MEMBER_WELCOME',
  content: `content ${id}`,
  status: 'unread',
  createdAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});

describe('subjectInboxId', () => {
  test('a member has M<id>, a back-office user PM<id>, a partner user none', () => {
    expect(subjectInboxId({ type: 'member', id: 'm-1' })).toBe('Mm-1');
    expect(subjectInboxId({ type: 'program_management_user', id: 'p-1' })).toBe('PMp-1');
    expect(subjectInboxId({ type: 'partner_user', id: 'pu-1' })).toBeUndefined();
  });

  test('ids that start like the other prefix still name their own inbox', () => {
    expect(subjectInboxId({ type: 'member', id: 'M1' })).toBe('MM1');
    expect(subjectInboxId({ type: 'member', id: 'PM1' })).toBe('MPM1');
    expect(subjectInboxId({ type: 'program_management_user', id: 'M1' })).toBe('PMM1');
  });

  test('an id no inbox can have (a lookup address, a space) reads nothing', () => {
    expect(subjectInboxId({ type: 'member', id: 'email!a@b.example' })).toBeUndefined();
    expect(subjectInboxId({ type: 'program_management_user', id: 'a b' })).toBeUndefined();
  });
});

describe('inboxRecords', () => {
  test('one record per item, oldest first, each item as stored', () => {
    const items = [
      item('n1', { subject: 'Hi', metadata: { link: '/x' } }),
      item('n2', { status: 'read', readAt: 'r' }),
    ];
    expect(inboxRecords('Mu1', items)).toEqual([
      { store: 'inbox', classId: 'UserNotification', instanceId: 'Mu1', kind: 'notification', data: items[0] },
      { store: 'inbox', classId: 'UserNotification', instanceId: 'Mu1', kind: 'notification', data: items[1] },
    ]);
  });

  test('the records are copies: changing one leaves the inbox as it was', () => {
    const items = [item('n1', { metadata: { a: 1 } })];
    const [record] = inboxRecords('Mu1', items);
    (record.data as NotificationItem).metadata!.a = 2;
    expect(items[0].metadata).toEqual({ a: 1 });
  });

  test('an empty inbox gives no record', () => {
    expect(inboxRecords('Mu1', [])).toEqual([]);
  });
});

describe('erasedInbox', () => {
  test('every item goes, whatever its status, and is counted', () => {
    const items = [
      item('a', { status: 'read', readAt: '2026-01-02T00:00:00.000Z' }),
      item('b'),
      item('c', { status: 'archived' }),
    ];
    expect(erasedInbox(items)).toEqual({ items: [], removed: 3 });
  });

  test('an empty inbox has nothing to remove', () => {
    expect(erasedInbox([])).toEqual({ items: [], removed: 0 });
  });

  test('the items given are not changed', () => {
    const items = Object.freeze([item('a')]);
    erasedInbox(items);
    expect(items).toHaveLength(1);
  });
});
