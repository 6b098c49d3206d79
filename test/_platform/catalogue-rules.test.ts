/** The benefit catalogue's pure rules (classes/_platform/catalogue.ts, classes/BenefitCategory/rules.ts, classes/Offer/rules.ts). */
import {
  activeCategory,
  applyCategoryUpdate,
  buildCategory,
  buildCategoryListFilter,
  categoryDocument,
  categoryStatusMove,
} from '../../classes/BenefitCategory/rules';
import { idProblems, isoInstant, textList } from '../../classes/_platform/catalogue';
import type { BenefitCategoryRecord } from '../../classes/BenefitCategory/types';
import {
  applyOfferUpdate,
  buildOffer,
  buildOfferListFilter,
  dateRange,
  imageList,
  newReferences,
  offerDocument,
  offerStatusMove,
} from '../../classes/Offer/rules';
import type { OfferRecord } from '../../classes/Offer/types';
import type { CreateOfferInput } from '../../schemas/Offer/inputs';

const T0 = '2030-01-01T00:00:00.000Z';
const T1 = '2030-01-02T00:00:00.000Z';

describe('catalogue-wide rules', () => {
  test('a list column: trimmed items, each once case-insensitively, none blank or with a comma; problems name the item', () => {
    expect(textList([' Spa ', 'Dining'], 'subcategories')).toEqual({ list: ['Spa', 'Dining'], problems: [] });
    expect(textList(['Spa', 'spa ', ' ', 'a,b', 'Gym'], 'subcategories')).toEqual({
      list: ['Spa', 'Gym'],
      problems: [
        { field: 'subcategories.1', reason: "'spa' is given twice" },
        { field: 'subcategories.2', reason: 'must not be blank' },
        { field: 'subcategories.3', reason: 'must not contain a comma (the sheet separates the list with commas)' },
      ],
    });
    // ids compare as they are
    expect(textList(['c1', 'C1'], 'categoryIds', { caseSensitive: true }).problems).toEqual([]);
    expect(textList([], 'keywords')).toEqual({ list: [], problems: [] });
  });

  test('ids: the instance id is a catalogue id, and a body id must be it', () => {
    expect(idProblems('cat-1.a_b', undefined)).toEqual([]);
    expect(idProblems('cat-1', 'cat-1')).toEqual([]);
    expect(idProblems('cat-1', 'cat-2')).toEqual([
      { field: 'id', reason: 'must be the instance id of the path (cat-1)' },
    ]);
    expect(idProblems('a b', undefined)).toEqual([
      { field: 'id', reason: 'must be 1 to 100 letters, digits, _ . or -' },
    ]);
    expect(idProblems('x'.repeat(101), undefined)).toHaveLength(1);
  });

  test('instants: ISO 8601 date-times with a zone, or dates, as UTC; anything else is none', () => {
    expect(isoInstant('2030-01-01T04:00:00+04:00')).toBe(T0);
    expect(isoInstant('2030-01-01')).toBe(T0);
    expect(isoInstant('2030-01-01T00:00:00.5Z')).toBe('2030-01-01T00:00:00.500Z');
    for (const bad of ['2030-02-30', '2030-01-01T00:00:00', 'tomorrow', '', 20300101, null])
      expect([bad, isoInstant(bad)]).toEqual([bad, undefined]);
  });
});

