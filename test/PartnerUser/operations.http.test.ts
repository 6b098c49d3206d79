/**
 * Every PartnerUser operation over HTTP, with the identities it admits and
 * those it refuses, under the default workflow rules (creation and status
 * changes wait for an approver, updates apply at once), against real
 * partners and venues of the Partner class.
 */
import { findLogs } from '../support/logs';
import { waitFor } from '../support/harness';
import {
  bearer,
  call,
  createPartner,
  createProgramme,
  createVenue,
  email,
  review,
  settled,
  startPuRuntime,
  userBody,
  type Headers,
  type Programme,
  type PuRuntime,
} from './support';

let pu: PuRuntime;
let p: Programme;
beforeAll(async () => {
  pu = await startPuRuntime();
  p = await createProgramme(pu.t);
});
afterAll(() => pu.stop());

const init = (body: Record<string, unknown>, headers: Headers = pu.admin) =>
  call(pu.t, 'init', undefined, body, headers);

/** a user created by the admin and approved by the approver: `active` */
async function activeUser(over: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const r = await init(userBody(p, over));
  if (r.status !== 201) throw new Error(`init: ${r.status} ${JSON.stringify(r.body)}`);
  await review(pu, r.body.approval.id, 'approve');
  return (await settled(pu, r.body.user.id)).user;
}

