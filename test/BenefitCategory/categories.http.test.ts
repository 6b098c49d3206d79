/**
 * BenefitCategory over real HTTP with the right and wrong identities:
 * creation (ids, the sheet's lists, refusals naming the field), updates,
 * status changes, the audit trail, listCategories against the document store
 * (filters, search, pages, GET query) and listActiveCategories following a
 * category's activation, for users and for a class calling it.
 */
import { waitFor } from '../support/harness';
import { auditEntries, call, startCatalogueRuntime, uid, type CatalogueRuntime, type Headers } from './support';

let c: CatalogueRuntime;
beforeAll(async () => {
  c = await startCatalogueRuntime();
});
afterAll(() => c.stop());

const cat = (method: string, id: string | undefined, body: unknown, headers: Headers = c.admin) =>
  call(c.t, 'BenefitCategory', method, id, body, headers);
const fieldsOf = (body: { details?: { errors?: { field: string }[] } }) =>
  (body.details?.errors ?? []).map((e) => e.field);

describe('createCategory', () => {
  test('creates a category of the sheet columns and a status under the path id; getCategory answers it; audit-logged', async () => {
    const id = uid('cat');
    const r = await cat('createCategory', id, {
      name: ' Wellness ',
      subcategories: ['Spa', ' Gym '],
      keywords: ['relax', 'fitness'],
    });
    expect(r.status).toBe(201);
    expect(r.body.category).toEqual({
      id,
      name: 'Wellness',
      subcategories: ['Spa', 'Gym'],
      keywords: ['relax', 'fitness'],
      status: 'active',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updatedAt: r.body.category.createdAt,
    });
    const got = await cat('getCategory', id, {}, c.reader);
    expect([got.status, got.body]).toEqual([200, { category: r.body.category }]);
    const [entry] = await auditEntries(c.t, 'BenefitCategory', id, 1);
    expect(entry).toMatchObject({
      entityType: 'benefitCategory',
      entityId: id,
      actor: { id: 'pm-admin' },
      additionalData: { event: 'benefit_category_create' },
    });
    expect(entry!.fieldUpdates.map((f: { key: string }) => f.key).sort()).toEqual([
      'createdAt',
      'id',
      'keywords',
      'name',
      'status',
      'subcategories',
    ]);
  });

  test('the id: the path, else the body id, else a UUID; a body id other than the path, or one that cannot name a category, is 400 naming id', async () => {
    const bodyId = uid('cat');
    const byBody = await cat('createCategory', undefined, { id: bodyId, name: 'Dining' });
    expect([byBody.status, byBody.body.category?.id]).toEqual([201, bodyId]);
    expect((await cat('getCategory', bodyId, {})).status).toBe(200);
    const byUuid = await cat('createCategory', undefined, { name: 'Travel', status: 'inactive' });
    expect(byUuid.status).toBe(201);
    expect(byUuid.body.category).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'inactive',
      subcategories: [],
      keywords: [],
    });
    const mismatch = await cat('createCategory', uid('cat'), { id: uid('other'), name: 'Dining' });
    expect([mismatch.status, mismatch.body.code, fieldsOf(mismatch.body)]).toEqual([400, 18050, ['id']]);
    const badId = await cat('createCategory', 'cat@1', { name: 'Dining' });
    expect([badId.status, badId.body.code, fieldsOf(badId.body)]).toEqual([400, 18050, ['id']]);
    const again = await cat('createCategory', bodyId, { name: 'Dining' });
    expect([again.status, again.body.code]).toEqual([409, 1009]);
  });

  test('list items blank, with a comma or twice are 400 naming each; the schema names a missing name and a column the sheet does not have', async () => {
    const r = await cat('createCategory', uid('cat'), {
      name: 'Shops',
      subcategories: ['Fashion', 'fashion ', 'Books, Music'],
      keywords: [' '],
    });
    expect([r.status, r.body.code, fieldsOf(r.body)]).toEqual([
      400,
      18050,
      ['subcategories.1', 'subcategories.2', 'keywords.0'],
    ]);
    const blank = await cat('createCategory', uid('cat'), { name: '   ' });
    expect([blank.status, blank.body.code, fieldsOf(blank.body)]).toEqual([400, 18050, ['name']]);
    const missing = await cat('createCategory', uid('cat'), { subcategories: ['A'] });
    expect([missing.status, fieldsOf(missing.body)]).toEqual([400, ['name']]);
    const extra = await cat('createCategory', uid('cat'), { name: 'Shops', description: 'not a sheet column' });
    expect([extra.status, fieldsOf(extra.body)]).toEqual([400, ['description']]);
    const status = await cat('createCategory', uid('cat'), { name: 'Shops', status: 'published' });
    expect([status.status, fieldsOf(status.body)]).toEqual([400, ['status']]);
  });

  test('who may create: program management users granted it; not anonymous callers, members, ungranted or company users', async () => {
    const body = { name: 'Kids' };
    expect((await cat('createCategory', uid('cat'), body, {})).status).toBe(401);
    expect([(await cat('createCategory', uid('cat'), body, c.member)).body.code]).toEqual([1008]);
    for (const h of [c.clerk, c.reader]) {
      const r = await cat('createCategory', uid('cat'), body, h);
      expect([r.status, r.body.code]).toEqual([403, 1008]);
    }
    const company = await cat('createCategory', uid('cat'), body, c.companyUser);
    expect([company.status, company.body.code]).toEqual([403, 1023]);
    expect((await cat('createCategory', uid('cat'), body, c.editor)).status).toBe(201);
  });
});

