/**
 * Offer over real HTTP with the right and wrong identities, against real
 * partners (Partner) and categories (BenefitCategory): creation with the
 * sheet's columns, an unknown partner or category refused naming the field,
 * startDate before endDate, updates and status moves audit-logged, and
 * listOffers against the document store (filters, search, pages, GET query).
 */
import { waitFor } from '../support/harness';
import {
  auditEntries,
  call,
  createPartner,
  startCatalogueRuntime,
  uid,
  type CatalogueRuntime,
  type Headers,
} from '../BenefitCategory/support';

let c: CatalogueRuntime;
let p1: string;
let p2: string;
let c1: string;
let c2: string;

const offerCall = (method: string, id: string | undefined, body: unknown, headers: Headers = c.admin) =>
  call(c.t, 'Offer', method, id, body, headers);
const fieldsOf = (body: { details?: { errors?: { field: string }[] } }) =>
  (body.details?.errors ?? []).map((e) => e.field);

/** createOffer's body: an offer of partner p1 in category c1 */
const offerBody = (over: Record<string, unknown> = {}) => ({
  partnerId: p1,
  offerType: 'discount',
  startDate: '2030-01-01T00:00:00Z',
  endDate: '2030-03-01T00:00:00+04:00',
  title: 'Two for one brunch',
  shortDescription: 'Weekend brunch',
  description: 'Every Friday and Saturday.',
  keywords: ['brunch', 'weekend'],
  images: ['https://cdn.example/brunch.png', 'https://cdn.example/brunch-2.png'],
  categoryIds: [c1],
  ...over,
});