describe('init', () => {
  test('a program management user creates a pending user whose creation waits for an approver', async () => {
    const body = userBody(p, { fullName: ' Pat Lee ', email: email().toUpperCase() });
    const before = Date.now();
    const r = await init(body);
    expect(r.status).toBe(201);
    expect(r.body.user).toEqual({
      id: expect.any(String),
      fullName: 'Pat Lee',
      email: body.email.toLowerCase(),
      partners: [{ partnerId: p.p1, role: 'admin' }],
      venues: [{ partnerId: p.p1, venueId: p.v1a }],
      status: 'pending',
      statusReason: null,
      createdBy: 'pm-admin',
      updatedBy: 'pm-admin',
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(r.body.user.createdAt).toBeGreaterThanOrEqual(before);
    expect(r.body).toMatchObject({
      pendingApproval: { event: 'user_create', requestedStatus: 'active', operation: 'init' },
      approval: { event: 'user_create', approvalStatus: 'pending', approvalType: 'manual', approvers: ['approver'] },
    });
    const got = await call(pu.t, 'getUser', r.body.user.id, {}, pu.admin);
    expect(got.body).toEqual({ user: r.body.user, pendingApproval: r.body.pendingApproval, lastReview: null });
    // venues are optional
    const bare = await init(userBody(p, { venues: undefined }));
    expect([bare.status, bare.body.user.venues]).toEqual([201, []]);
  });

  test('identities: anonymous 401, a member 403, a level-10 role without the method 403, with it 201; a company user 403 1023', async () => {
    expect((await init(userBody(p), {})).status).toBe(401);
    const member = { authorization: `Bearer ${pu.t.rt.tokens.sign({ sub: 'm1', identity: 'enduser', roles: [] })}` };
    expect([(await init(userBody(p), member)).status, (await init(userBody(p), member)).body.code]).toEqual([
      403, 1008,
    ]);
    const clerk = await init(userBody(p), pu.clerk);
    expect([clerk.status, clerk.body.code]).toEqual([403, 1008]);
    const reader = await init(userBody(p), pu.reader);
    expect([reader.status, reader.body.code]).toEqual([403, 1008]);
    const granted = await init(userBody(p), pu.puadmin);
    expect([granted.status, granted.body.user.createdBy]).toEqual([201, 'pm-puadmin']);
    const company = await init(userBody(p), pu.companyUser);
    expect([company.status, company.body.code]).toEqual([403, 1023]);
  });

  test('the body: every required field named; partners and venues judged, and asked from Partner', async () => {
    const missing = await init({ fullName: 'X', email: email() });
    expect([missing.status, missing.body.code, missing.body.details.errors]).toEqual([
      400,
      1002,
      [{ field: 'partners', reason: 'is required' }],
    ]);
    const twice = await init(
      userBody(p, {
        partners: [
          { partnerId: p.p1, role: 'admin' },
          { partnerId: p.p1, role: 'staff' },
        ],
      }),
    );
    expect([twice.status, twice.body.code, twice.body.details.errors]).toEqual([
      400,
      17102,
      [{ field: 'partners[1].partnerId', reason: `'${p.p1}' is given twice` }],
    ]);
    const notMine = await init(userBody(p, { venues: [{ partnerId: p.p2, venueId: p.v2a }] }));
    expect([notMine.status, notMine.body.code, notMine.body.details.errors]).toEqual([
      400,
      17102,
      [{ field: 'venues[0].partnerId', reason: `'${p.p2}' is not a partner of this user` }],
    ]);
    const ghost = await init(
      userBody(p, {
        partners: [
          { partnerId: p.p1, role: 'admin' },
          { partnerId: 'p-ghost', role: 'staff' },
        ],
      }),
    );
    expect([ghost.status, ghost.body.code, ghost.body.details.errors]).toEqual([
      400,
      17106,
      [{ field: 'partners[1].partnerId', reason: "'p-ghost' is not a partner" }],
    ]);
    // a venue of p2 given as p1's: Partner p1 has no such venue
    const wrongPartner = await init(
      userBody(p, {
        venues: [
          { partnerId: p.p1, venueId: p.v1a },
          { partnerId: p.p1, venueId: p.v2a },
        ],
      }),
    );
    expect([wrongPartner.status, wrongPartner.body.code, wrongPartner.body.details.errors]).toEqual([
      400,
      17107,
      [{ field: 'venues[1].venueId', reason: `'${p.v2a}' is not a venue of partner '${p.p1}'` }],
    ]);
    const badRole = await init(userBody(p, { partners: [{ partnerId: p.p1, role: 'owner' }] }));
    expect([badRole.status, badRole.body.details.errors[0].field]).toEqual([400, 'partners.0.role']);
  });

  test('the email is unique among partner users, whatever its case', async () => {
    const address = email();
    expect((await init(userBody(p, { email: address }))).status).toBe(201);
    const again = await init(userBody(p, { email: address.toUpperCase() }));
    expect([again.status, again.body.code, again.body.details.errors]).toEqual([
      409,
      17101,
      [{ field: 'email', reason: 'belongs to another partner user' }],
    ]);
  });
});

describe('getUser, listVenues, getRoles', () => {
  test('reads for program management users only, a level-10 one with the permission; company users read too', async () => {
    const u = await activeUser();
    for (const h of [pu.admin, pu.reader, pu.companyUser]) {
      expect((await call(pu.t, 'getUser', u.id, {}, h)).body.user.id).toBe(u.id);
      expect((await call(pu.t, 'listVenues', u.id, {}, h)).body).toEqual({
        userId: u.id,
        venues: [{ partnerId: p.p1, venueId: p.v1a }],
        totalCount: 1,
      });
    }
    expect((await call(pu.t, 'getUser', u.id, {}, {})).status).toBe(401);
    expect([
      (await call(pu.t, 'getUser', u.id, {}, pu.clerk)).status,
      (await call(pu.t, 'listVenues', u.id, {}, pu.clerk)).status,
    ]).toEqual([403, 403]);
    const unknown = await call(pu.t, 'getUser', 'no-such-user', {}, pu.admin);
    expect(unknown.status).toBe(500);
    expect(unknown.body.message).toMatch(/no-such-user/);
  });

  test('getRoles: key, value and label of each role', async () => {
    const r = await call(pu.t, 'getRoles', undefined, {}, pu.reader);
    expect(r.body).toEqual({
      roles: [
        { key: 'ADMIN', value: 'admin', label: 'Admin' },
        { key: 'MANAGER', value: 'manager', label: 'Manager' },
        { key: 'STAFF', value: 'staff', label: 'Staff' },
      ],
    });
    expect((await call(pu.t, 'getRoles', undefined, {}, pu.clerk)).status).toBe(403);
    expect((await call(pu.t, 'getRoles', undefined, {}, {})).status).toBe(401);
  });
});

describe('updateUser', () => {
  test('every field is required: a missing one is 400 naming it', async () => {
    const u = await activeUser();
    const full = { fullName: u.fullName, email: u.email, partners: u.partners, venues: u.venues };
    for (const field of ['fullName', 'email', 'partners', 'venues'] as const) {
      const { [field]: _left, ...partial } = full;
      const r = await call(pu.t, 'updateUser', u.id, partial, pu.admin);
      expect([field, r.status, r.body.code, r.body.details.errors]).toEqual([
        field,
        400,
        1002,
        [{ field, reason: 'is required' }],
      ]);
    }
    const status = await call(pu.t, 'updateUser', u.id, { ...full, status: 'inactive' }, pu.admin);
    expect([status.status, status.body.details.errors]).toEqual([400, [{ field: 'status', reason: 'is not allowed' }]]);
    const same = await call(pu.t, 'updateUser', u.id, full, pu.admin);
    expect([same.status, same.body.code]).toEqual([409, 17105]);
  });

  test('replaces the whole user at once (user_update is automatic by default)', async () => {
    const u = await activeUser();
    const newEmail = email('moved');
    const body = {
      fullName: 'Pat Lee-Smith',
      email: newEmail,
      partners: [
        { partnerId: p.p1, role: 'manager' },
        { partnerId: p.p2, role: 'staff' },
      ],
      venues: [
        { partnerId: p.p1, venueId: p.v1b },
        { partnerId: p.p2, venueId: p.v2a },
      ],
    };
    const r = await call(pu.t, 'updateUser', u.id, body, pu.puadmin);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      user: { ...body, status: 'active', updatedBy: 'pm-puadmin', createdBy: 'pm-admin' },
      pendingApproval: null,
      approval: { event: 'user_update', approvalType: 'auto' },
    });
    expect(r.body.user.updatedAt).toBeGreaterThanOrEqual(u.updatedAt);
    // the old address is free, the new one taken
    expect((await init(userBody(p, { email: u.email }))).status).toBe(201);
    const taken = await init(userBody(p, { email: newEmail }));
    expect([taken.status, taken.body.code]).toEqual([409, 17101]);
  });

  test("refuses another user's email, a venue left without its partner, an unknown venue; a reader may not", async () => {
    const a = await activeUser();
    const b = await activeUser();
    const full = { fullName: b.fullName, email: b.email, partners: b.partners, venues: b.venues };
    const taken = await call(pu.t, 'updateUser', b.id, { ...full, email: a.email.toUpperCase() }, pu.admin);
    expect([taken.status, taken.body.code]).toEqual([409, 17101]);
    const orphan = await call(
      pu.t,
      'updateUser',
      b.id,
      { ...full, partners: [{ partnerId: p.p2, role: 'staff' }] },
      pu.admin,
    );
    expect([orphan.status, orphan.body.code, orphan.body.details.errors]).toEqual([
      400,
      17102,
      [{ field: 'venues[0].partnerId', reason: `'${p.p1}' is not a partner of this user` }],
    ]);
    const ghost = await call(
      pu.t,
      'updateUser',
      b.id,
      { ...full, venues: [...b.venues, { partnerId: p.p1, venueId: 'v-ghost' }] },
      pu.admin,
    );
    expect([ghost.status, ghost.body.code, ghost.body.details.errors[0].field]).toEqual([
      400,
      17107,
      'venues[1].venueId',
    ]);
    const reader = await call(pu.t, 'updateUser', b.id, { ...full, fullName: 'Other' }, pu.reader);
    expect([reader.status, reader.body.code]).toEqual([403, 1008]);
    const company = await call(pu.t, 'updateUser', b.id, { ...full, fullName: 'Other' }, pu.companyUser);
    expect([company.status, company.body.code]).toEqual([403, 1023]);
  });

  test('a user waiting for an approval takes no other change', async () => {
    const r = await init(userBody(p));
    const id = r.body.user.id;
    const u = r.body.user;
    const full = { fullName: 'Renamed', email: u.email, partners: u.partners, venues: u.venues };
    for (const [method, body] of [
      ['updateUser', full],
      ['updateStatus', { status: 'inactive' }],
      ['addVenues', { venues: [{ partnerId: p.p1, venueId: p.v1b }] }],
      ['removeVenues', { venueIds: [p.v1a] }],
    ] as const) {
      const refused = await call(pu.t, method, id, body, pu.admin);
      expect([method, refused.status, refused.body.code, refused.body.details.approvalId]).toEqual([
        method,
        409,
        17103,
        r.body.approval.id,
      ]);
    }
  });
});

