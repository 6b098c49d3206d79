/**
 * PartnerUser.eraseSubjectData over real Redis and HTTP: a partner user
 * erased for DataSubject's erasure (its full name and email ERASED, its
 * status reason and waiting change gone, `inactive`, its email released,
 * marked erased), its listing document re-projected without a value, an audit
 * entry of the fact without one; every later write refused 410 17111; zeros
 * on a second call and for other subjects, 404 17110 for an unknown user;
 * other users untouched; only DataSubject may ask, only this class reaches
 * eraseUser; a caller limited to a company erases no partner user (they are
 * no company's).
 */
import {
  asClass,
  eraseBody,
  erasedBy,
  erasureAuditEntry,
  expectClassOwn,
  expectDataSubjectOnly,
  expectNoSuchSubject,
  expectValidAnswer,
  exportedBy,
  finishedJob,
  storedState,
  subjectCall,
} from '../support/subject-data';
import {
  call,
  createProgramme,
  documentWhen,
  email,
  review,
  settled,
  startPuRuntime,
  uid,
  userBody,
  type Programme,
  type PuRuntime,
} from './support';

let pu: PuRuntime;
let programme: Programme;
beforeAll(async () => {
  pu = await startPuRuntime();
  programme = await createProgramme(pu.t);
});
afterAll(() => pu.stop());

const ERASURE_ID = 'erasure-9';
const eraseCall = (type: string, id: string, tenant?: string) =>
  subjectCall(pu.t, 'PartnerUser', 'eraseSubjectData', eraseBody({ type, id }, ERASURE_ID), tenant);
const erase = (type: string, id: string, tenant?: string) =>
  erasedBy(pu.t, 'PartnerUser', { type, id }, ERASURE_ID, { tenant });
const stored = (id: string) => storedState(pu.t, 'PartnerUser', id);
const emailHolder = (address: string) => pu.t.rt.store.resolveLookup('PartnerUser', 'email', address);

/** a partner user created by a back-office user over HTTP, its creation approved by the approver, streamed */
async function createUser(over: Record<string, unknown> = {}): Promise<{ id: string; email: string }> {
  const body = userBody(programme, over);
  const created = await call(pu.t, 'init', undefined, body, pu.admin);
  expect(created.status).toBe(201);
  const id = created.body.user.id as string;
  if (created.body.pendingApproval) {
    await review(pu, created.body.pendingApproval.id, 'approve');
    await settled(pu, id);
  }
  await documentWhen(pu, id, (d) => d.status === 'active');
  return { id, email: body.email };
}

