/** Partner's pure rules (classes/Partner/rules.ts). */
import { schemaRefusal } from '../support/schema-check';
import type { CreateVenueInput, InitInput } from '../../schemas/Partner/inputs';
import {
  applyContract,
  applyDetails,
  applyVenueUpdate,
  buildPartner,
  buildVenue,
  contractDates,
  coordinatesProblems,
  documentTypeProblem,
  logoTypeProblem,
  normalizeDate,
  logQuery,
  partnerListQuery,
  venueListQuery,
  partnerDocument,
  partnerIdProblem,
  partnerStatusMove,
  sameEntity,
  socialMediaProblems,
  venueDocument,
  venueStatusMove,
  venueTypeProblem,
  venueView,
  withLogo,
  withStatus,
} from '../../classes/Partner/rules';
import type { PartnerRecord } from '../../classes/Partner/types';

const schemaCheck = (method: string, raw: Record<string, unknown>) => schemaRefusal('Partner', method, raw);

const actor = { id: 'pm1', type: 'program_management_user' as const };
const T0 = '2030-01-01T00:00:00.000Z';
const T1 = '2030-02-01T00:00:00.000Z';

const body = (extra: Partial<InitInput> = {}): InitInput => ({
  legalName: 'Sunrise Hospitality LLC',
  brandName: 'Sunrise',
  businessAddress: '1 Beach Road',
  city: 'Dubai',
  country: 'AE',
  primaryContact: { name: 'Lina', email: 'lina@sunrise.example', phone: '+971500000000' },
  contractId: 'C-1',
  contractStartDate: '2030-01-01',
  contractEndDate: '2031-01-01',
  ...extra,
});

function partner(extra: Partial<InitInput> = {}): PartnerRecord {
  return buildPartner({
    id: 'p1',
    body: body(extra),
    dates: { contractStartDate: '2030-01-01T00:00:00.000Z', contractEndDate: '2031-01-01T00:00:00.000Z' },
    createdBy: actor,
    now: T0,
  });
}

const venueBody = (extra: Partial<CreateVenueInput> = {}): CreateVenueInput => ({
  venueName: 'Sunrise Marina',
  address: '2 Marina Walk',
  contactName: 'Omar',
  contactEmail: 'omar@sunrise.example',
  contactPhone: '+971500000001',
  mapCoordinates: { latitude: 25.08, longitude: 55.14 },
  ...extra,
});

describe('ids and dates', () => {
  test('a partner id names its file instance too: letters, digits, _ and - only', () => {
    expect(partnerIdProblem('p-1_A')).toBeNull();
    expect(partnerIdProblem('0b5f5a9e-0c7d-4a5e-9a55-0c1b2f3d4e01')).toBeNull();
    for (const bad of ['', '-p', 'p.1', 'p 1', 'a'.repeat(101), undefined])
      expect(partnerIdProblem(bad)).not.toBeNull();
  });

  test('dates are ISO 8601 dates or date-times with a zone, as UTC instants', () => {
    expect(normalizeDate('2030-01-01')).toBe('2030-01-01T00:00:00.000Z');
    expect(normalizeDate('2030-01-01T04:00:00+04:00')).toBe('2030-01-01T00:00:00.000Z');
    for (const bad of ['2030-02-30', '2030-13-01', '2030-01-01T10:00:00', 'tomorrow', 5, null])
      expect(normalizeDate(bad)).toBeUndefined();
  });

  test('the contract starts before it ends; every problem names its field', () => {
    expect(contractDates('2030-01-01', '2031-01-01')).toEqual({
      ok: true,
      contractStartDate: '2030-01-01T00:00:00.000Z',
      contractEndDate: '2031-01-01T00:00:00.000Z',
    });
    expect(contractDates('2031-01-01', '2030-01-01')).toEqual({
      ok: false,
      problems: [{ field: 'contractEndDate', reason: 'must be after contractStartDate' }],
    });
    expect(contractDates('2030-01-01', '2030-01-01')).toMatchObject({ ok: false });
    expect(contractDates('x', 'y')).toEqual({
      ok: false,
      problems: [
        { field: 'contractStartDate', reason: expect.stringMatching(/ISO 8601/) },
        { field: 'contractEndDate', reason: expect.stringMatching(/ISO 8601/) },
      ],
    });
  });
});

