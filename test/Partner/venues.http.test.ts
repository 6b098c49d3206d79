/**
 * Venues through HTTP (spec 2.5 PartnerLocation exposed as venue, 3.3 Venue,
 * 4.5, 6): createVenue, getVenue, listVenues (the streamed `venues`
 * collection), updateVenue, updateVenueStatus under the default `Venue`
 * rules, with the right and wrong identities; the type the service manages.
 */
import { waitFor, type TestRuntime } from '../support/harness';
import {
  auditEntriesWhen,
  bearer,
  docWhen,
  freshId,
  partnerBody,
  startPartnerRuntime,
  venueBody,
  writePartnerRoles,
} from './support';

let t: TestRuntime;
let p: string;
let superUser: Record<string, string>;
let approver: Record<string, string>;
let editor: Record<string, string>;
let reader: Record<string, string>;
let clerk: Record<string, string>;
let member: Record<string, string>;
let partnerId: string;

beforeAll(async () => {
  t = await startPartnerRuntime();
  await writePartnerRoles(t);
  p = `/${t.projectId}/CALL`;
  superUser = bearer(t, 'pm1', ['super']);
  approver = bearer(t, 'ann', ['approver']);
  editor = bearer(t, 'ed', ['editor']);
  reader = bearer(t, 'rita', ['reader']);
  clerk = bearer(t, 'cleo', ['clerk']);
  member = bearer(t, 'm1', [], 'enduser');
  partnerId = freshId();
  // the system identity's creation is approved at once (workflow rules: the system actor auto-approves)
  await t.rt.call('Partner', 'init', partnerId, partnerBody());
});
afterAll(() => t.stop());

const call = (method: string, body: unknown, headers: Record<string, string> = superUser, id = partnerId) =>
  t.post(`${p}/Partner/${method}/${id}`, body, headers);
const getVenue = (venueId: string, headers = superUser, id = partnerId) =>
  t.get(`${p}/Partner/getVenue/${id}?venueId=${encodeURIComponent(venueId)}`, headers);
const review = (approvalId: string, action: 'approve' | 'reject', headers = approver) =>
  t.post(`${p}/ApprovalManager/reviewApproval/${approvalId}`, { action }, headers);
const expectForbidden = (r: { status: number; body: any }) => expect([r.status, r.body.code]).toEqual([403, 1008]);
const fields = (r: { body: any }) => (r.body.details?.errors ?? []).map((e: { field: string }) => e.field);

async function settledVenue(venueId: string) {
  return waitFor(
    async () => {
      const r = await getVenue(venueId);
      return r.status === 200 && r.body.pendingApproval === null ? r.body.venue : undefined;
    },
    { what: `venue ${venueId} settled` },
  );
}

async function activeVenue(extra: Record<string, unknown> = {}, id = partnerId): Promise<string> {
  const r = await call('createVenue', venueBody(extra), superUser, id);
  expect(r.status).toBe(201);
  expect((await review(r.body.approval.id, 'approve')).status).toBe(200);
  const venue = await waitFor(async () => {
    const g = await getVenue(r.body.venue.id, superUser, id);
    return g.body.pendingApproval === null ? g.body.venue : undefined;
  });
  expect(venue.status).toBe('active');
  return r.body.venue.id;
}