describe('eraseSubjectData', () => {
  test('its values nowhere in its state or listing document, its email released, marked erased', async () => {
    const u = await createUser({ fullName: 'Bartholomew Zanzibar-Okafor', email: `${uid('zq')}@partner.example` });
    const other = await createUser({ fullName: 'Ola Unrelated' });
    const before = await stored(u.id);

    expect(await erase('partner_user', u.id)).toEqual({ records: 2, files: 0 });

    const after = await stored(u.id);
    for (const value of ['Bartholomew', 'Zanzibar', u.email]) expect(after.json).not.toContain(value);
    expect(after.private.user).toEqual({
      ...before.private.user,
      fullName: '[erased]',
      email: '[erased]',
      status: 'inactive',
      statusReason: null,
      updatedBy: 'PartnerUser',
      updatedAt: expect.any(Number),
      erasedAt: expect.any(Number),
      erasureId: ERASURE_ID,
    });
    // partners and venues are the programme's, not the person's: they stay
    expect(after.private.user.partners).toEqual([{ partnerId: programme.p1, role: 'admin' }]);
    expect(after.private.pendingApproval).toBeNull();
    expect(await emailHolder(u.email)).toBeUndefined();

    // the listing document is re-projected from the erased state: no value, in its search column neither
    const doc = await documentWhen(pu, u.id, (d) => d.status === 'inactive');
    expect(doc).toMatchObject({ fullName: '[erased]', email: '[erased]', search: '[erased] [erased]' });
    expect(doc.erasedAt).toBe(after.private.user.erasedAt);
    for (const value of ['bartholomew', 'zanzibar', u.email]) expect(JSON.stringify(doc)).not.toContain(value);
    const listed = await call(pu.t, 'listPartnerUsers', undefined, { search: 'zanzibar' }, pu.admin);
    expect(listed.body.totalCount).toBe(0);

    // the erasure's audit entry says what happened and holds no personal value
    const logState = await erasureAuditEntry(pu.t, u.id);
    expect(logState).toContain('subject_erasure');
    for (const value of ['Bartholomew', 'Zanzibar', u.email]) expect(logState).not.toContain(value);

    // a second call (a retry) finds nothing left: zeros, nothing written
    expect(await erase('partner_user', u.id)).toEqual({ records: 0, files: 0 });
    expect((await stored(u.id)).version).toBe(after.version);

    // the export answers the anonymised state and no trace values
    expect((await exportedBy(pu.t, 'PartnerUser', { type: 'partner_user', id: u.id })).values).toEqual([]);

    // another user is untouched, and the freed email may be given to a new one
    expect((await stored(other.id)).private.user).toMatchObject({ fullName: 'Ola Unrelated', email: other.email });
    const again = await createUser({ email: u.email });
    expect(await emailHolder(u.email)).toBe(again.id);
  });

  test('every later write is refused 410 17111, the callback of a change it waited for too', async () => {
    const u = await createUser({ fullName: 'Philippa Waitingchange' });
    // a status change waiting for its approval (the default rules wait for an approver), with a reason
    const waiting = await call(
      pu.t,
      'updateStatus',
      u.id,
      { status: 'inactive', statusReason: 'Philippa left for Quarzazate' },
      pu.admin,
    );
    expect(waiting.status).toBe(200);
    const approvalId = waiting.body.pendingApproval.id as string;

    await erase('partner_user', u.id);
    const erased = await stored(u.id);
    expect(erased.private.pendingApproval).toBeNull();
    expect(erased.json).not.toContain('Philippa');
    expect(erased.json).not.toContain('Quarzazate');

    const refused = { status: 410, body: expect.objectContaining({ code: 17111, classId: 'PartnerUser' }) };
    const full = { ...userBody(programme), fullName: 'Back Again' };
    expect(await call(pu.t, 'updateUser', u.id, full, pu.admin)).toMatchObject(refused);
    expect(await call(pu.t, 'updateStatus', u.id, { status: 'active' }, pu.admin)).toMatchObject(refused);
    const venues = { venues: [{ partnerId: programme.p1, venueId: programme.v1b }] };
    expect(await call(pu.t, 'addVenues', u.id, venues, pu.admin)).toMatchObject(refused);
    expect(await call(pu.t, 'removeVenues', u.id, { venueIds: [programme.v1a] }, pu.admin)).toMatchObject(refused);
    // the approval callback of the change it waited for (a queued job) fails for good
    const queued = await pu.t.rt.call(
      'PartnerUser',
      'approveUser',
      u.id,
      { approvalId, action: 'approve', entityId: u.id, event: 'user_status_update', jsonPatch: [] },
      asClass('ApprovalManager'),
    );
    expect(queued.status).toBe(202);
    const outcome = await finishedJob(pu.t, (queued.body as { jobId: string }).jobId);
    expect(outcome).toMatchObject({ status: 'failed', error: { status: 410, body: { code: 17111 } } });
    expect((await stored(u.id)).version).toBe(erased.version);
    // its reads still answer the anonymised record
    const got = await call(pu.t, 'getUser', u.id, {}, pu.admin);
    expect(got.body.user).toMatchObject({ id: u.id, fullName: '[erased]', erasureId: ERASURE_ID });
    // as its answer schema says, with the erasure's fields
    expectValidAnswer(pu.t, 'PartnerUser', 'getUser', got.body);
  });

  test('zeros for a member or a back-office user; 404 17110 for an unknown user or a lookup address', async () => {
    const u = await createUser();
    expect(await erase('member', u.id)).toEqual({ records: 0, files: 0 });
    expect(await erase('program_management_user', u.id)).toEqual({ records: 0, files: 0 });
    expect((await stored(u.id)).private.user.erasedAt).toBeUndefined();
    const unknown = [uid('nobody'), `email!${u.email}`].map((id) => ({ type: 'partner_user', id }));
    await expectNoSuchSubject(pu.t, 'PartnerUser', 'eraseSubjectData', unknown, 17110);
    expect(await emailHolder(u.email)).toBe(u.id);
  });
});

describe('who may call it', () => {
  test('DataSubject only: back-office users over HTTP, anonymous callers and other classes are refused', async () => {
    const u = await createUser();
    const body = eraseBody({ type: 'partner_user', id: u.id }, 'e-1');
    await expectDataSubjectOnly(pu.t, 'PartnerUser', 'eraseSubjectData', body, {
      users: [pu.admin],
      classes: ['Partner', 'PartnerUser'],
    });
    expect((await stored(u.id)).private.user.erasedAt).toBeUndefined();
  });

  test('eraseUser is this class’s own: not DataSubject, not a level-1 user over HTTP', async () => {
    const u = await createUser();
    await expectClassOwn(
      pu.t,
      'PartnerUser',
      'eraseUser',
      u.id,
      { erasureId: 'e-1' },
      {
        users: [pu.admin],
        classes: ['DataSubject'],
      },
    );
    expect((await stored(u.id)).private.user.erasedAt).toBeUndefined();
  });
});

describe('company scope', () => {
  test('a caller limited to a company erases no partner user (they are no company’s): 403 1023, nothing changes', async () => {
    const u = await createUser({ email: email() });
    await expect(eraseCall('partner_user', u.id, 'c-1')).rejects.toMatchObject({ status: 403, code: 1023 });
    expect((await stored(u.id)).private.user.erasedAt).toBeUndefined();
    expect(await emailHolder(u.email)).toBe(u.id);
    // a subject of whom the class keeps nothing is no refusal
    expect(await erase('member', u.id, 'c-1')).toEqual({ records: 0, files: 0 });
  });
});