describe('updateStatus', () => {
  test('through the workflow, with an optional reason kept on the user', async () => {
    const u = await activeUser();
    const r = await call(
      pu.t,
      'updateStatus',
      u.id,
      { status: 'inactive', statusReason: ' left the partner ' },
      pu.puadmin,
    );
    expect(r.body).toMatchObject({
      user: { status: 'active' },
      pendingApproval: { event: 'user_status_update', requestedStatus: 'inactive' },
      requestedUser: { status: 'inactive', statusReason: 'left the partner' },
    });
    await review(pu, r.body.approval.id, 'approve');
    expect((await settled(pu, u.id)).user).toMatchObject({
      status: 'inactive',
      statusReason: 'left the partner',
      updatedBy: 'pm-puadmin',
    });
    const same = await call(pu.t, 'updateStatus', u.id, { status: 'inactive' }, pu.admin);
    expect([same.status, same.body.code]).toEqual([409, 17105]);
    const bad = await call(pu.t, 'updateStatus', u.id, { status: 'expired' }, pu.admin);
    expect([bad.status, bad.body.code, bad.body.details.errors[0].field]).toEqual([400, 1002, 'status']);
    const reader = await call(pu.t, 'updateStatus', u.id, { status: 'active' }, pu.reader);
    expect([reader.status, reader.body.code]).toEqual([403, 1008]);
  });
});