describe('updateCategory and updateCategoryStatus', () => {
  test('an update changes what it gives (a list replaces the list held) and is audit-logged with the fields changed', async () => {
    const id = uid('cat');
    const created = (
      await cat('createCategory', id, { name: 'Wellness', subcategories: ['Spa', 'Gym'], keywords: ['relax'] })
    ).body.category;
    const r = await cat('updateCategory', id, { subcategories: ['Spa', 'Yoga', 'Pilates'] }, c.editor);
    expect(r.status).toBe(200);
    expect(r.body.category).toEqual({
      ...created,
      subcategories: ['Spa', 'Yoga', 'Pilates'],
      updatedAt: expect.any(String),
    });
    expect(r.body.category.updatedAt >= created.updatedAt).toBe(true);
    const renamed = await cat('updateCategory', id, { name: 'Health', keywords: [] });
    expect(renamed.body.category).toMatchObject({
      name: 'Health',
      subcategories: ['Spa', 'Yoga', 'Pilates'],
      keywords: [],
    });
    const entries = await auditEntries(c.t, 'BenefitCategory', id, 3);
    const update = entries.find(
      (e) =>
        e.additionalData?.event === 'benefit_category_update' && e.additionalData?.changed?.includes('subcategories'),
    );
    expect(update!.fieldUpdates.map((f: { key: string }) => f.key)).toEqual(['subcategories']);
  });

  test('an update that changes nothing is 400 18051; a bad item is 400 18050 naming it; an empty body is the schema 400', async () => {
    const id = uid('cat');
    await cat('createCategory', id, { name: 'Wellness', subcategories: ['Spa'] });
    const same = await cat('updateCategory', id, { name: 'Wellness ', subcategories: ['Spa'] });
    expect([same.status, same.body.code]).toEqual([400, 18051]);
    const bad = await cat('updateCategory', id, { subcategories: ['Spa', 'SPA'] });
    expect([bad.status, bad.body.code, fieldsOf(bad.body)]).toEqual([400, 18050, ['subcategories.1']]);
    expect((await cat('updateCategory', id, {})).status).toBe(400);
    // nothing of the refused changes was kept
    expect((await cat('getCategory', id, {})).body.category).toMatchObject({
      name: 'Wellness',
      subcategories: ['Spa'],
    });
  });

  test('status moves between active and inactive; the same status is 409 18052; others are the schema 400', async () => {
    const id = uid('cat');
    await cat('createCategory', id, { name: 'Wellness' });
    const off = await cat('updateCategoryStatus', id, { status: 'inactive' }, c.editor);
    expect([off.status, off.body.category.status]).toEqual([200, 'inactive']);
    const again = await cat('updateCategoryStatus', id, { status: 'inactive' });
    expect([again.status, again.body.code]).toEqual([409, 18052]);
    expect((await cat('updateCategoryStatus', id, { status: 'active' })).body.category.status).toBe('active');
    const bad = await cat('updateCategoryStatus', id, { status: 'expired' });
    expect([bad.status, fieldsOf(bad.body)]).toEqual([400, ['status']]);
    const entries = await auditEntries(c.t, 'BenefitCategory', id, 3);
    expect(
      entries
        .filter((e) => e.additionalData?.event === 'benefit_category_status_update')
        .map((e) => e.additionalData.toStatus)
        .sort(),
    ).toEqual(['active', 'inactive']);
  });

  test('who may change: readers, ungranted and company users are refused; company users and readers still read', async () => {
    const id = uid('cat');
    await cat('createCategory', id, { name: 'Wellness' });
    for (const [method, body] of [
      ['updateCategory', { name: 'X' }],
      ['updateCategoryStatus', { status: 'inactive' }],
    ] as const) {
      expect([method, (await cat(method, id, body, c.reader)).body.code]).toEqual([method, 1008]);
      expect([method, (await cat(method, id, body, c.clerk)).body.code]).toEqual([method, 1008]);
      expect([method, (await cat(method, id, body, c.member)).status]).toEqual([method, 403]);
      expect([method, (await cat(method, id, body, {})).status]).toEqual([method, 401]);
      const company = await cat(method, id, body, c.companyUser);
      expect([method, company.status, company.body.code]).toEqual([method, 403, 1023]);
    }
    expect((await cat('getCategory', id, {}, c.companyUser)).body.category).toMatchObject({
      name: 'Wellness',
      status: 'active',
    });
    expect((await cat('getCategory', id, {}, c.clerk)).status).toBe(403);
  });
});