describe('createVenue (event venue_create)', () => {
  test('an inactive venue of type venue waits for approval; the approver activates it; audit-logged and streamed', async () => {
    const r = await call('createVenue', venueBody(), editor);
    expect(r.status).toBe(201);
    const v = r.body.venue;
    expect(v).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      partnerId,
      venueName: 'Sunrise Marina',
      name: 'Sunrise Marina',
      type: 'venue',
      status: 'inactive',
      mapCoordinates: { latitude: 25.08, longitude: 55.14 },
      createdBy: { id: 'ed' },
    });
    expect(r.body.approval).toMatchObject({
      event: 'venue_create',
      approvalStatus: 'pending',
      entityOldStatus: null,
      entityNewStatus: 'active',
      approvers: ['approver'],
    });
    expect(r.body.pendingApproval).toEqual({
      id: r.body.approval.id,
      event: 'venue_create',
      requestedStatus: 'active',
    });
    await docWhen(t, 'venues', v.id, (d) => d.status === 'inactive' && d.pendingApproval?.id === r.body.approval.id);
    expect((await review(r.body.approval.id, 'approve')).status).toBe(200);
    expect(await settledVenue(v.id)).toMatchObject({ status: 'active', type: 'venue' });
    await docWhen(t, 'venues', v.id, (d) => d.status === 'active' && d.pendingApproval === null);
    const [activation, creation] = await auditEntriesWhen(t, 'venue', v.id, 2);
    expect(creation).toMatchObject({
      classId: 'Partner',
      entityType: 'venue',
      actor: { id: 'ed' },
      additionalData: { partnerId, event: 'venue_create', approvalStatus: 'pending' },
    });
    expect(JSON.stringify(creation.fieldUpdates)).not.toContain('omar@sunrise.example');
    expect(activation).toMatchObject({
      actor: { id: 'ann' },
      additionalData: { partnerId, event: 'venue_create', action: 'approve' },
    });
    // the partner's streamed document counts its venues
    await docWhen(t, 'partners', partnerId, (d) => d.venueCount >= 1);
  });

  test('a rejected creation leaves the venue inactive', async () => {
    const r = await call('createVenue', venueBody());
    expect((await review(r.body.approval.id, 'reject')).status).toBe(200);
    expect(await settledVenue(r.body.venue.id)).toMatchObject({ status: 'inactive' });
  });

  test('the type is system-managed: a client sending it gets 400 naming the field, whatever the value', async () => {
    for (const type of ['venue', 'store', null]) {
      const r = await call('createVenue', venueBody({ type }));
      expect([r.status, r.body.code, r.body.details.errors]).toEqual([
        400,
        17009,
        [{ field: 'type', reason: expect.stringMatching(/system-managed/) }],
      ]);
    }
    const id = await activeVenue();
    const u = await call('updateVenue', { venueId: id, type: 'venue' });
    expect([u.status, u.body.code, fields(u)]).toEqual([400, 17009, ['type']]);
  });

  test('map coordinates: latitude -90..90, longitude -180..180 (bounds included); other bad input names its field', async () => {
    expect((await call('createVenue', venueBody({ mapCoordinates: { latitude: -90, longitude: 180 } }))).status).toBe(
      201,
    );
    const lat = await call('createVenue', venueBody({ mapCoordinates: { latitude: 90.5, longitude: 0 } }));
    expect([lat.status, fields(lat)]).toEqual([400, ['mapCoordinates.latitude']]);
    const lng = await call('createVenue', venueBody({ mapCoordinates: { latitude: 0, longitude: -180.01 } }));
    expect([lng.status, fields(lng)]).toEqual([400, ['mapCoordinates.longitude']]);
    const text = await call('createVenue', venueBody({ mapCoordinates: { latitude: '25', longitude: 55 } }));
    expect([text.status, fields(text)]).toEqual([400, ['mapCoordinates.latitude']]);
    const missing = await call('createVenue', { ...venueBody(), contactEmail: undefined });
    expect([missing.status, fields(missing)]).toEqual([400, ['contactEmail']]);
    const status = await call('createVenue', venueBody({ status: 'active' }));
    expect([status.status, fields(status)]).toEqual([400, ['status']]);
  });

  test('a chosen id is kept; an id taken by this or another partner is 409', async () => {
    const vid = freshId('v');
    const r = await call('createVenue', venueBody({ id: vid }));
    expect(r.body.venue.id).toBe(vid);
    expect((await call('createVenue', venueBody({ id: vid }))).body.code).toBe(17008);
    const other = freshId();
    await t.rt.call('Partner', 'init', other, partnerBody());
    await docWhen(t, 'venues', vid, () => true);
    const taken = await call('createVenue', venueBody({ id: vid }), superUser, other);
    expect([taken.status, taken.body.code, fields(taken)]).toEqual([409, 17008, ['id']]);
  });

  test('identities', async () => {
    expectForbidden(await call('createVenue', venueBody(), reader));
    expectForbidden(await call('createVenue', venueBody(), clerk));
    expectForbidden(await call('createVenue', venueBody(), member));
    expect((await call('createVenue', venueBody(), {})).status).toBe(401);
  });
});