describe('fields', () => {
  test('social media accounts: the spec platforms, http(s) URLs, no account twice', () => {
    expect(
      socialMediaProblems([
        { platform: 'x', url: 'https://x.com/sunrise' },
        { platform: 'tiktok', url: 'http://tiktok.com/@s' },
      ]),
    ).toEqual([]);
    expect(socialMediaProblems(undefined)).toEqual([]);
    const problems = socialMediaProblems([
      { platform: 'myspace' as never, url: 'https://myspace.com/s' },
      { platform: 'facebook', url: 'ftp://fb' },
      { platform: 'x', url: 'https://x.com/a' },
      { platform: 'x', url: 'https://x.com/a' },
    ]);
    expect(problems).toEqual([
      {
        field: 'socialMediaAccounts.0.platform',
        reason: expect.stringContaining('facebook, instagram, linkedin, x, youtube, tiktok'),
      },
      { field: 'socialMediaAccounts.1.url', reason: 'must be an http or https URL' },
      { field: 'socialMediaAccounts.3', reason: 'is given twice' },
    ]);
  });

  test('map coordinates: latitude -90..90, longitude -180..180, bounds included', () => {
    expect(coordinatesProblems({ latitude: 90, longitude: -180 })).toEqual([]);
    expect(coordinatesProblems({ latitude: -90, longitude: 180 })).toEqual([]);
    expect(coordinatesProblems({ latitude: 90.0001, longitude: 180.5 })).toEqual([
      { field: 'mapCoordinates.latitude', reason: 'must be a number from -90 to 90' },
      { field: 'mapCoordinates.longitude', reason: 'must be a number from -180 to 180' },
    ]);
    expect(coordinatesProblems({ latitude: Number.NaN, longitude: Number.POSITIVE_INFINITY })).toHaveLength(2);
  });

  test("a venue's type is the service's: any value sent is refused, naming the field", () => {
    expect(venueTypeProblem({})).toBeNull();
    expect(venueTypeProblem({ type: 'venue' })).toEqual({
      field: 'type',
      reason: expect.stringMatching(/system-managed/),
    });
    expect(venueTypeProblem({ type: null })).not.toBeNull();
  });

  test('logos are images; documents are images or documents, never JSON', () => {
    expect(logoTypeProblem('image/png')).toBeNull();
    expect(logoTypeProblem('image/jpg')).toBeNull();
    expect(logoTypeProblem('application/pdf')).toMatch(/not an image/);
    expect(documentTypeProblem('application/pdf')).toBeNull();
    expect(documentTypeProblem('text/csv')).toBeNull();
    expect(documentTypeProblem('image/webp')).toBeNull();
    expect(documentTypeProblem('application/json')).toMatch(/not a partner document type/);
    expect(documentTypeProblem('pdf')).toMatch(/not a partner document type/);
  });
});