describe('categories', () => {
  const category = (over: Partial<BenefitCategoryRecord> = {}): BenefitCategoryRecord => ({
    ...buildCategory({ name: ' Wellness ', subcategories: ['Spa', 'Gym'], keywords: ['relax'] }, 'cat-1', T0).category,
    ...over,
  });

  test('a new category holds the sheet columns and a status (active unless given), times as ISO instants', () => {
    expect(category()).toEqual({
      id: 'cat-1',
      name: 'Wellness',
      subcategories: ['Spa', 'Gym'],
      keywords: ['relax'],
      status: 'active',
      createdAt: T0,
      updatedAt: T0,
    });
    expect(buildCategory({ name: 'Dining', status: 'inactive' }, 'c', T0).category).toMatchObject({
      subcategories: [],
      keywords: [],
      status: 'inactive',
    });
    expect(buildCategory({ name: '  ', keywords: ['a', 'A'] }, 'c', T0).problems).toEqual([
      { field: 'name', reason: 'must not be blank' },
      { field: 'keywords.1', reason: "'A' is given twice" },
    ]);
  });

  test('an update changes the fields given, bumps updatedAt, and says what changed; nothing changed is no change', () => {
    const r = applyCategoryUpdate(category(), { subcategories: ['Spa', 'Yoga'] }, T1);
    expect(r).toMatchObject({ changed: ['subcategories'], problems: [] });
    expect(r.next).toEqual(category({ subcategories: ['Spa', 'Yoga'], updatedAt: T1 }));
    expect(applyCategoryUpdate(category(), { name: 'Wellness ', keywords: ['relax'] }, T1)).toEqual({
      next: category(),
      changed: [],
      problems: [],
    });
    const bad = applyCategoryUpdate(category(), { name: 'New', subcategories: ['a,b'] }, T1);
    expect(bad).toMatchObject({ next: category(), changed: [], problems: [{ field: 'subcategories.0' }] });
  });

  test('status: active and inactive, either way; the same status is no move', () => {
    expect(categoryStatusMove('active', 'inactive')).toEqual({ ok: true, to: 'inactive' });
    expect(categoryStatusMove('inactive', 'active')).toEqual({ ok: true, to: 'active' });
    expect(categoryStatusMove('active', 'active')).toEqual({ ok: false, reason: 'the category is already active' });
    expect(categoryStatusMove('active', 'expired')).toMatchObject({ ok: false });
  });

  test('the streamed document has a lower-cased order and search column; an active entry is id, name, subcategories', () => {
    const d = categoryDocument(category());
    expect(d).toMatchObject({ id: 'cat-1', sortName: 'wellness', search: 'wellness\nspa\ngym\nrelax' });
    expect(activeCategory({ ...d, _id: 'cat-1', _v: 3 })).toEqual({
      id: 'cat-1',
      name: 'Wellness',
      subcategories: ['Spa', 'Gym'],
    });
  });

  test('the listing filter: status, and search as a literal in the search column', () => {
    expect(buildCategoryListFilter({})).toEqual({});
    expect(buildCategoryListFilter({ status: 'active', search: 'A.B' })).toEqual({
      $and: [{ status: 'active' }, { search: { $regex: 'a\\.b' } }],
    });
  });
});