describe('getVenue', () => {
  test("the venue and what it waits for, by GET query or POST body; 404 for another partner's or no venue", async () => {
    const id = await activeVenue();
    const g = await getVenue(id, reader);
    expect(g.status).toBe(200);
    expect(g.body).toEqual({
      venue: expect.objectContaining({ id, partnerId, name: 'Sunrise Marina', status: 'active', type: 'venue' }),
      pendingApproval: null,
    });
    expect((await call('getVenue', { venueId: id }, reader)).body.venue.id).toBe(id);
    const none = await getVenue('no-such-venue', reader);
    expect([none.status, none.body.code]).toEqual([404, 17007]);
    const other = freshId();
    await t.rt.call('Partner', 'init', other, partnerBody());
    expect((await getVenue(id, reader, other)).body.code).toBe(17007);
    expect((await getVenue('__proto__', reader)).body.code).toBe(17007);
    expectForbidden(await getVenue(id, clerk));
    expectForbidden(await getVenue(id, member));
  });
});

describe('updateVenue (venue_update) and updateVenueStatus (venue_status_update)', () => {
  test('an update applies at once by default; nothing changed is 400; an unknown venue 404', async () => {
    const id = await activeVenue();
    const r = await call(
      'updateVenue',
      { venueId: id, address: '9 Palm Street', mapCoordinates: { latitude: 24.5, longitude: 54.4 } },
      editor,
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      venue: {
        address: '9 Palm Street',
        mapCoordinates: { latitude: 24.5, longitude: 54.4 },
        status: 'active',
        type: 'venue',
      },
      approval: { event: 'venue_update', approvalType: 'auto' },
      pendingApproval: null,
    });
    const same = await call('updateVenue', { venueId: id, address: '9 Palm Street' });
    expect([same.status, same.body.code]).toEqual([400, 17006]);
    expect((await call('updateVenue', { venueId: 'none', address: 'x' })).body.code).toBe(17007);
    const bad = await call('updateVenue', { venueId: id, mapCoordinates: { latitude: 0, longitude: 200 } });
    expect([bad.status, fields(bad)]).toEqual([400, ['mapCoordinates.longitude']]);
    const only = await call('updateVenue', { venueId: id });
    expect(only.status).toBe(400);
    expectForbidden(await call('updateVenue', { venueId: id, address: 'x' }, reader));
    const [entry] = await auditEntriesWhen(t, 'venue', id, 3);
    expect(entry).toMatchObject({ additionalData: { event: 'venue_update', partnerId } });
  });

  test('status: active → inactive → active through the approver; the same status again is 409; changes wait meanwhile', async () => {
    const id = await activeVenue();
    const off = await call('updateVenueStatus', { venueId: id, status: 'inactive' });
    expect(off.body).toMatchObject({
      venue: { status: 'active' },
      approval: {
        event: 'venue_status_update',
        approvalStatus: 'pending',
        entityOldStatus: 'active',
        entityNewStatus: 'inactive',
      },
      requestedVenue: { status: 'inactive' },
    });
    const busy = await call('updateVenue', { venueId: id, address: 'elsewhere' });
    expect([busy.status, busy.body.code]).toEqual([409, 17004]);
    // another venue of the partner, and the partner itself, are not held by it
    const other = await activeVenue();
    expect((await call('updateVenue', { venueId: other, address: 'free' })).status).toBe(200);
    expect((await call('updatePartnerDetails', { city: 'Ajman' })).status).toBe(200);
    expect((await review(off.body.approval.id, 'approve')).status).toBe(200);
    expect(await settledVenue(id)).toMatchObject({ status: 'inactive' });
    const same = await call('updateVenueStatus', { venueId: id, status: 'inactive' });
    expect([same.status, same.body.code]).toEqual([409, 17005]);
    const on = await call('updateVenueStatus', { venueId: id, status: 'active' });
    expect((await review(on.body.approval.id, 'approve')).status).toBe(200);
    expect(await settledVenue(id)).toMatchObject({ status: 'active' });
    const rejected = await call('updateVenueStatus', { venueId: id, status: 'inactive' });
    expect((await review(rejected.body.approval.id, 'reject')).status).toBe(200);
    expect(await settledVenue(id)).toMatchObject({ status: 'active' });
    const bad = await call('updateVenueStatus', { venueId: id, status: 'closed' });
    expect([bad.status, fields(bad)]).toEqual([400, ['status']]);
    expectForbidden(await call('updateVenueStatus', { venueId: id, status: 'inactive' }, clerk));
  });
});