describe('partners', () => {
  test('a new partner is inactive until approved; optional fields are absent when not given; subtypes without repeats', () => {
    const p = partner({ partnerSubtypeIds: ['s1', 's2', 's1'], website: 'https://sunrise.example' });
    expect(p).toMatchObject({
      id: 'p1',
      status: 'inactive',
      createdBy: actor,
      createdAt: T0,
      updatedAt: T0,
      partnerSubtypeIds: ['s1', 's2'],
      website: 'https://sunrise.example',
    });
    expect('partnerTier' in p).toBe(false);
    expect('brandLogoPath' in p).toBe(false);
    expect('statusReason' in p).toBe(false);
  });

  test('details: given fields replace, null removes an optional one, others stay', () => {
    const p = partner({ partnerTier: 'gold', accountAgent: 'Sam' });
    const next = applyDetails(p, { brandName: 'Sunrise Resorts', partnerTier: null, tradeLicenseNumber: 'TL-9' }, T1);
    expect(next).toMatchObject({
      brandName: 'Sunrise Resorts',
      tradeLicenseNumber: 'TL-9',
      accountAgent: 'Sam',
      legalName: p.legalName,
      updatedAt: T1,
    });
    expect('partnerTier' in next).toBe(false);
    expect(p.partnerTier).toBe('gold'); // the original is not changed
    expect(sameEntity(p, applyDetails(p, { brandName: p.brandName }, T1))).toBe(true);
    expect(sameEntity(p, next)).toBe(false);
  });

  test("contract: the dates given are checked against the partner's others", () => {
    const p = partner();
    expect(applyContract(p, { contractEndDate: '2035-01-01' }, T1)).toMatchObject({
      ok: true,
      partner: { contractEndDate: '2035-01-01T00:00:00.000Z', contractId: 'C-1' },
    });
    expect(applyContract(p, { contractStartDate: '2032-01-01' }, T1)).toEqual({
      ok: false,
      problems: [{ field: 'contractEndDate', reason: 'must be after contractStartDate' }],
    });
    expect(applyContract(p, { contractId: 'C-2' }, T1)).toMatchObject({ ok: true, partner: { contractId: 'C-2' } });
  });

  test('status: active and inactive, the same status again refused; a reason kept, an empty or missing one cleared', () => {
    expect(partnerStatusMove('inactive', 'active')).toEqual({ ok: true, to: 'active' });
    expect(partnerStatusMove('active', 'active')).toMatchObject({ ok: false, error: 'PARTNER_STATUS_UNCHANGED' });
    expect(() => partnerStatusMove('active', 'deleted' as never)).toThrow();
    const off = withStatus(partner(), 'inactive', 'contract paused', T1);
    expect(off).toMatchObject({ status: 'inactive', statusReason: 'contract paused' });
    expect('statusReason' in withStatus(off, 'active', undefined, T1)).toBe(false);
    expect('statusReason' in withStatus(off, 'active', '  ', T1)).toBe(false);
  });

  test('logo: a new path, or none', () => {
    const p = withLogo(partner(), '/p/CALL/FileManager/getPublicFile/partner_p1?filename=x.png', T1);
    expect(p.brandLogoPath).toMatch(/getPublicFile/);
    expect('brandLogoPath' in withLogo(p, undefined, T1)).toBe(false);
  });

  test('the streamed document: the partner, its wait, venue count and a lower-cased search column', () => {
    const doc = partnerDocument(
      partner({ tradeLicenseNumber: 'TL-77' }),
      { id: 'a1', event: 'update_partner_status', requestedStatus: 'inactive' },
      2,
    );
    expect(doc).toMatchObject({ id: 'p1', partnerSubtypeIds: [], venueCount: 2, pendingApproval: { id: 'a1' } });
    expect(doc.searchText).toContain('sunrise hospitality llc');
    expect(doc.searchText).toContain('tl-77');
    expect(doc.searchText).toContain('lina@sunrise.example');
  });
});

describe('venues', () => {
  test('a new venue is inactive until approved, of type venue; updates change the given fields only', () => {
    const v = buildVenue({ id: 'v1', partnerId: 'p1', body: venueBody(), createdBy: actor, now: T0 });
    expect(v).toMatchObject({
      id: 'v1',
      partnerId: 'p1',
      type: 'venue',
      status: 'inactive',
      mapCoordinates: { latitude: 25.08, longitude: 55.14 },
    });
    const next = applyVenueUpdate(
      v,
      { venueId: 'v1', address: '3 Marina Walk', mapCoordinates: { latitude: 1, longitude: 2 } },
      T1,
    );
    expect(next).toMatchObject({
      address: '3 Marina Walk',
      venueName: 'Sunrise Marina',
      mapCoordinates: { latitude: 1, longitude: 2 },
      type: 'venue',
      status: 'inactive',
    });
    expect(sameEntity(v, applyVenueUpdate(v, { venueId: 'v1', venueName: 'Sunrise Marina' }, T1))).toBe(true);
    expect(venueStatusMove('inactive', 'active')).toEqual({ ok: true, to: 'active' });
    expect(venueStatusMove('inactive', 'inactive')).toMatchObject({ ok: false });
  });

  test('as clients get it: the PartnerLocation with its name; streamed with a search column', () => {
    const v = buildVenue({ id: 'v1', partnerId: 'p1', body: venueBody(), createdBy: actor, now: T0 });
    expect(venueView(v)).toMatchObject({
      id: 'v1',
      partnerId: 'p1',
      name: 'Sunrise Marina',
      venueName: 'Sunrise Marina',
      type: 'venue',
      status: 'inactive',
    });
    const doc = venueDocument(v, null);
    expect(doc).toMatchObject({ name: 'Sunrise Marina', pendingApproval: null });
    expect(doc.searchText).toContain('2 marina walk');
  });
});