describe('addVenues and removeVenues', () => {
  test("addVenues adds venues of the user's partners, each once", async () => {
    const u = await activeUser({
      partners: [
        { partnerId: p.p1, role: 'admin' },
        { partnerId: p.p2, role: 'staff' },
      ],
    });
    const r = await call(
      pu.t,
      'addVenues',
      u.id,
      {
        venues: [
          { partnerId: p.p1, venueId: p.v1a },
          { partnerId: p.p2, venueId: p.v2a },
          { partnerId: p.p1, venueId: p.v1b },
          { partnerId: p.p2, venueId: p.v2a },
        ],
      },
      pu.puadmin,
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      user: {
        venues: [
          { partnerId: p.p1, venueId: p.v1a },
          { partnerId: p.p2, venueId: p.v2a },
          { partnerId: p.p1, venueId: p.v1b },
        ],
      },
      added: [
        { partnerId: p.p2, venueId: p.v2a },
        { partnerId: p.p1, venueId: p.v1b },
      ],
      alreadyAssigned: [{ partnerId: p.p1, venueId: p.v1a }],
      approval: { event: 'user_update', approvalType: 'auto' },
    });
    const again = await call(pu.t, 'addVenues', u.id, { venues: [{ partnerId: p.p1, venueId: p.v1b }] }, pu.puadmin);
    expect([again.status, again.body.code]).toEqual([409, 17105]);
    expect((await call(pu.t, 'listVenues', u.id, {}, pu.reader)).body.totalCount).toBe(3);
  });

  test('addVenues refuses venues of partners the user does not belong to, and venues the partner does not have', async () => {
    const u = await activeUser();
    const other = await call(pu.t, 'addVenues', u.id, { venues: [{ partnerId: p.p2, venueId: p.v2a }] }, pu.admin);
    expect([other.status, other.body.code, other.body.details.errors]).toEqual([
      400,
      17102,
      [{ field: 'venues[0].partnerId', reason: `'${p.p2}' is not a partner of this user` }],
    ]);
    const notIts = await call(
      pu.t,
      'addVenues',
      u.id,
      {
        venues: [
          { partnerId: p.p1, venueId: p.v1b },
          { partnerId: p.p1, venueId: p.v2a },
        ],
      },
      pu.admin,
    );
    expect([notIts.status, notIts.body.code, notIts.body.details.errors]).toEqual([
      400,
      17107,
      [{ field: 'venues[1].venueId', reason: `'${p.v2a}' is not a venue of partner '${p.p1}'` }],
    ]);
    // a new venue of the partner is accepted once Partner has it
    const fresh = await createVenue(pu.t, p.p1, 'Fresh');
    expect(
      (await call(pu.t, 'addVenues', u.id, { venues: [{ partnerId: p.p1, venueId: fresh }] }, pu.admin)).status,
    ).toBe(200);
    const empty = await call(pu.t, 'addVenues', u.id, { venues: [] }, pu.admin);
    expect([empty.status, empty.body.code]).toEqual([400, 1002]);
    expect(
      (await call(pu.t, 'addVenues', u.id, { venues: [{ partnerId: p.p1, venueId: p.v1b }] }, pu.reader)).status,
    ).toBe(403);
  });

  test('removeVenues removes the venues named and reports the others; none of them assigned is 409', async () => {
    const u = await activeUser({
      venues: [
        { partnerId: p.p1, venueId: p.v1a },
        { partnerId: p.p1, venueId: p.v1b },
      ],
    });
    const r = await call(pu.t, 'removeVenues', u.id, { venueIds: [p.v1a, 'v-unknown'] }, pu.puadmin);
    expect(r.body).toMatchObject({
      user: { venues: [{ partnerId: p.p1, venueId: p.v1b }] },
      removed: [{ partnerId: p.p1, venueId: p.v1a }],
      notAssigned: ['v-unknown'],
      approval: { event: 'user_update' },
    });
    const none = await call(pu.t, 'removeVenues', u.id, { venueIds: [p.v1a] }, pu.puadmin);
    expect([none.status, none.body.code, none.body.details.notAssigned]).toEqual([409, 17105, [p.v1a]]);
    expect((await call(pu.t, 'removeVenues', u.id, { venueIds: [p.v1b] }, pu.companyUser)).body.code).toBe(1023);
    expect((await call(pu.t, 'listVenues', u.id, {}, pu.admin)).body.venues).toEqual([
      { partnerId: p.p1, venueId: p.v1b },
    ]);
  });
});