describe('listVenues (the streamed venues collection)', () => {
  test("the partner's venues only: status filter, search, pagination, by GET query or POST body", async () => {
    const pid = freshId();
    await t.rt.call('Partner', 'init', pid, partnerBody());
    const create = async (venueName: string, extra: Record<string, unknown> = {}) =>
      (await t.rt.call('Partner', 'createVenue', pid, venueBody({ venueName, ...extra }))).body as {
        venue: { id: string };
      };
    const a = (await create('Atrium', { address: '1 Gold Souk' })).venue.id;
    const b = (await create('Beach Club')).venue.id;
    const c = (await create('Cabana', { contactName: 'Zara Gold' })).venue.id;
    await t.rt.call('Partner', 'updateVenueStatus', pid, { venueId: b, status: 'inactive' });
    // another partner's venue never shows
    await t.rt.call('Partner', 'createVenue', partnerId, venueBody({ venueName: 'Atrium Elsewhere' }));
    await waitFor(
      async () =>
        (await t.rt.documents.find('venues', { partnerId: pid, status: 'active' })).total === 2 &&
        (await t.rt.documents.get('venues', b))?.status === 'inactive',
      { what: 'venues streamed' },
    );

    const list = async (body: Record<string, unknown>) => {
      const r = await call('listVenues', body, reader, pid);
      expect(r.status).toBe(200);
      return r.body;
    };
    const ids = (body: { venues: { id: string }[] }) => body.venues.map((v) => v.id);
    expect(await list({})).toMatchObject({ totalCount: 3, page: 1, limit: 20, totalPages: 1 });
    expect(ids(await list({}))).toEqual([a, b, c]);
    expect(ids(await list({ status: 'active' }))).toEqual([a, c]);
    expect(ids(await list({ status: 'inactive' }))).toEqual([b]);
    expect(ids(await list({ search: 'GOLD' }))).toEqual([a, c]); // address and contact name
    expect(ids(await list({ search: 'atrium' }))).toEqual([a]);
    const page = await list({ limit: 2, page: 2 });
    expect([ids(page), page.totalPages]).toEqual([[c], 2]);
    const first = (await list({ search: 'atrium' })).venues[0];
    expect(first).toMatchObject({ id: a, partnerId: pid, name: 'Atrium', type: 'venue', pendingApproval: null });
    expect(Object.keys(first).filter((k) => k.startsWith('_') || k === 'searchText')).toEqual([]);
    expect(ids((await t.get(`${p}/Partner/listVenues/${pid}?status=active&limit=1`, reader)).body)).toEqual([a]);
    const bad = await call('listVenues', { status: 'open', page: 0, partnerId: 'x' }, reader, pid);
    expect([bad.status, bad.body.code, fields(bad).sort()]).toEqual([400, 17010, ['page', 'partnerId', 'status']]);
    expectForbidden(await call('listVenues', {}, clerk, pid));
    expectForbidden(await call('listVenues', {}, member, pid));
  });
});