describe('offers', () => {
  const input = (over: Partial<CreateOfferInput> = {}): CreateOfferInput => ({
    partnerId: 'partner-sunrise',
    offerType: 'discount',
    startDate: '2030-01-01T00:00:00Z',
    endDate: '2030-02-01T00:00:00+00:00',
    title: ' Two for one ',
    keywords: ['brunch', 'Weekend'],
    images: ['https://cdn.example/a.png'],
    categoryIds: ['cat-1'],
    ...over,
  });
  const offer = (over: Partial<OfferRecord> = {}): OfferRecord => ({
    ...buildOffer(input(), 'o-1', T0).offer,
    ...over,
  });

  test('a new offer holds the sheet columns, unpublished unless given, dates as UTC instants, absent texts and lists empty', () => {
    expect(offer()).toEqual({
      id: 'o-1',
      partnerId: 'partner-sunrise',
      status: 'unpublished',
      keywords: ['brunch', 'Weekend'],
      offerType: 'discount',
      startDate: T0,
      endDate: '2030-02-01T00:00:00.000Z',
      images: ['https://cdn.example/a.png'],
      shortDescription: '',
      title: 'Two for one',
      description: '',
      categoryIds: ['cat-1'],
      createdAt: T0,
      updatedAt: T0,
    });
    expect(
      buildOffer(
        input({ status: 'published', images: undefined, keywords: undefined, categoryIds: undefined }),
        'o',
        T0,
      ).offer,
    ).toMatchObject({ status: 'published', images: [], keywords: [], categoryIds: [] });
  });

  test('startDate before endDate, both ISO 8601; the problem names the field', () => {
    expect(dateRange('2030-01-01T00:00:00Z', '2030-01-01T00:00:01Z')).toMatchObject({ ok: true });
    expect(dateRange(T1, T0)).toEqual({
      ok: false,
      problems: [{ field: 'endDate', reason: 'must be after startDate' }],
    });
    expect(dateRange(T0, T0)).toEqual({
      ok: false,
      problems: [{ field: 'endDate', reason: 'must be after startDate' }],
    });
    expect(dateRange('soon', T0)).toEqual({
      ok: false,
      problems: [{ field: 'startDate', reason: 'must be an ISO 8601 date-time with a zone' }],
    });
    expect(buildOffer(input({ startDate: T1, endDate: T0 }), 'o', T0).dateProblems).toEqual([
      { field: 'endDate', reason: 'must be after startDate' },
    ]);
  });

  test('images are http(s) URLs, each once; other lists as the catalogue says', () => {
    expect(imageList(['https://a.example/x.png', 'http://b.example/y.jpg'])).toEqual({
      list: ['https://a.example/x.png', 'http://b.example/y.jpg'],
      problems: [],
    });
    expect(
      imageList(['ftp://a.example/x', 'not a url', 'https://a.example/x', 'https://a.example/x']).problems,
    ).toEqual([
      { field: 'images.3', reason: "'https://a.example/x' is given twice" },
      { field: 'images.0', reason: 'must be an http or https URL' },
      { field: 'images.1', reason: 'must be an http or https URL' },
    ]);
    expect(buildOffer(input({ title: ' ', categoryIds: ['c', 'c'] }), 'o', T0).problems).toEqual([
      { field: 'title', reason: 'must not be blank' },
      { field: 'categoryIds.1', reason: "'c' is given twice" },
    ]);
  });

  test("an update changes what it gives; a date given alone is checked against the offer's other date", () => {
    const r = applyOfferUpdate(offer(), { endDate: '2030-03-01T00:00:00Z', description: 'More' }, T1);
    expect(r).toMatchObject({ changed: ['endDate', 'description'], problems: [], dateProblems: [] });
    expect(r.next).toEqual(offer({ endDate: '2030-03-01T00:00:00.000Z', description: 'More', updatedAt: T1 }));
    // the offer starts 2030-01-01: an end before that is refused, naming endDate
    expect(applyOfferUpdate(offer(), { endDate: '2029-12-31T00:00:00Z' }, T1)).toMatchObject({
      next: offer(),
      changed: [],
      dateProblems: [{ field: 'endDate' }],
    });
    expect(applyOfferUpdate(offer(), { startDate: '2030-02-01T00:00:00Z' }, T1).dateProblems).toEqual([
      { field: 'endDate', reason: 'must be after startDate' },
    ]);
    // the same values in another form are no change
    expect(
      applyOfferUpdate(offer(), { startDate: '2030-01-01T04:00:00+04:00', title: 'Two for one' }, T1),
    ).toMatchObject({ next: offer(), changed: [] });
  });

  test('status: any of published, unpublished, expired; the same status is no move', () => {
    expect(offerStatusMove('unpublished', 'published')).toEqual({ ok: true, to: 'published' });
    expect(offerStatusMove('published', 'expired')).toEqual({ ok: true, to: 'expired' });
    expect(offerStatusMove('expired', 'unpublished')).toEqual({ ok: true, to: 'unpublished' });
    expect(offerStatusMove('expired', 'expired')).toEqual({ ok: false, reason: 'the offer is already expired' });
    expect(offerStatusMove('published', 'active')).toMatchObject({ ok: false });
  });

  test('references to check: the partner when new or changed, the categories the change adds, with their fields', () => {
    expect(newReferences(null, { partnerId: 'p', categoryIds: ['a', 'b'] })).toEqual({
      partnerId: 'p',
      categories: [
        { id: 'a', field: 'categoryIds.0' },
        { id: 'b', field: 'categoryIds.1' },
      ],
    });
    expect(newReferences({ partnerId: 'p', categoryIds: ['a'] }, { partnerId: 'p', categoryIds: ['b', 'a'] })).toEqual({
      partnerId: null,
      categories: [{ id: 'b', field: 'categoryIds.0' }],
    });
    expect(newReferences({ partnerId: 'p', categoryIds: [] }, { partnerId: 'q', categoryIds: [] })).toEqual({
      partnerId: 'q',
      categories: [],
    });
  });

  test('the streamed document and the listing filter', () => {
    expect(offerDocument(offer())).toMatchObject({
      id: 'o-1',
      sortTitle: 'two for one',
      search: 'two for one\n\nbrunch\nweekend',
    });
    expect(buildOfferListFilter({ page: 1, limit: 20 })).toEqual({});
    expect(
      buildOfferListFilter({
        page: 1,
        limit: 20,
        status: ['published'],
        partnerId: 'p',
        categoryId: 'c',
        offerType: 't',
        search: '2*1',
      }),
    ).toEqual({
      $and: [
        { status: { $in: ['published'] } },
        { partnerId: 'p' },
        { categoryIds: 'c' },
        { offerType: 't' },
        { search: { $regex: '2\\*1' } },
      ],
    });
  });
});