describe('listCategories', () => {
  /** a tag in every name of this block's categories, so the listing sees only them */
  const tag = uid('lst');
  const ids: Record<string, string> = {};
  const list = (body: Record<string, unknown>, headers: Headers = c.reader) =>
    cat('listCategories', undefined, body, headers);
  const names = (body: { categories: { name: string }[] }) => body.categories.map((x) => x.name.split(' ')[0]);

  beforeAll(async () => {
    const rows: [string, string[], string[], 'active' | 'inactive'][] = [
      ['Echo', ['Spa'], ['massage'], 'active'],
      ['alpha', ['Fine dining', 'Cafés'], ['brunch'], 'active'],
      ['Charlie', ['Hotels'], ['stay'], 'inactive'],
      ['Bravo', ['Cinema'], ['movies', 'a.b'], 'active'],
      ['Delta', [], ['flights'], 'inactive'],
    ];
    for (const [name, subcategories, keywords, status] of rows) {
      const id = uid('cat');
      ids[name] = id;
      const r = await cat('createCategory', id, { name: `${name} ${tag}`, subcategories, keywords, status });
      if (r.status !== 201) throw new Error(JSON.stringify(r.body));
    }
    await waitFor(async () => (await list({ search: tag })).body.totalCount === 5, { what: 'categories projected' });
  });

  test('by name (case-insensitively), answering categories, totalCount, page, limit, totalPages; no store or search columns', async () => {
    const r = await list({ search: tag });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ totalCount: 5, page: 1, limit: 20, totalPages: 1 });
    expect(names(r.body)).toEqual(['alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']);
    expect(r.body.categories[0]).toEqual({
      id: ids.alpha,
      name: `alpha ${tag}`,
      subcategories: ['Fine dining', 'Cafés'],
      keywords: ['brunch'],
      status: 'active',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  test('filters status; search finds a name, a subcategory or a keyword, case-insensitively and literally', async () => {
    expect(names((await list({ search: tag, status: 'active' })).body)).toEqual(['alpha', 'Bravo', 'Echo']);
    expect(names((await list({ search: tag, status: 'inactive' })).body)).toEqual(['Charlie', 'Delta']);
    expect(names((await list({ search: tag.toUpperCase() })).body)).toHaveLength(5);
    // a subcategory and a keyword of this block's categories (the tag keeps other files' categories out through the ids)
    const mine = (b: { categories: { id: string; name: string }[] }) =>
      b.categories.filter((x) => Object.values(ids).includes(x.id)).map((x) => x.name.split(' ')[0]);
    expect(mine((await list({ search: 'fine DINING', limit: 100 })).body)).toEqual(['alpha']);
    expect(mine((await list({ search: 'MOVIES', limit: 100 })).body)).toEqual(['Bravo']);
    expect(mine((await list({ search: 'flights', status: 'active', limit: 100 })).body)).toEqual([]);
    // a regex metacharacter is a literal: 'a.b' is Bravo's keyword, 'a.c' matches nothing
    expect(mine((await list({ search: 'a.b', limit: 100 })).body)).toEqual(['Bravo']);
    expect(mine((await list({ search: 'a.c', limit: 100 })).body)).toEqual([]);
  });

  test('pages', async () => {
    const pages = await Promise.all([1, 2, 3, 4].map((page) => list({ search: tag, page, limit: 2 })));
    expect(pages.map((p) => names(p.body))).toEqual([['alpha', 'Bravo'], ['Charlie', 'Delta'], ['Echo'], []]);
    expect(pages[0]!.body).toMatchObject({ totalCount: 5, page: 1, limit: 2, totalPages: 3 });
    expect(pages[3]!.body).toMatchObject({ categories: [], totalCount: 5, page: 4, totalPages: 3 });
  });

  test('a GET query; bad values, in the query or the body, are 400 naming each field', async () => {
    const get = await c.t.get(
      `/${c.t.projectId}/CALL/BenefitCategory/listCategories?search=${tag}&status=inactive&limit=1&page=2`,
      c.reader,
    );
    expect([get.status, names(get.body), get.body.totalPages]).toEqual([200, ['Delta'], 2]);
    const bad = await c.t.get(
      `/${c.t.projectId}/CALL/BenefitCategory/listCategories?status=gone&limit=0&colour=red`,
      c.reader,
    );
    expect([bad.status, bad.body.code, fieldsOf(bad.body).sort()]).toEqual([400, 18053, ['colour', 'limit', 'status']]);
    const body = await list({ limit: 101 });
    expect([body.status, fieldsOf(body.body)]).toEqual([400, ['limit']]);
  });

  test('who may list: granted and company users; not ungranted users, members or anonymous callers', async () => {
    expect(names((await list({ search: tag }, c.companyUser)).body)).toHaveLength(5);
    expect((await list({ search: tag }, c.editor)).status).toBe(200);
    expect([(await list({}, c.clerk)).body.code]).toEqual([1008]);
    expect((await list({}, c.member)).status).toBe(403);
    expect((await list({}, {})).status).toBe(401);
  });
});

describe('listActiveCategories', () => {
  const active = async (headers: Headers = c.reader) => {
    const r = await cat('listActiveCategories', undefined, {}, headers);
    if (r.status !== 200) throw new Error(`listActiveCategories: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.categories as { id: string; name: string; subcategories: string[] }[];
  };

  test('follows a category activation and deactivation, answering {id, name, subcategories} by name', async () => {
    const id = uid('cat');
    const other = uid('cat');
    await cat('createCategory', other, { name: 'AAA active first', subcategories: ['One'] });
    await cat('createCategory', id, {
      name: 'Wellness',
      subcategories: ['Spa', 'Gym'],
      keywords: ['relax'],
      status: 'inactive',
    });
    await waitFor(async () => (await active()).some((x) => x.id === other), { what: 'the active category listed' });
    expect((await active()).some((x) => x.id === id)).toBe(false);

    await cat('updateCategoryStatus', id, { status: 'active' });
    const listed = await waitFor(async () => (await active()).find((x) => x.id === id), {
      what: 'the activated category listed',
    });
    expect(listed).toEqual({ id, name: 'Wellness', subcategories: ['Spa', 'Gym'] });
    const all = await active();
    expect(all.map((x) => x.name.toLowerCase())).toEqual([...all.map((x) => x.name.toLowerCase())].sort());
    expect(all.every((x) => Object.keys(x).sort().join() === 'id,name,subcategories')).toBe(true);

    // a change of its subcategories shows too, and a deactivation takes it out
    await cat('updateCategory', id, { subcategories: ['Spa'] });
    await waitFor(async () => (await active()).find((x) => x.id === id)?.subcategories.length === 1, {
      what: 'the new subcategories listed',
    });
    await cat('updateCategoryStatus', id, { status: 'inactive' });
    await waitFor(async () => !(await active()).some((x) => x.id === id), { what: 'the deactivated category gone' });
    expect((await active()).some((x) => x.id === other)).toBe(true);
  });

  test('a class calls it through the typed client; company users read it; ungranted users, members and anonymous callers do not', async () => {
    const id = uid('cat');
    await cat('createCategory', id, { name: 'Probe', subcategories: ['A'] });
    const byClass = await waitFor(
      async () => {
        const r = await c.t.rt.call('CatalogueProbe', 'activeCategories', undefined, {});
        return (r.body as { categories: { id: string }[] }).categories.find((x) => x.id === id);
      },
      { what: 'the category seen by a class' },
    );
    expect(byClass).toEqual({ id, name: 'Probe', subcategories: ['A'] });
    expect((await active(c.companyUser)).some((x) => x.id === id)).toBe(true);
    expect([(await cat('listActiveCategories', undefined, {}, c.clerk)).body.code]).toEqual([1008]);
    expect((await cat('listActiveCategories', undefined, {}, c.member)).status).toBe(403);
    expect((await cat('listActiveCategories', undefined, {}, {})).status).toBe(401);
  });
});
