/**
 * PartnerUser.exportSubjectData over real Redis and HTTP: a partner user's
 * state and listing document for DataSubject, `companyId: null`; nothing for
 * other subjects; 404 17110 for an unknown user; only DataSubject may ask,
 * only this class reads the state through readUserState; a caller limited to
 * a company reads partner users as the class's shared scope lets it, and the
 * answer's null company is what DataSubject refuses it on.
 */
import {
  asClass,
  expectClassOwn,
  expectDataSubjectOnly,
  expectNoSuchSubject,
  expectValidAnswer,
  exportBody,
  exportedBy,
  exportedWhen,
  storedState,
} from '../support/subject-data';
import {
  call,
  createProgramme,
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

const exportFor = (type: string, id: string, tenant?: string) =>
  exportedBy<Record<string, any>>(pu.t, 'PartnerUser', { type, id }, { tenant });

/** a partner user created by a back-office user over HTTP, its creation approved by the approver */
async function createUser(over: Record<string, unknown> = {}): Promise<{ id: string; email: string }> {
  const body = userBody(programme, over);
  const created = await call(pu.t, 'init', undefined, body, pu.admin);
  expect(created.status).toBe(201);
  const id = created.body.user.id as string;
  if (created.body.pendingApproval) {
    await review(pu, created.body.pendingApproval.id, 'approve');
    await settled(pu, id);
  }
  return { id, email: body.email };
}

/** the export once the listing document shows `status` */
const exportWithListing = (id: string, status: string, tenant?: string) =>
  exportedWhen<Record<string, any>>(
    pu.t,
    'PartnerUser',
    { type: 'partner_user', id },
    (answer) => answer.records.some((r: any) => r.store === 'listing' && r.data.status === status),
    `the listing document (${status})`,
    { tenant },
  );

describe('exportSubjectData', () => {
  test('its state as stored and its listing document; no company', async () => {
    const u = await createUser({ fullName: 'Pat Export' });
    const answer = await exportWithListing(u.id, 'active');
    expect(answer.companyId).toBeNull();
    expect(answer.values).toEqual(['Pat Export', u.email]);
    expect(answer.files).toEqual([]);
    expect(answer.records.map((r: any) => [r.store, r.classId, r.instanceId, r.kind])).toEqual([
      ['state', 'PartnerUser', u.id, 'user'],
      ['listing', 'PartnerUser', u.id, 'partnerUserDocument'],
    ]);
    const [state, listing] = answer.records.map((r: any) => r.data);
    expect(state).toEqual((await storedState(pu.t, 'PartnerUser', u.id)).private);
    expect(state.user).toMatchObject({
      fullName: 'Pat Export',
      email: u.email,
      status: 'active',
      partners: [{ partnerId: programme.p1, role: 'admin' }],
      venues: [{ partnerId: programme.p1, venueId: programme.v1a }],
    });
    expect(state.lastReview).toMatchObject({ action: 'approve', outcome: 'applied' });
    expect(listing).toMatchObject({ id: u.id, fullName: 'Pat Export', email: u.email, partnerIds: [programme.p1] });
    expect(Object.keys(listing).filter((k) => k.startsWith('_'))).toEqual([]);
  });

  test('nothing for a member or a back-office user; 404 17110 for an unknown user or a lookup address', async () => {
    const u = await createUser();
    expect(await exportFor('member', u.id)).toEqual({ records: [], files: [] });
    expect(await exportFor('program_management_user', u.id)).toEqual({ records: [], files: [] });
    const unknown = [uid('nobody'), `email!${u.email}`].map((id) => ({ type: 'partner_user', id }));
    await expectNoSuchSubject(pu.t, 'PartnerUser', 'exportSubjectData', unknown, 17110);
  });
});

describe('who may call it', () => {
  test('DataSubject only: back-office users over HTTP, anonymous callers and other classes are refused', async () => {
    const u = await createUser();
    const body = exportBody({ type: 'partner_user', id: u.id });
    await expectDataSubjectOnly(pu.t, 'PartnerUser', 'exportSubjectData', body, {
      users: [pu.admin],
      classes: ['Partner', 'PartnerUser'],
    });
  });

  test('readUserState is this class’s own: not DataSubject, not a level-1 user over HTTP', async () => {
    const u = await createUser();
    await expectClassOwn(
      pu.t,
      'PartnerUser',
      'readUserState',
      u.id,
      {},
      { users: [pu.admin], classes: ['DataSubject'] },
    );
  });

  test('readUserState answers what its answer schema says', async () => {
    const u = await createUser();
    const r = await pu.t.rt.call('PartnerUser', 'readUserState', u.id, {}, asClass('PartnerUser'));
    expectValidAnswer(pu.t, 'PartnerUser', 'readUserState', r.body);
  });
});

describe('company scope', () => {
  test('partner users are shared data: a caller limited to a company reads them, and learns they are no company’s', async () => {
    const u = await createUser();
    // as getUser answers a company user
    expect((await call(pu.t, 'getUser', u.id, {}, pu.companyUser)).status).toBe(200);
    const answer = await exportFor('partner_user', u.id, 'c-1');
    expect(answer.companyId).toBeNull();
    expect(answer.records[0]).toMatchObject({ store: 'state', instanceId: u.id });
  });
});
