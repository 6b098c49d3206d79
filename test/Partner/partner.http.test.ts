/**
 * Partner through HTTP (spec 2.5, 3.3, 4.5 Partner, 6, 7.1): creating a
 * partner (with its public logo), reading it, each update with its own
 * workflow event under the default rules, the status rows of 3.3, the
 * streamed `partners` listing, and the partner's audit trail; each with the
 * right and wrong identities.
 */
import { waitFor, type TestRuntime } from '../support/harness';
import {
  auditEntriesWhen,
  bearer,
  docWhen,
  freshId,
  partnerBody,
  PNG,
  startPartnerRuntime,
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
});
afterAll(() => t.stop());

const call = (method: string, id: string | undefined, body: unknown, headers: Record<string, string> = superUser) =>
  t.post(`${p}/Partner/${method}${id ? `/${id}` : ''}`, body, headers);
const details = (id: string, headers = superUser) => t.get(`${p}/Partner/getPartnerDetails/${id}`, headers);
const review = (approvalId: string, action: 'approve' | 'reject', headers = approver) =>
  t.post(`${p}/ApprovalManager/reviewApproval/${approvalId}`, { action }, headers);

/** waits until the partner's approval callback has run */
async function settled(id: string) {
  return waitFor(
    async () => {
      const r = await details(id);
      return r.status === 200 && r.body.pendingApproval === null ? r.body.partner : undefined;
    },
    { what: `partner ${id} settled` },
  );
}

/** a partner created by `headers` and approved by the approver */
async function activePartner(extra: Record<string, unknown> = {}, headers = superUser): Promise<string> {
  const id = freshId();
  const r = await call('init', id, partnerBody(extra), headers);
  expect(r.status).toBe(201);
  expect((await review(r.body.approval.id, 'approve')).status).toBe(200);
  expect((await settled(id)).status).toBe('active');
  return id;
}

const expectForbidden = (r: { status: number; body: any }) => expect([r.status, r.body.code]).toEqual([403, 1008]);
const fields = (r: { body: any }) => (r.body.details?.errors ?? []).map((e: { field: string }) => e.field);

