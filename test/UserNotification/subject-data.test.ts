/**
 * UserNotification.exportSubjectData over real Redis and HTTP: the subject's
 * inbox (one record per item, as stored) for DataSubject, nothing for a
 * partner user or an inbox never written, only DataSubject may ask, only this
 * class reads an inbox through readInbox, and a caller limited to a company
 * gets only its company's subjects, by the company DataSubject hands over (an
 * inbox keeps none).
 */
import type { TestRuntime } from '../support/harness';
import {
  asClass,
  expectClassOwn,
  expectDataSubjectOnly,
  expectOnlyHandedOverCompany,
  expectValidAnswer,
  exportBody,
  exportedBy,
  startSubjectRuntime,
} from '../support/subject-data';
import { bearer, call, inboxItems, uid } from '../NotificationManager/support';

let t: TestRuntime;

beforeAll(async () => {
  t = await startSubjectRuntime({ CLASS_DIRS: 'classes/UserNotification' });
});
afterAll(() => t.stop());

/** exportSubjectData as DataSubject calls it: the caller's company along when it has one, and the subject's as its own class answered it */
const exportFor = (type: string, id: string, tenant?: string, subjectCompanyId?: string | null) =>
  exportedBy<Record<string, any>>(t, 'UserNotification', { type, id }, { tenant, subjectCompanyId });

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

describe('exportSubjectData', () => {
  test("a member's inbox: one record per item, as stored, oldest first; a status the member changed is kept", async () => {
    const member = uid('m');
    const first = await deliver(`M${member}`, 'Welcome', { subject: 'Hello', metadata: { link: '/benefits' } });
    const second = await deliver(`M${member}`, 'Your tier changed');
    // the member reads the first over HTTP, as the member application does
    const read = await call(
      t,
      'UserNotification',
      'markNotificationAsRead',
      `M${member}`,
      { notificationId: first.id },
      bearer(t, 'enduser', member),
    );
    expect(read.status).toBe(204);
    // another member's and a back-office user's inbox of the same id are not the member's
    await deliver(`M${uid('m')}`, 'Someone else');
    await deliver(`PM${member}`, 'Not the member');

    const answer = await exportFor('member', member);
    const stored = await inboxItems(t, `M${member}`);
    expect(answer).toEqual({
      records: stored.map((item) => ({
        store: 'inbox',
        classId: 'UserNotification',
        instanceId: `M${member}`,
        kind: 'notification',
        data: item,
      })),
      files: [],
    });
    expect(answer.records.map((r: any) => [r.data.id, r.data.status])).toEqual([
      [first.id, 'read'],
      [second.id, 'unread'],
    ]);
    expect(answer.records[0].data).toMatchObject({ subject: 'Hello', metadata: { link: '/benefits' } });
    expect(answer).not.toHaveProperty('companyId');
  });

  test("a back-office user's inbox is PM<id>", async () => {
    const pm = uid('p');
    const item = await deliver(`PM${pm}`, 'Approval waiting');
    const answer = await exportFor('program_management_user', pm);
    expect(answer.records).toEqual([
      { store: 'inbox', classId: 'UserNotification', instanceId: `PM${pm}`, kind: 'notification', data: item },
    ]);
  });

  test('nothing for a partner user, an inbox never written, or an id no inbox can have', async () => {
    const someone = uid('x');
    await deliver(`M${someone}`, 'exists');
    expect(await exportFor('partner_user', someone)).toEqual({ records: [], files: [] });
    expect(await exportFor('member', uid('m'))).toEqual({ records: [], files: [] });
    expect(await exportFor('member', `id!${someone}`)).toEqual({ records: [], files: [] });
    // an inbox never written is not created by being read
    const fresh = uid('m');
    await exportFor('program_management_user', fresh);
    expect(await t.rt.store.read('UserNotification', `PM${fresh}`)).toBeUndefined();
  });
});

describe('who may call it', () => {
  test('DataSubject only: users over HTTP, anonymous callers and other classes are refused', async () => {
    const member = uid('m');
    await deliver(`M${member}`, 'private');
    await expectDataSubjectOnly(
      t,
      'UserNotification',
      'exportSubjectData',
      exportBody({ type: 'member', id: member }),
      {
        users: [bearer(t, 'program_management_user', uid('p'), ['super']), bearer(t, 'enduser', member)],
        classes: ['Member', 'NotificationManager', 'UserNotification'],
      },
    );
  });

  test('readInbox is this class’s own: neither DataSubject, nor the owner, nor a user over HTTP reads it', async () => {
    const member = uid('m');
    await deliver(`M${member}`, 'private');
    await expectClassOwn(
      t,
      'UserNotification',
      'readInbox',
      `M${member}`,
      {},
      {
        users: [bearer(t, 'enduser', member)],
        classes: ['DataSubject'],
      },
    );
  });

  test('readInbox answers what its answer schema says', async () => {
    const member = uid('m');
    await deliver(`M${member}`, 'Welcome', { subject: 'Hello', metadata: { link: '/x' } });
    const r = await t.rt.call('UserNotification', 'readInbox', `M${member}`, {}, asClass('UserNotification'));
    expectValidAnswer(t, 'UserNotification', 'readInbox', r.body);
  });
});

describe('company scope', () => {
  test("a caller limited to a company gets the inbox of its company's subjects, by the company DataSubject hands over", async () => {
    const member = uid('m');
    await deliver(`M${member}`, 'private');
    const mine = await exportFor('member', member, 'c-1', 'c-1');
    expect(mine.records.length).toBeGreaterThan(0);
    expect(mine.records[0].instanceId).toBe(`M${member}`);
    // the same subject for a caller limited to no company, whatever company is named
    expect(await exportFor('member', member, undefined, 'c-2')).toEqual(mine);
  });

  test("another company's subject, or a call naming no company, is refused 403 1023 (the class keeps no company of its own)", async () => {
    const member = uid('m');
    await deliver(`M${member}`, 'private');
    await expectOnlyHandedOverCompany(t, 'UserNotification', 'exportSubjectData', member, [
      'member',
      'program_management_user',
    ]);
    // a subject of whom the class keeps nothing is no refusal
    expect(await exportFor('partner_user', member, 'c-1')).toEqual({ records: [], files: [] });
  });
});