describe('approveUser and the audit log', () => {
  test('approveUser admits the ApprovalManager only', async () => {
    const u = await activeUser();
    const r = await call(
      pu.t,
      'approveUser',
      u.id,
      { approvalId: 'a', action: 'approve', event: 'user_update', entityId: u.id, jsonPatch: [] },
      pu.admin,
    );
    expect([r.status, r.body.code]).toEqual([403, 1008]);
  });

  test('changes are logged under the reviewer or the maker, the name and email masked', async () => {
    const u = await activeUser();
    await call(
      pu.t,
      'updateUser',
      u.id,
      { fullName: 'Logged Name', email: u.email, partners: u.partners, venues: u.venues },
      pu.admin,
    );
    const logs = (await waitFor(
      async () => {
        const found = await findLogs(pu.t, { entityId: u.id });
        return found.items.length >= 3 ? found : undefined;
      },
      { what: 'three audit entries' },
    ))!;
    const events = logs.items
      .map((l: Record<string, any>) => `${l.additionalData?.event}:${l.additionalData?.operation}:${l.actor.id}`)
      .sort();
    expect(events).toEqual([
      'user_create:init:pm-admin',
      'user_create:init:pm-approver',
      'user_update:updateUser:pm-admin',
    ]);
    expect(
      logs.items.every((l: Record<string, any>) => l.entityType === 'partnerUser' && l.classId === 'PartnerUser'),
    ).toBe(true);
    const text = JSON.stringify(logs.items);
    expect(text).not.toContain(u.email);
    expect(text).not.toContain('Logged Name');
  });
});

describe('partners made and checked through Partner', () => {
  test('a partner created and still waiting for its approval is a partner', async () => {
    const waiting = (
      await call(
        pu.t,
        'init',
        undefined,
        {
          legalName: 'Pending LLC',
          brandName: 'Pending',
          businessAddress: 'x',
          city: 'y',
          country: 'AE',
          primaryContact: { name: 'n', email: 'n@example.com', phone: '+1' },
          contractId: 'C',
          contractStartDate: '2030-01-01',
          contractEndDate: '2031-01-01',
        },
        pu.admin,
        'Partner',
      )
    ).body.partner.id as string;
    const r = await init(userBody(p, { partners: [{ partnerId: waiting, role: 'staff' }], venues: [] }));
    expect(r.status).toBe(201);
    expect(await createPartner(pu.t)).toEqual(expect.any(String));
  });

  test('a development token of a level-1 user with the developer flag is approved at once', async () => {
    const dev = bearer(pu.t, 'pm-dev', ['super'], { developer: true });
    const r = await init(userBody(p), dev);
    expect(r.body).toMatchObject({
      user: { status: 'active' },
      pendingApproval: null,
      approval: { approvalType: 'auto', approvalStatus: 'approved' },
    });
  });
});