async function createOffer(over: Record<string, unknown> = {}, id = uid('o')): Promise<Record<string, any>> {
  const r = await offerCall('createOffer', id, offerBody(over));
  if (r.status !== 201) throw new Error(`createOffer: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.offer;
}

beforeAll(async () => {
  c = await startCatalogueRuntime();
  [p1, p2] = await Promise.all([createPartner(c.t, 'Sunrise'), createPartner(c.t, 'Moonlight')]);
  c1 = uid('cat');
  c2 = uid('cat');
  for (const [id, name] of [
    [c1, 'Dining'],
    [c2, 'Wellness'],
  ] as const) {
    const r = await call(c.t, 'BenefitCategory', 'createCategory', id, { name }, c.admin);
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  }
});
afterAll(() => c.stop());

describe('createOffer', () => {
  test('an offer of an existing partner holds the sheet columns, unpublished unless given; getOffer answers it; audit-logged', async () => {
    const id = uid('o');
    const r = await offerCall('createOffer', id, offerBody(), c.editor);
    expect(r.status).toBe(201);
    expect(r.body.offer).toEqual({
      id,
      partnerId: p1,
      status: 'unpublished',
      keywords: ['brunch', 'weekend'],
      offerType: 'discount',
      startDate: '2030-01-01T00:00:00.000Z',
      endDate: '2030-02-28T20:00:00.000Z',
      images: ['https://cdn.example/brunch.png', 'https://cdn.example/brunch-2.png'],
      shortDescription: 'Weekend brunch',
      title: 'Two for one brunch',
      description: 'Every Friday and Saturday.',
      categoryIds: [c1],
      createdAt: expect.any(String),
      updatedAt: r.body.offer.createdAt,
    });
    expect((await offerCall('getOffer', id, {}, c.reader)).body).toEqual({ offer: r.body.offer });
    const [entry] = await auditEntries(c.t, 'Offer', id, 1);
    expect(entry).toMatchObject({
      entityType: 'offer',
      entityId: id,
      actor: { id: 'pm-editor' },
      additionalData: { event: 'offer_create' },
    });

    const published = await createOffer({
      status: 'published',
      images: undefined,
      keywords: undefined,
      categoryIds: undefined,
      shortDescription: undefined,
      description: undefined,
    });
    expect(published).toMatchObject({
      status: 'published',
      images: [],
      keywords: [],
      categoryIds: [],
      shortDescription: '',
      description: '',
    });
    // the id may come in the body instead of the path
    const bodyId = uid('o');
    const byBody = await offerCall('createOffer', undefined, { ...offerBody(), id: bodyId });
    expect([byBody.status, byBody.body.offer?.id]).toEqual([201, bodyId]);
  });

  test('a partnerId that names no partner is 400 18072 naming partnerId; nothing is created', async () => {
    const id = uid('o');
    const r = await offerCall('createOffer', id, offerBody({ partnerId: 'partner-nobody' }));
    expect([r.status, r.body.code, r.body.details?.errors]).toEqual([
      400,
      18072,
      [{ field: 'partnerId', reason: "'partner-nobody' is not a partner" }],
    ]);
    const none = await offerCall('getOffer', id, {});
    expect([none.status, none.body.message]).toEqual([500, expect.stringContaining(`No instance with id '${id}'`)]);
    // an existing partner is accepted under the same id afterwards: the refused creation left no instance
    expect((await offerCall('createOffer', id, offerBody())).status).toBe(201);
  });

  test('a category id that names no benefit category is 400 18073 naming the item', async () => {
    const r = await offerCall('createOffer', uid('o'), offerBody({ categoryIds: [c1, 'cat-nowhere', c2] }));
    expect([r.status, r.body.code, r.body.details?.errors]).toEqual([
      400,
      18073,
      [{ field: 'categoryIds.1', reason: "'cat-nowhere' is not a benefit category" }],
    ]);
  });

  test('startDate must be before endDate (400 18071 naming endDate); dates are ISO 8601 date-times with a zone (naming the field)', async () => {
    const after = await offerCall(
      'createOffer',
      uid('o'),
      offerBody({ startDate: '2030-03-01T00:00:00Z', endDate: '2030-01-01T00:00:00Z' }),
    );
    expect([after.status, after.body.code, after.body.details?.errors]).toEqual([
      400,
      18071,
      [{ field: 'endDate', reason: 'must be after startDate' }],
    ]);
    const equal = await offerCall(
      'createOffer',
      uid('o'),
      offerBody({ startDate: '2030-01-01T04:00:00+04:00', endDate: '2030-01-01T00:00:00Z' }),
    );
    expect([equal.status, equal.body.code, fieldsOf(equal.body)]).toEqual([400, 18071, ['endDate']]);
    const words = await offerCall(
      'createOffer',
      uid('o'),
      offerBody({ startDate: 'tomorrow', endDate: '2030-01-01T00:00:00' }),
    );
    expect([words.status, words.body.code, fieldsOf(words.body)]).toEqual([400, 18071, ['startDate', 'endDate']]);
    expect(
      (await offerCall('createOffer', uid('o'), offerBody({ startDate: '2030-01-01', endDate: '2030-01-02' }))).status,
    ).toBe(201);
  });

  test('texts and lists: blank, with a comma, twice or no URL is 400 18070 naming each; the schema names missing and unknown columns', async () => {
    const r = await offerCall(
      'createOffer',
      uid('o'),
      offerBody({
        title: '  ',
        keywords: ['a,b'],
        images: ['ftp://x.example/a', 'https://x.example/b', 'https://x.example/b'],
        categoryIds: [c1, c1],
      }),
    );
    expect([r.status, r.body.code, fieldsOf(r.body)]).toEqual([
      400,
      18070,
      ['title', 'keywords.0', 'images.2', 'images.0', 'categoryIds.1'],
    ]);
    const { title: _title, ...untitled } = offerBody();
    const missing = await offerCall('createOffer', uid('o'), untitled);
    expect([missing.status, fieldsOf(missing.body)]).toEqual([400, ['title']]);
    const extra = await offerCall('createOffer', uid('o'), offerBody({ featured: true }));
    expect([extra.status, fieldsOf(extra.body)]).toEqual([400, ['featured']]);
    const status = await offerCall('createOffer', uid('o'), offerBody({ status: 'active' }));
    expect([status.status, fieldsOf(status.body)]).toEqual([400, ['status']]);
  });

  test('who may create: program management users granted it; not anonymous callers, members, ungranted or company users', async () => {
    expect((await offerCall('createOffer', uid('o'), offerBody(), {})).status).toBe(401);
    expect([(await offerCall('createOffer', uid('o'), offerBody(), c.member)).body.code]).toEqual([1008]);
    for (const h of [c.clerk, c.reader]) {
      const r = await offerCall('createOffer', uid('o'), offerBody(), h);
      expect([r.status, r.body.code]).toEqual([403, 1008]);
    }
    const company = await offerCall('createOffer', uid('o'), offerBody(), c.companyUser);
    expect([company.status, company.body.code]).toEqual([403, 1023]);
  });
});

describe('updateOffer and updateOfferStatus', () => {
  test('an update changes what it gives, checks a date against the other one, and is audit-logged with the fields changed', async () => {
    const o = await createOffer();
    const r = await offerCall(
      'updateOffer',
      o.id,
      { endDate: '2030-06-01T00:00:00Z', keywords: ['brunch'], categoryIds: [c1, c2] },
      c.editor,
    );
    expect(r.status).toBe(200);
    expect(r.body.offer).toEqual({
      ...o,
      endDate: '2030-06-01T00:00:00.000Z',
      keywords: ['brunch'],
      categoryIds: [c1, c2],
      updatedAt: expect.any(String),
    });
    // the offer starts 2030-01-01: an end before it, or a start after its end, is refused naming endDate
    const early = await offerCall('updateOffer', o.id, { endDate: '2029-12-31T00:00:00Z' });
    expect([early.status, early.body.code, fieldsOf(early.body)]).toEqual([400, 18071, ['endDate']]);
    const late = await offerCall('updateOffer', o.id, { startDate: '2030-07-01T00:00:00Z' });
    expect([late.status, late.body.code, fieldsOf(late.body)]).toEqual([400, 18071, ['endDate']]);
    const both = await offerCall('updateOffer', o.id, {
      startDate: '2030-07-01T00:00:00Z',
      endDate: '2030-08-01T00:00:00Z',
    });
    expect(both.body.offer).toMatchObject({
      startDate: '2030-07-01T00:00:00.000Z',
      endDate: '2030-08-01T00:00:00.000Z',
    });
    const entries = await auditEntries(c.t, 'Offer', o.id, 3);
    const first = entries.find((e) => e.additionalData?.changed?.includes('keywords'));
    expect(first!.fieldUpdates.map((f: { key: string }) => f.key).sort()).toEqual([
      'categoryIds',
      'endDate',
      'keywords',
    ]);
  });

  test('a new partner or category is asked from its class: unknown ones are 400 naming the field; a known partner is taken', async () => {
    const o = await createOffer();
    const partner = await offerCall('updateOffer', o.id, { partnerId: 'partner-nobody' });
    expect([partner.status, partner.body.code, fieldsOf(partner.body)]).toEqual([400, 18072, ['partnerId']]);
    const category = await offerCall('updateOffer', o.id, { categoryIds: ['cat-nowhere', c1] });
    expect([category.status, category.body.code, fieldsOf(category.body)]).toEqual([400, 18073, ['categoryIds.0']]);
    expect((await offerCall('updateOffer', o.id, { partnerId: p2 })).body.offer.partnerId).toBe(p2);
    expect((await offerCall('getOffer', o.id, {})).body.offer).toMatchObject({ partnerId: p2, categoryIds: [c1] });
  });

  test('an update that changes nothing is 400 18074; a bad item 400 18070 naming it; an empty body or a status is the schema 400', async () => {
    const o = await createOffer();
    const same = await offerCall('updateOffer', o.id, {
      title: ' Two for one brunch ',
      startDate: '2030-01-01T04:00:00+04:00',
    });
    expect([same.status, same.body.code]).toEqual([400, 18074]);
    const bad = await offerCall('updateOffer', o.id, { images: ['not a url'] });
    expect([bad.status, bad.body.code, fieldsOf(bad.body)]).toEqual([400, 18070, ['images.0']]);
    expect((await offerCall('updateOffer', o.id, {})).status).toBe(400);
    const status = await offerCall('updateOffer', o.id, { status: 'published' });
    expect([status.status, fieldsOf(status.body)]).toEqual([400, ['status']]);
    expect((await offerCall('getOffer', o.id, {})).body.offer).toEqual(o);
  });

  test('status: published, unpublished and expired, any way; the same status is 409 18075; another value the schema 400', async () => {
    const o = await createOffer();
    for (const status of ['published', 'expired', 'unpublished', 'published']) {
      const r = await offerCall('updateOfferStatus', o.id, { status }, c.editor);
      expect([status, r.status, r.body.offer?.status]).toEqual([status, 200, status]);
    }
    const again = await offerCall('updateOfferStatus', o.id, { status: 'published' });
    expect([again.status, again.body.code]).toEqual([409, 18075]);
    const bad = await offerCall('updateOfferStatus', o.id, { status: 'active' });
    expect([bad.status, fieldsOf(bad.body)]).toEqual([400, ['status']]);
    const entries = await auditEntries(c.t, 'Offer', o.id, 5);
    expect(entries.filter((e) => e.additionalData?.event === 'offer_status_update')).toHaveLength(4);
  });

  test('who may change: readers, ungranted, company users, members and anonymous callers are refused; company users and classes read', async () => {
    const o = await createOffer();
    for (const [method, body] of [
      ['updateOffer', { title: 'X' }],
      ['updateOfferStatus', { status: 'published' }],
    ] as const) {
      expect([method, (await offerCall(method, o.id, body, c.reader)).body.code]).toEqual([method, 1008]);
      expect([method, (await offerCall(method, o.id, body, c.clerk)).body.code]).toEqual([method, 1008]);
      expect([method, (await offerCall(method, o.id, body, c.member)).status]).toEqual([method, 403]);
      expect([method, (await offerCall(method, o.id, body, {})).status]).toEqual([method, 401]);
      const company = await offerCall(method, o.id, body, c.companyUser);
      expect([method, company.status, company.body.code]).toEqual([method, 403, 1023]);
    }
    expect((await offerCall('getOffer', o.id, {}, c.companyUser)).body.offer).toEqual(o);
    expect((await offerCall('getOffer', o.id, {}, c.clerk)).status).toBe(403);
    expect((await c.t.rt.call('CatalogueProbe', 'offer', undefined, { id: o.id })).body).toEqual({ offer: o });
  });
});

describe('listOffers', () => {
  /** a tag in every title of this block's offers, so the listing sees only them */
  const tag = uid('lst');
  const ids: Record<string, string> = {};
  const list = (body: Record<string, unknown>, headers: Headers = c.reader) =>
    offerCall('listOffers', undefined, body, headers);
  const titles = (body: { offers: { title: string }[] }) => body.offers.map((o) => o.title.split(' ')[0]);

  beforeAll(async () => {
    const rows: [string, string, string[], string, string, string[]][] = [
      // title, partner, categories, offerType, status, keywords
      ['Echo', p1, [c1], 'discount', 'published', ['brunch']],
      ['alpha', p1, [c1, c2], 'voucher', 'published', ['spa']],
      ['Charlie', p2, [c2], 'discount', 'unpublished', ['massage']],
      ['Bravo', p2, [], 'bogo', 'expired', ['cinema']],
      ['Delta', p1, [c2], 'discount', 'published', ['Yoga+Pilates']],
    ];
    for (const [title, partnerId, categoryIds, offerType, status, keywords] of rows) {
      ids[title] = (
        await createOffer({
          title: `${title} ${tag}`,
          partnerId,
          categoryIds,
          offerType,
          status,
          keywords,
          shortDescription: `${title.toLowerCase()} short text`,
        })
      ).id;
    }
    await waitFor(async () => (await list({ search: tag })).body.totalCount === 5, { what: 'offers projected' });
  });

  test('by title (case-insensitively), answering offers, totalCount, page, limit, totalPages; no store or search columns', async () => {
    const r = await list({ search: tag });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ totalCount: 5, page: 1, limit: 20, totalPages: 1 });
    expect(titles(r.body)).toEqual(['alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']);
    expect(Object.keys(r.body.offers[0]).sort()).toEqual(
      [
        'categoryIds',
        'createdAt',
        'description',
        'endDate',
        'id',
        'images',
        'keywords',
        'offerType',
        'partnerId',
        'shortDescription',
        'startDate',
        'status',
        'title',
        'updatedAt',
      ].sort(),
    );
  });

  test('filters status (one or a list), partnerId, categoryId and offerType, together with search', async () => {
    expect(titles((await list({ search: tag, status: 'published' })).body)).toEqual(['alpha', 'Delta', 'Echo']);
    expect(titles((await list({ search: tag, status: ['expired', 'unpublished'] })).body)).toEqual([
      'Bravo',
      'Charlie',
    ]);
    expect(titles((await list({ search: tag, partnerId: p2 })).body)).toEqual(['Bravo', 'Charlie']);
    expect(titles((await list({ search: tag, categoryId: c2 })).body)).toEqual(['alpha', 'Charlie', 'Delta']);
    expect(titles((await list({ search: tag, categoryId: c2, partnerId: p1, status: 'published' })).body)).toEqual([
      'alpha',
      'Delta',
    ]);
    expect(titles((await list({ search: tag, offerType: 'discount' })).body)).toEqual(['Charlie', 'Delta', 'Echo']);
    expect((await list({ search: tag, partnerId: 'partner-nobody' })).body).toMatchObject({
      offers: [],
      totalCount: 0,
      totalPages: 0,
    });
  });

  test('search finds a title, a short description or a keyword, case-insensitively and literally', async () => {
    const mine = (b: { offers: { id: string; title: string }[] }) =>
      b.offers.filter((o) => Object.values(ids).includes(o.id)).map((o) => o.title.split(' ')[0]);
    expect(titles((await list({ search: `CHARLIE ${tag.toUpperCase()}` })).body)).toEqual(['Charlie']);
    expect(mine((await list({ search: 'echo SHORT', limit: 100 })).body)).toEqual(['Echo']);
    expect(mine((await list({ search: 'MASSAGE', limit: 100 })).body)).toEqual(['Charlie']);
    // '+' is a literal, not a regex quantifier
    expect(mine((await list({ search: 'yoga+pilates', limit: 100 })).body)).toEqual(['Delta']);
    expect(mine((await list({ search: 'yogaa+pilates', limit: 100 })).body)).toEqual([]);
  });

  test('pages', async () => {
    const pages = await Promise.all([1, 2, 3].map((page) => list({ search: tag, page, limit: 2 })));
    expect(pages.map((p) => titles(p.body))).toEqual([['alpha', 'Bravo'], ['Charlie', 'Delta'], ['Echo']]);
    expect(pages[2]!.body).toMatchObject({ totalCount: 5, page: 3, limit: 2, totalPages: 3 });
  });

  test('a GET query (a repeated status is a list); bad values, in the query or the body, are 400 naming each field', async () => {
    const get = await c.t.get(
      `/${c.t.projectId}/CALL/Offer/listOffers?search=${tag}&status=expired&status=unpublished&limit=1&page=2`,
      c.reader,
    );
    expect([get.status, titles(get.body), get.body.totalCount]).toEqual([200, ['Charlie'], 2]);
    const bad = await c.t.get(`/${c.t.projectId}/CALL/Offer/listOffers?status=live&page=0&featured=1`, c.reader);
    expect([bad.status, bad.body.code, fieldsOf(bad.body).sort()]).toEqual([
      400,
      18076,
      ['featured', 'page', 'status'],
    ]);
    const body = await list({ status: ['published', 'live'] });
    expect([body.status, body.body.code, fieldsOf(body.body)]).toEqual([400, 18076, ['status']]);
  });

  test('who may list: granted and company users; not ungranted users, members or anonymous callers', async () => {
    expect(titles((await list({ search: tag }, c.companyUser)).body)).toHaveLength(5);
    expect([(await list({}, c.clerk)).body.code]).toEqual([1008]);
    expect((await list({}, c.member)).status).toBe(403);
    expect((await list({}, {})).status).toBe(401);
  });
});