describe('listing inputs', () => {
  test('partners: status, type and subtypes (one or a list, any match), search as a literal, paging', () => {
    expect(
      partnerListQuery({
        status: 'active',
        type: 'pt-hotel',
        subtypes: ['s1', 's2'],
        search: 'Sun.rise',
        page: 2,
        limit: 5,
      }),
    ).toEqual({
      filter: {
        $and: [
          { status: 'active' },
          { partnerTypeId: { $in: ['pt-hotel'] } },
          { partnerSubtypeIds: { $in: ['s1', 's2'] } },
          { searchText: { $regex: 'sun\\.rise' } },
        ],
      },
      sort: { brandName: 1, id: 1 },
      page: 2,
      limit: 5,
      skip: 5,
    });
    expect(partnerListQuery({})).toMatchObject({ filter: {}, page: 1, limit: 20 });
  });

  test('partners: the schema reads a GET query as its types and refuses what the listing cannot take', () => {
    expect(schemaCheck('listPartners', { type: 'pt-hotel', subtypes: ['s1', 's2'], page: '2', limit: '5' })).toEqual({
      input: { type: 'pt-hotel', subtypes: ['s1', 's2'], page: 2, limit: 5 },
      fields: [],
    });
    const bad = schemaCheck('listPartners', { status: 'pending', limit: 101, colour: 'red', subtypes: { $ne: 1 } });
    expect(bad.fields.sort()).toEqual(['colour', 'limit', 'status', 'subtypes']);
    expect(schemaCheck('listPartners', { type: [], search: 'x'.repeat(201) }).fields.sort()).toEqual([
      'search',
      'type',
    ]);
  });

  test("venues: always the partner's own, status and search, paging", () => {
    expect(venueListQuery({ status: 'inactive', search: 'marina' }, 'p1')).toMatchObject({
      filter: { $and: [{ partnerId: 'p1' }, { status: 'inactive' }, { searchText: { $regex: 'marina' } }] },
      page: 1,
      limit: 20,
    });
    expect(venueListQuery({}, 'p1')).toMatchObject({ filter: { partnerId: 'p1' } });
    expect(schemaCheck('listVenues', { partnerId: 'p2', page: '0' }).fields.sort()).toEqual(['page', 'partnerId']);
  });

  test('documents: status, page and limit only', () => {
    expect(schemaCheck('listDocuments', { status: 'archived', page: '2' }).input).toEqual({
      status: 'archived',
      page: 2,
    });
    expect(schemaCheck('listDocuments', { status: 'deleted', limit: '101', other: '1' }).fields.sort()).toEqual([
      'limit',
      'other',
      'status',
    ]);
  });

  test("the audit trail: the Partner class's entries, by partner or by entity, dates with a zone, from not after to", () => {
    expect(logQuery({ partnerId: 'p1', from: '2030-01-01T00:00:00+04:00', search: ' name ', limit: 10 })).toEqual({
      classId: 'Partner',
      entityType: 'partner',
      entityId: 'p1',
      from: '2029-12-31T20:00:00.000Z',
      search: 'name',
      page: 1,
      limit: 10,
    });
    expect(logQuery({ entityType: 'venue', entityId: 'v1' })).toEqual({
      classId: 'Partner',
      entityType: 'venue',
      entityId: 'v1',
      page: 1,
      limit: 20,
    });
    expect(() => logQuery({ partnerId: 'p1', entityId: 'v1', entityType: 'venue' })).toThrow(
      expect.objectContaining({
        code: 17010,
        details: {
          errors: [
            { field: 'entityId', reason: 'cannot be given with partnerId' },
            { field: 'entityType', reason: expect.any(String) },
          ],
        },
      }),
    );
    expect(() => logQuery({ from: '2030-13-01T00:00:00Z' })).toThrow(
      expect.objectContaining({
        code: 17010,
        details: { errors: [{ field: 'from', reason: expect.stringMatching(/ISO 8601/) }] },
      }),
    );
    expect(() => logQuery({ from: '2030-01-02T00:00:00Z', to: '2030-01-01T00:00:00Z' })).toThrow(
      expect.objectContaining({
        code: 17018,
        details: { errors: [{ field: 'from', reason: 'must not be after to' }] },
      }),
    );
    // the schema: a date-time with a zone (seconds optional), no other field
    expect(schemaCheck('getLogEntries', { from: '2030-01-01T00:00Z', to: '2030-01-01' }).fields).toEqual(['to']);
    expect(schemaCheck('getLogEntries', { classId: 'Member', entityType: 'x', limit: '5' }).fields.sort()).toEqual([
      'classId',
      'entityType',
    ]);
  });
});