describe('init (event partner_create)', () => {
  test('creates an inactive partner waiting for approval; the approver activates it; audit-logged and streamed', async () => {
    const id = freshId();
    const r = await call(
      'init',
      id,
      partnerBody({
        partnerTypeId: 'pt-hotel',
        partnerSubtypeIds: ['st-spa'],
        socialMediaAccounts: [{ platform: 'instagram', url: 'https://instagram.com/sunrise' }],
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body.partner).toMatchObject({
      id,
      legalName: 'Sunrise Hospitality LLC',
      status: 'inactive',
      contractStartDate: '2030-01-01T00:00:00.000Z',
      contractEndDate: '2031-01-01T00:00:00.000Z',
      createdBy: { id: 'pm1', type: 'program_management_user' },
      socialMediaAccounts: [{ platform: 'instagram', url: 'https://instagram.com/sunrise' }],
    });
    expect(r.body.approval).toMatchObject({
      event: 'partner_create',
      approvalStatus: 'pending',
      approvalType: 'manual',
      entityOldStatus: null,
      entityNewStatus: 'active',
      approvers: ['approver'],
    });
    expect(r.body.pendingApproval).toEqual({
      id: r.body.approval.id,
      event: 'partner_create',
      requestedStatus: 'active',
    });
    expect(r.body.requestedPartner).toMatchObject({ status: 'active' });
    await docWhen(t, 'partners', id, (d) => d.status === 'inactive' && d.pendingApproval?.id === r.body.approval.id);

    // the maker's role does not make it an approver; the approver approves
    expect((await review(r.body.approval.id, 'approve', superUser)).status).toBe(403);
    expect((await review(r.body.approval.id, 'approve')).status).toBe(200);
    expect(await settled(id)).toMatchObject({ status: 'active' });
    await docWhen(t, 'partners', id, (d) => d.status === 'active' && d.pendingApproval === null);

    const [activation, creation] = await auditEntriesWhen(t, 'partner', id, 2);
    expect(creation).toMatchObject({
      classId: 'Partner',
      entityType: 'partner',
      entityId: id,
      actor: { id: 'pm1' },
      additionalData: { event: 'partner_create', approvalStatus: 'pending' },
    });
    // the primary contact is personal data: masked in the log
    expect(JSON.stringify(creation.fieldUpdates)).not.toContain('lina@sunrise.example');
    expect(activation).toMatchObject({
      actor: { id: 'ann' },
      additionalData: { event: 'partner_create', action: 'approve', reviewedBy: 'ann' },
    });
    expect(activation.fieldUpdates.map((f: { key: string }) => f.key)).toEqual(['status']);
  });

  test('a rejected creation leaves the partner inactive, waiting for nothing', async () => {
    const id = freshId();
    const r = await call('init', id, partnerBody());
    expect((await review(r.body.approval.id, 'reject')).status).toBe(200);
    expect(await settled(id)).toMatchObject({ status: 'inactive' });
  });

  test('the brand logo is stored as a public file: reachable without authentication through getPublicFile', async () => {
    const id = freshId();
    const r = await call(
      'init',
      id,
      partnerBody({ brandLogo: { content: PNG, mimeType: 'image/png', originalFilename: 'logo.png' } }),
    );
    expect(r.status).toBe(201);
    const path: string = r.body.partner.brandLogoPath;
    expect(path).toMatch(
      new RegExp(
        `^/${t.projectId}/CALL/FileManager/getPublicFile/partner_${id}\\?filename=partner_${id}_[0-9a-f-]+\\.png$`,
      ),
    );
    const res = await fetch(t.base + path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('public, max-age=1800');
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(PNG, 'base64'))).toBe(true);
  });

  test('refuses bad input with 400 naming the field', async () => {
    const dates = await call(
      'init',
      freshId(),
      partnerBody({ contractStartDate: '2031-01-01', contractEndDate: '2030-01-01' }),
    );
    expect([dates.status, dates.body.code, fields(dates)]).toEqual([400, 17001, ['contractEndDate']]);
    const notADate = await call('init', freshId(), partnerBody({ contractStartDate: 'soon' }));
    expect([notADate.status, notADate.body.code, fields(notADate)]).toEqual([400, 17001, ['contractStartDate']]);
    const platform = await call(
      'init',
      freshId(),
      partnerBody({ socialMediaAccounts: [{ platform: 'myspace', url: 'https://myspace.com/x' }] }),
    );
    expect([platform.status, fields(platform)]).toEqual([400, ['socialMediaAccounts.0.platform']]);
    const twice = await call(
      'init',
      freshId(),
      partnerBody({
        socialMediaAccounts: [
          { platform: 'x', url: 'https://x.com/s' },
          { platform: 'x', url: 'https://x.com/s' },
        ],
      }),
    );
    expect([twice.status, twice.body.code, fields(twice)]).toEqual([400, 17000, ['socialMediaAccounts.1']]);
    const missing = await call('init', freshId(), { ...partnerBody(), contractId: undefined });
    expect([missing.status, fields(missing)]).toEqual([400, ['contractId']]);
    const status = await call('init', freshId(), partnerBody({ status: 'active' }));
    expect([status.status, fields(status)]).toEqual([400, ['status']]);
    const logoType = await call(
      'init',
      freshId(),
      partnerBody({ brandLogo: { content: PNG, mimeType: 'application/pdf' } }),
    );
    expect([logoType.status, logoType.body.code, fields(logoType)]).toEqual([400, 17000, ['brandLogo.mimeType']]);
    const logoContent = await call(
      'init',
      freshId(),
      partnerBody({ brandLogo: { content: Buffer.from('not a png').toString('base64'), mimeType: 'image/png' } }),
    );
    expect([logoContent.status, logoContent.body.code, fields(logoContent)]).toEqual([
      400,
      17013,
      ['brandLogo.content'],
    ]);
    const badId = await call('init', 'p.1', partnerBody());
    expect([badId.status, badId.body.code, fields(badId)]).toEqual([400, 17002, ['instanceId']]);
    // none of the refused partners exists
    expect((await details('p.1')).status).toBe(500);
  });

  test('an existing id is 409; identities: level-10 with the permission yes, without it, an enduser or nobody no', async () => {
    const id = freshId();
    expect((await call('init', id, partnerBody(), editor)).status).toBe(201);
    expect((await call('init', id, partnerBody())).status).toBe(409);
    expectForbidden(await call('init', freshId(), partnerBody(), clerk));
    expectForbidden(await call('init', freshId(), partnerBody(), reader));
    expectForbidden(await call('init', freshId(), partnerBody(), member));
    expect((await call('init', freshId(), partnerBody(), {})).status).toBe(401);
  });
});

describe('reading a partner', () => {
  test('details, contact and contract, by GET or POST; for readers, not for others', async () => {
    const id = await activePartner({ website: 'https://sunrise.example' });
    const d = await details(id, reader);
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({
      partner: { id, status: 'active', website: 'https://sunrise.example' },
      pendingApproval: null,
    });
    expect((await t.get(`${p}/Partner/getPartnerContact/${id}`, reader)).body).toEqual({
      partnerId: id,
      primaryContact: { name: 'Lina Haddad', email: 'lina@sunrise.example', phone: '+971500000000' },
    });
    expect((await call('getPartnerContract', id, {}, reader)).body).toEqual({
      partnerId: id,
      contractId: 'C-1',
      contractStartDate: '2030-01-01T00:00:00.000Z',
      contractEndDate: '2031-01-01T00:00:00.000Z',
    });
    for (const m of ['getPartnerDetails', 'getPartnerContact', 'getPartnerContract']) {
      expectForbidden(await call(m, id, {}, clerk));
      expectForbidden(await call(m, id, {}, member));
      expect((await call(m, id, {}, {})).status).toBe(401);
      expect([m, (await call(m, id, { extra: 1 }, reader)).status]).toEqual([m, 400]);
    }
  });
});

describe('updates (each its own event; plain updates apply at once by default)', () => {
  test('updatePartnerDetails (update_partner_details): given fields replace, null removes; nothing changed is 400', async () => {
    const id = await activePartner({ partnerTier: 'gold', partnerSubtypeIds: ['st-a'] });
    const r = await call(
      'updatePartnerDetails',
      id,
      {
        brandName: 'Sunrise Resorts',
        partnerTier: null,
        partnerSubtypeIds: ['st-b', 'st-c'],
        tradeLicenseNumber: 'TL-1',
      },
      editor,
    );
    expect(r.status).toBe(200);
    expect(r.body.approval).toMatchObject({
      event: 'update_partner_details',
      approvalStatus: 'approved',
      approvalType: 'auto',
    });
    expect(r.body.partner).toMatchObject({
      brandName: 'Sunrise Resorts',
      partnerSubtypeIds: ['st-b', 'st-c'],
      tradeLicenseNumber: 'TL-1',
      status: 'active',
    });
    expect('partnerTier' in r.body.partner).toBe(false);
    expect(r.body.pendingApproval).toBeNull();
    const same = await call('updatePartnerDetails', id, { brandName: 'Sunrise Resorts' }, editor);
    expect([same.status, same.body.code]).toEqual([400, 17006]);
    const bad = await call(
      'updatePartnerDetails',
      id,
      { socialMediaAccounts: [{ platform: 'x', url: 'not a url' }] },
      editor,
    );
    expect([bad.status, fields(bad)]).toEqual([400, ['socialMediaAccounts.0.url']]);
    const empty = await call('updatePartnerDetails', id, {}, editor);
    expect(empty.status).toBe(400);
    const status = await call('updatePartnerDetails', id, { status: 'inactive' }, editor);
    expect([status.status, fields(status)]).toEqual([400, ['status']]);
    expectForbidden(await call('updatePartnerDetails', id, { city: 'Abu Dhabi' }, reader));
    const [entry] = await auditEntriesWhen(t, 'partner', id, 3);
    expect(entry.additionalData).toMatchObject({ event: 'update_partner_details' });
    expect(entry.fieldUpdates.map((f: { key: string }) => f.key).sort()).toEqual([
      'brandName',
      'partnerSubtypeIds',
      'partnerTier',
      'tradeLicenseNumber',
    ]);
  });

  test('updatePartnerContact (update_partner_contact) and updatePartnerContract (update_partner_contract: start before end)', async () => {
    const id = await activePartner();
    const contact = await call('updatePartnerContact', id, {
      primaryContact: { name: 'Sara', email: 'sara@sunrise.example', phone: '+971500000009' },
    });
    expect(contact.body).toMatchObject({
      approval: { event: 'update_partner_contact', approvalType: 'auto' },
      partner: { primaryContact: { name: 'Sara' } },
    });
    const partial = await call('updatePartnerContact', id, { primaryContact: { name: 'Sara' } });
    expect([partial.status, fields(partial)]).toEqual([
      400,
      expect.arrayContaining(['primaryContact.email', 'primaryContact.phone']),
    ]);
    const badEmail = await call('updatePartnerContact', id, {
      primaryContact: { name: 'S', email: 'nope', phone: '1' },
    });
    expect([badEmail.status, fields(badEmail)]).toEqual([400, ['primaryContact.email']]);

    const contract = await call('updatePartnerContract', id, {
      contractId: 'C-2',
      contractEndDate: '2032-06-30T00:00:00Z',
    });
    expect(contract.body).toMatchObject({
      approval: { event: 'update_partner_contract' },
      partner: { contractId: 'C-2', contractEndDate: '2032-06-30T00:00:00.000Z' },
    });
    const before = await call('updatePartnerContract', id, { contractStartDate: '2033-01-01' });
    expect([before.status, before.body.code, fields(before)]).toEqual([400, 17001, ['contractEndDate']]);
    expect((await t.get(`${p}/Partner/getPartnerContract/${id}`, superUser)).body.contractId).toBe('C-2');
  });

  test('updatePartnerBrandLogo (update_partner_brand_logo): a new public logo, or none', async () => {
    const id = await activePartner();
    const r = await call('updatePartnerBrandLogo', id, { brandLogo: { content: PNG, mimeType: 'image/png' } });
    expect(r.body.approval).toMatchObject({ event: 'update_partner_brand_logo', approvalType: 'auto' });
    const path = r.body.partner.brandLogoPath;
    expect((await fetch(t.base + path)).status).toBe(200);
    const removed = await call('updatePartnerBrandLogo', id, { brandLogo: null });
    expect('brandLogoPath' in removed.body.partner).toBe(false);
    const again = await call('updatePartnerBrandLogo', id, { brandLogo: null });
    expect([again.status, again.body.code]).toEqual([400, 17006]);
    const notImage = await call('updatePartnerBrandLogo', id, { brandLogo: { content: PNG, mimeType: 'text/csv' } });
    expect([notImage.status, fields(notImage)]).toEqual([400, ['brandLogo.mimeType']]);
  });

  test('updatePartnerStatus (update_partner_status): active → inactive with a reason and back, through the approver; changes wait meanwhile', async () => {
    const id = await activePartner();
    const off = await call('updatePartnerStatus', id, { status: 'inactive', statusReason: 'Contract paused' });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({
      partner: { status: 'active' },
      approval: {
        event: 'update_partner_status',
        approvalStatus: 'pending',
        entityOldStatus: 'active',
        entityNewStatus: 'inactive',
      },
      requestedPartner: { status: 'inactive', statusReason: 'Contract paused' },
    });
    // while it waits: every other change of the partner is refused
    const busy = await call('updatePartnerDetails', id, { city: 'Sharjah' });
    expect([busy.status, busy.body.code]).toEqual([409, 17003]);
    expect((await call('updatePartnerStatus', id, { status: 'inactive' })).body.code).toBe(17003);
    await docWhen(t, 'partners', id, (d) => d.pendingApproval?.event === 'update_partner_status');
    expect((await review(off.body.approval.id, 'approve')).status).toBe(200);
    expect(await settled(id)).toMatchObject({ status: 'inactive', statusReason: 'Contract paused' });

    const same = await call('updatePartnerStatus', id, { status: 'inactive' });
    expect([same.status, same.body.code, fields(same)]).toEqual([409, 17005, ['status']]);
    const on = await call('updatePartnerStatus', id, { status: 'active' });
    expect((await review(on.body.approval.id, 'approve')).status).toBe(200);
    const back = await settled(id);
    expect(back.status).toBe('active');
    expect('statusReason' in back).toBe(false);

    // a rejected status change leaves the status
    const rejected = await call('updatePartnerStatus', id, { status: 'inactive' });
    expect((await review(rejected.body.approval.id, 'reject')).status).toBe(200);
    expect((await settled(id)).status).toBe('active');
    const badStatus = await call('updatePartnerStatus', id, { status: 'pending' });
    expect([badStatus.status, fields(badStatus)]).toEqual([400, ['status']]);
    expectForbidden(await call('updatePartnerStatus', id, { status: 'inactive' }, clerk));
  });
});

describe('listPartners (the streamed partners collection)', () => {
  test('filters status, type, subtypes (any match) and search, paged, by POST body or GET query', async () => {
    const tag = freshId('list');
    const make = async (brandName: string, extra: Record<string, unknown>, approve: boolean) => {
      const id = freshId();
      const r = await call('init', id, partnerBody({ brandName, legalName: `${tag} ${brandName} LLC`, ...extra }));
      if (approve) {
        await review(r.body.approval.id, 'approve');
        await settled(id);
      }
      return id;
    };
    const a = await make(
      'Alpha',
      { partnerTypeId: `${tag}-hotel`, partnerSubtypeIds: [`${tag}-spa`, `${tag}-gym`] },
      true,
    );
    const b = await make('Bravo', { partnerTypeId: `${tag}-hotel`, partnerSubtypeIds: [`${tag}-gym`] }, false);
    const c = await make('Charlie', { partnerTypeId: `${tag}-food`, partnerSubtypeIds: [`${tag}-cafe`] }, true);
    const d = await make('Delta', { partnerTypeId: `${tag}-food` }, true);
    await waitFor(
      async () =>
        (await t.rt.documents.find('partners', { legalName: { $regex: tag } })).total === 4 &&
        (await t.rt.documents.get('partners', d))?.status === 'active',
      { what: 'listed' },
    );

    const list = async (body: Record<string, unknown>, headers = reader) => {
      const r = await call('listPartners', undefined, { search: tag, ...body }, headers);
      expect(r.status).toBe(200);
      return r.body;
    };
    const ids = (body: { partners: { id: string }[] }) => body.partners.map((x) => x.id);
    expect(ids(await list({}))).toEqual([a, b, c, d]);
    expect(ids(await list({ status: 'active' }))).toEqual([a, c, d]);
    expect(ids(await list({ status: 'inactive' }))).toEqual([b]);
    expect(ids(await list({ type: `${tag}-hotel` }))).toEqual([a, b]);
    expect(ids(await list({ type: [`${tag}-food`, 'other'] }))).toEqual([c, d]);
    expect(ids(await list({ subtypes: [`${tag}-spa`, `${tag}-cafe`] }))).toEqual([a, c]);
    expect(ids(await list({ subtypes: `${tag}-gym`, status: 'active' }))).toEqual([a]);
    expect(ids(await list({ search: `${tag} CHARLIE` }))).toEqual([c]);
    expect(ids(await list({ search: `${tag}.*` }))).toEqual([]); // a literal, not a pattern

    const page2 = await list({ limit: 3, page: 2 });
    expect(page2).toMatchObject({ totalCount: 4, page: 2, limit: 3, totalPages: 2 });
    expect(ids(page2)).toEqual([d]);
    // the listed partner carries no store field or search column
    const listed = (await list({ search: `${tag} alpha` })).partners[0];
    expect(listed).toMatchObject({ id: a, brandName: 'Alpha', status: 'active', pendingApproval: null, venueCount: 0 });
    expect(Object.keys(listed).filter((k) => k.startsWith('_') || k === 'searchText')).toEqual([]);

    const q = new URLSearchParams([
      ['search', tag],
      ['subtypes', `${tag}-gym`],
      ['subtypes', `${tag}-cafe`],
      ['limit', '10'],
    ]);
    const viaGet = await t.get(`${p}/Partner/listPartners?${q}`, reader);
    expect(ids(viaGet.body)).toEqual([a, b, c]);

    const bad = await call('listPartners', undefined, { status: 'pending', limit: 0, sort: 'x' }, reader);
    expect([bad.status, bad.body.code, fields(bad).sort()]).toEqual([400, 17010, ['limit', 'sort', 'status']]);
    expectForbidden(await call('listPartners', undefined, {}, clerk));
    expectForbidden(await call('listPartners', undefined, {}, member));
  });
});

describe("the partner's audit trail (getLogEntries, getLog)", () => {
  test("lists the partner's entries newest first with date range and search, and one entry by id", async () => {
    const id = await activePartner();
    await call('updatePartnerDetails', id, { city: 'Fujairah' });
    await call('updatePartnerContract', id, { contractId: 'C-77' });
    await auditEntriesWhen(t, 'partner', id, 4);

    const r = await call('getLogEntries', undefined, { partnerId: id }, reader);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ totalCount: 4, page: 1, limit: 20, totalPages: 1 });
    expect(r.body.entries.map((e: any) => e.additionalData.event)).toEqual([
      'update_partner_contract',
      'update_partner_details',
      'partner_create',
      'partner_create',
    ]);
    expect(r.body.entries.every((e: any) => e.classId === 'Partner' && e.entityId === id)).toBe(true);

    const search = await t.get(`${p}/Partner/getLogEntries?partnerId=${id}&search=fujairah`, reader);
    expect(search.body.entries.map((e: any) => e.additionalData.event)).toEqual(['update_partner_details']);
    const paged = await call('getLogEntries', undefined, { partnerId: id, limit: 1, page: 2 }, reader);
    expect(paged.body).toMatchObject({ totalCount: 4, totalPages: 4 });
    expect(paged.body.entries[0].additionalData.event).toBe('update_partner_details');
    const newest = r.body.entries[0];
    const from = await call('getLogEntries', undefined, { partnerId: id, from: newest.timeStamp }, reader);
    expect(from.body.entries.map((e: any) => e.id)).toContain(newest.id);
    expect(from.body.entries.every((e: any) => e.timeStamp >= newest.timeStamp)).toBe(true);
    const until = await call('getLogEntries', undefined, { partnerId: id, to: '2000-01-01T00:00:00Z' }, reader);
    expect(until.body.totalCount).toBe(0);

    const range = await call(
      'getLogEntries',
      undefined,
      { from: '2030-01-02T00:00:00Z', to: '2030-01-01T00:00:00Z' },
      reader,
    );
    expect([range.status, range.body.code, fields(range)]).toEqual([400, 17018, ['from']]);
    const bad = await call('getLogEntries', undefined, { partnerId: id, classId: 'Member', from: 'yesterday' }, reader);
    expect([bad.status, bad.body.code, fields(bad).sort()]).toEqual([400, 17010, ['classId', 'from']]);

    const one = await call('getLog', undefined, { logId: newest.id }, reader);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      id: newest.id,
      classId: 'Partner',
      entityType: 'partner',
      entityId: id,
      additionalData: { event: 'update_partner_contract' },
    });
    expect((await t.get(`${p}/Partner/getLog?logId=${newest.id}`, reader)).body.id).toBe(newest.id);

    // an entry of another class is not the Partner's to give
    const other = await t.rt.call('LogManager', 'getLogEntries', undefined, { classId: 'RoleManager', limit: 1 });
    const foreign = (other.body as { entries: { id: string }[] }).entries[0];
    expect(foreign).toBeDefined();
    const refused = await call('getLog', undefined, { logId: foreign!.id }, reader);
    expect([refused.status, refused.body.code]).toEqual([404, 17017]);
    expect((await call('getLog', undefined, { logId: 'no-such-log' }, reader)).body.code).toBe(17017);
    const missing = await call('getLog', undefined, {}, reader);
    expect([missing.status, fields(missing)]).toEqual([400, ['logId']]);

    for (const m of ['getLogEntries', 'getLog']) {
      expectForbidden(await call(m, undefined, { logId: newest.id }, clerk));
      expectForbidden(await call(m, undefined, { logId: newest.id }, member));
    }
  });
});
