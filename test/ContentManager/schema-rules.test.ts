/**
 * The content schemas as data (content-schemas.ts) and what is derived from
 * them (schema-rules.ts): each key's schema accepts a valid content and
 * refuses each kind of invalid field, naming it; a key is valid only in its
 * own group; a new key is only data; images, dates, merging on update, and
 * the schemas as getContentSchemas answers them.
 */
import {
  CONTENT_GROUPS,
  CONTENT_KEYS,
  type ContentKeyDefinition,
  type FieldDefinition,
} from '../../classes/ContentManager/content-schemas';
import {
  CATALOGUE,
  classifyImage,
  ContentCatalogue,
  definitionProblems,
  IMAGE_REASON,
  mergeFields,
  publicFilePrefix,
  publicSchema,
  sniffImage,
  type FieldsCheck,
} from '../../classes/ContentManager/schema-rules';
import { categoryOptions } from '../../classes/ContentManager/use-cases/categories';
import { GIF, GROUP_OF, PNG, PNG_DATA_URL, VALID_FIELDS } from './support';

const PROJECT = 'proj1';
const STORED = `${publicFilePrefix(PROJECT)}content_c1?filename=content_c1_0f7e.png`;
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n').toString('base64');

function errorsOf(check: FieldsCheck) {
  return check.ok ? [] : check.errors;
}
function fieldsNamed(check: FieldsCheck): string[] {
  return errorsOf(check).map((e) => e.field);
}

/** one invalid value per field type (and the reason's gist) */
function invalidValues(f: FieldDefinition): { value: unknown; what: string }[] {
  switch (f.type) {
    case 'boolean':
      return [{ value: 'yes', what: 'a string' }];
    case 'text':
      return [
        { value: 42, what: 'a number' },
        { value: '   ', what: 'blank' },
        { value: 'x'.repeat((f.maxLength ?? 1000) + 1), what: 'too long' },
        ...(f.format === 'uri' ? [{ value: 'not a uri', what: 'not a URI' }] : []),
      ];
    case 'richtext':
      return [{ value: { html: 'x' }, what: 'an object' }];
    case 'number':
      return [{ value: '3', what: 'a string' }];
    case 'image':
      return [
        { value: 'not an image', what: 'not Base64' },
        { value: PDF, what: 'a pdf' },
        { value: 7, what: 'a number' },
      ];
    case 'datetime':
      return [
        { value: 'next tuesday', what: 'not a date-time' },
        { value: '2030-01-01', what: 'a date without a time' },
      ];
    case 'array':
      return [{ value: 'one', what: 'not a list' }];
    case 'enum':
      return f.isMultiSelect
        ? [
            { value: 'discount', what: 'not a list' },
            ...(f.options ? [{ value: ['nope'], what: 'an unknown option' }] : [{ value: [''], what: 'an empty key' }]),
            { value: ['a', 'a'], what: 'a repeated option' },
          ]
        : [
            { value: 'nope', what: 'an unknown option' },
            { value: ['offer'], what: 'a list' },
          ];
    case 'color':
      return [
        { value: 'red', what: 'a colour name' },
        { value: '#12345', what: 'five digits' },
      ];
  }
}

describe('the shipped definitions', () => {
  test('are consistent and cover the six keys of spec 2.8 in their groups', () => {
    expect(definitionProblems(CONTENT_GROUPS, CONTENT_KEYS)).toEqual([]);
    expect(CATALOGUE.groups.map((g) => g.key)).toEqual(['login', 'onboarding', 'homepage']);
    expect(Object.fromEntries(CATALOGUE.keys.map((k) => [k.contentKey, k.contentGroupKey]))).toEqual(GROUP_OF);
  });

  test('the homepage section has the fields of spec 2.8', () => {
    const section = CATALOGUE.key('homepage_section')!;
    expect(section.fields.map((f) => f.key)).toEqual([
      'entityType',
      'sortField',
      'filterOfferTypes',
      'filterCategories',
      'filterSubcategories',
      'filterFeaturedOnly',
      'filterCreatedAtStart',
      'filterCreatedAtEnd',
      'filterStartDateStart',
      'filterStartDateEnd',
      'filterViewStartDateStart',
      'filterViewStartDateEnd',
    ]);
    const byKey = Object.fromEntries(section.fields.map((f) => [f.key, f]));
    expect(byKey.entityType).toMatchObject({ type: 'enum', required: true, isMultiSelect: false });
    expect(byKey.entityType!.options!.map((o) => o.key)).toEqual(['offer', 'voucher', 'event']);
    expect(byKey.sortField!.options!.map((o) => o.key)).toEqual(['relevance', 'distance', 'newest', 'featured']);
    expect(byKey.filterCategories).toMatchObject({
      type: 'enum',
      isMultiSelect: true,
      optionsSource: 'benefitCategories',
    });
    expect(byKey.filterSubcategories).toMatchObject({
      type: 'enum',
      isMultiSelect: true,
      optionsSource: 'benefitSubcategories',
    });
    expect(byKey.filterFeaturedOnly!.type).toBe('boolean');
  });
});

describe.each(CONTENT_KEYS.map((k) => [k.contentKey, k] as const))('%s', (contentKey, def) => {
  test('accepts a valid content', () => {
    const check = CATALOGUE.checkFields(contentKey, VALID_FIELDS[contentKey], PROJECT);
    expect(errorsOf(check)).toEqual([]);
  });

  test('refuses each required field missing, naming it', () => {
    for (const f of def.fields.filter((x) => x.required)) {
      const { [f.key]: _gone, ...rest } = VALID_FIELDS[contentKey]!;
      const check = CATALOGUE.checkFields(contentKey, rest, PROJECT);
      expect([f.key, errorsOf(check)]).toEqual([f.key, [{ field: `fields.${f.key}`, reason: 'is required' }]]);
    }
  });

  test('refuses each kind of invalid value of each field, naming the field', () => {
    for (const f of def.fields) {
      for (const bad of invalidValues(f)) {
        const check = CATALOGUE.checkFields(contentKey, { ...VALID_FIELDS[contentKey], [f.key]: bad.value }, PROJECT);
        const named = fieldsNamed(check).map((n) => n.replace(/\.\d+$/, ''));
        expect([f.key, bad.what, check.ok, named.every((n) => n === `fields.${f.key}`), named.length > 0]).toEqual([
          f.key,
          bad.what,
          false,
          true,
          true,
        ]);
      }
    }
  });

  test('refuses a field its schema does not have', () => {
    const check = CATALOGUE.checkFields(contentKey, { ...VALID_FIELDS[contentKey], colour: '#fff' }, PROJECT);
    expect(errorsOf(check)).toEqual([{ field: 'fields.colour', reason: `is not a field of ${contentKey}` }]);
  });

  test('is valid only inside its own group', () => {
    expect(CATALOGUE.keyProblems(def.contentGroupKey, contentKey)).toEqual([]);
    for (const g of CONTENT_GROUPS.filter((x) => x.key !== def.contentGroupKey)) {
      const problems = CATALOGUE.keyProblems(g.key, contentKey);
      expect(problems).toHaveLength(1);
      expect(problems[0]!.field).toBe('contentKey');
      expect(problems[0]!.reason).toContain(`belongs to group '${def.contentGroupKey}'`);
    }
  });
});

describe('keys and groups', () => {
  test('an unknown group or key is named', () => {
    expect(CATALOGUE.keyProblems('footer', 'login_login')).toEqual([
      { field: 'contentGroupKey', reason: 'must be one of: login, onboarding, homepage' },
    ]);
    expect(CATALOGUE.keyProblems('login', 'login_footer')[0]!.field).toBe('contentKey');
    expect(CATALOGUE.checkFields('login_footer', {}, PROJECT)).toMatchObject({
      ok: false,
      errors: [{ field: 'contentKey' }],
    });
  });

  test('select: a group, a key, both (the key of the group), neither', () => {
    const keysOf = (f: object) => {
      const r = CATALOGUE.select(f);
      return r.ok ? r.keys.map((k) => k.contentKey) : r.errors.map((e) => e.field);
    };
    expect(keysOf({})).toHaveLength(6);
    expect(keysOf({ contentGroupKey: 'homepage' })).toEqual([
      'homepage_hero_banner',
      'homepage_top_slider',
      'homepage_bottom_slider',
      'homepage_section',
    ]);
    expect(keysOf({ contentKey: 'login_login' })).toEqual(['login_login']);
    expect(keysOf({ contentGroupKey: 'login', contentKey: 'login_login' })).toEqual(['login_login']);
    expect(keysOf({ contentGroupKey: 'homepage', contentKey: 'login_login' })).toEqual(['contentKey']);
    expect(keysOf({ contentGroupKey: 'x', contentKey: 'y' })).toEqual(['contentGroupKey', 'contentKey']);
  });
});

describe('adding a key is adding data', () => {
  const extra: ContentKeyDefinition = {
    contentKey: 'homepage_promo',
    contentGroupKey: 'homepage',
    title: 'Promotion',
    order: 7,
    fields: [
      { key: 'headline', title: 'Headline', type: 'text', maxLength: 10, required: true, order: 1 },
      { key: 'rank', title: 'Rank', type: 'number', integer: true, minimum: 1, maximum: 5, required: false, order: 2 },
      {
        key: 'tags',
        title: 'Tags',
        type: 'array',
        items: { type: 'text', maxLength: 5 },
        maxItems: 2,
        required: false,
        order: 3,
      },
      { key: 'body', title: 'Body', type: 'richtext', required: false, order: 4 },
      { key: 'banner', title: 'Banner', type: 'image', required: false, order: 5 },
      { key: 'live', title: 'Live', type: 'boolean', required: false, order: 6 },
    ],
  };
  const catalogue = new ContentCatalogue(CONTENT_GROUPS, [...CONTENT_KEYS, extra]);

  test('its fields are validated from its definition', () => {
    expect(
      errorsOf(
        catalogue.checkFields(
          'homepage_promo',
          { headline: 'Hello', rank: 3, tags: ['a', 'b'], body: '<b>x</b>', banner: PNG, live: true },
          PROJECT,
        ),
      ),
    ).toEqual([]);
    const bad = catalogue.checkFields(
      'homepage_promo',
      { headline: 'Hello there!', rank: 2.5, tags: ['a', 'b', 'toolong'], live: 'y' },
      PROJECT,
    );
    expect(fieldsNamed(bad).sort()).toEqual([
      'fields.headline',
      'fields.live',
      'fields.rank',
      'fields.tags',
      'fields.tags.2',
    ]);
    expect(fieldsNamed(catalogue.checkFields('homepage_promo', { headline: 'Hi', rank: 9 }, PROJECT))).toEqual([
      'fields.rank',
    ]);
    expect(catalogue.keyProblems('login', 'homepage_promo')[0]!.field).toBe('contentKey');
  });

  test('and getContentSchemas would answer it', () => {
    const selected = catalogue.select({ contentGroupKey: 'homepage' });
    expect(selected.ok && selected.keys.map((k) => k.contentKey)).toContain('homepage_promo');
    expect(CATALOGUE.key('homepage_promo')).toBeUndefined();
  });

  test('a broken definition is refused when the catalogue is made', () => {
    const broken = (fields: FieldDefinition[], group = 'homepage') =>
      definitionProblems(CONTENT_GROUPS, [...CONTENT_KEYS, { ...extra, contentGroupKey: group, fields }]);
    expect(broken([], 'footer')).toEqual([expect.stringContaining("group 'footer' is not defined")]);
    expect(broken([{ key: 'a', title: 'A', type: 'enum', required: false, order: 1 }])).toEqual([
      expect.stringContaining('either options or an optionsSource'),
    ]);
    expect(broken([{ key: 'a', title: 'A', type: 'text', required: false, order: 1, notAfter: 'b' }])).toEqual([
      expect.stringContaining('notAfter'),
    ]);
    expect(broken([{ key: 'images', title: 'A', type: 'text', required: false, order: 1 }])).toEqual([
      expect.stringContaining("not be 'images'"),
    ]);
    expect(definitionProblems(CONTENT_GROUPS, [...CONTENT_KEYS, CONTENT_KEYS[0]!])).toEqual([
      expect.stringContaining('defined twice'),
    ]);
    expect(
      () =>
        new ContentCatalogue(CONTENT_GROUPS, [
          ...CONTENT_KEYS,
          { ...extra, fields: [{ key: 'a', title: 'A', type: 'array', required: false, order: 1 }] },
        ]),
    ).toThrow(/names the type of its items/);
  });
});

describe('images', () => {
  test('a data URL, bare Base64 and a stored public URL are images; anything else is not', () => {
    expect(classifyImage(PNG_DATA_URL, PROJECT)).toEqual({ kind: 'upload', mimeType: 'image/png', content: PNG });
    expect(classifyImage(GIF, PROJECT)).toEqual({ kind: 'upload', mimeType: 'image/gif', content: GIF });
    expect(
      classifyImage(
        `data:image/jpg;base64,${Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]).toString('base64')}`,
        PROJECT,
      ),
    ).toMatchObject({ kind: 'upload', mimeType: 'image/jpeg' });
    expect(classifyImage(STORED, PROJECT)).toEqual({ kind: 'stored', url: STORED });
    // a png declared as a gif, a pdf, a URL of another project or elsewhere, a path with more after the file name
    expect(classifyImage(`data:image/gif;base64,${PNG}`, PROJECT)).toBeNull();
    expect(classifyImage(PDF, PROJECT)).toBeNull();
    expect(classifyImage(STORED.replace(PROJECT, 'other'), PROJECT)).toBeNull();
    expect(classifyImage('https://example.com/a.png', PROJECT)).toBeNull();
    expect(classifyImage(`${STORED}&x=1`, PROJECT)).toBeNull();
  });

  test('magic numbers of the four image types', () => {
    expect(sniffImage(Buffer.from(PNG, 'base64'))).toBe('image/png');
    expect(sniffImage(Buffer.from(GIF, 'base64'))).toBe('image/gif');
    expect(sniffImage(Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1'))).toBe('image/webp');
    expect(sniffImage(Buffer.from('%PDF-1.4'))).toBeNull();
  });

  test('an image goes under fields.images whether given there or at its key; errors name it as given', () => {
    const top = CATALOGUE.checkFields('login_login', { backgroundImage: PNG }, PROJECT);
    const nested = CATALOGUE.checkFields('login_login', { images: { backgroundImage: PNG } }, PROJECT);
    expect(top.ok && top.fields).toEqual({ images: { backgroundImage: PNG } });
    expect(nested.ok && nested.fields).toEqual({ images: { backgroundImage: PNG } });
    expect(top.ok && top.images).toEqual([
      {
        key: 'backgroundImage',
        field: 'fields.backgroundImage',
        value: { kind: 'upload', mimeType: 'image/png', content: PNG },
      },
    ]);
    expect(errorsOf(CATALOGUE.checkFields('login_login', { images: { backgroundImage: 'x' } }, PROJECT))).toEqual([
      { field: 'fields.images.backgroundImage', reason: IMAGE_REASON },
    ]);
    expect(errorsOf(CATALOGUE.checkFields('login_login', { backgroundImage: 'x' }, PROJECT))).toEqual([
      { field: 'fields.backgroundImage', reason: IMAGE_REASON },
    ]);
    expect(
      fieldsNamed(
        CATALOGUE.checkFields('login_login', { backgroundImage: PNG, images: { backgroundImage: PNG } }, PROJECT),
      ),
    ).toEqual(['fields.backgroundImage']);
    expect(
      fieldsNamed(CATALOGUE.checkFields('login_login', { images: { backgroundImage: PNG, logo: PNG } }, PROJECT)),
    ).toEqual(['fields.images.logo']);
    expect(
      fieldsNamed(
        CATALOGUE.checkFields('homepage_section', { ...VALID_FIELDS.homepage_section, images: { x: PNG } }, PROJECT),
      ),
    ).toEqual(['fields.images.x']);
    expect(fieldsNamed(CATALOGUE.checkFields('login_login', { images: 'x' }, PROJECT))).toEqual(['fields.images']);
  });
});

describe('datetimes, merging, dynamic options', () => {
  test('a range whose start is after its end names the start', () => {
    const check = CATALOGUE.checkFields(
      'homepage_section',
      {
        ...VALID_FIELDS.homepage_section,
        filterStartDateStart: '2030-05-02T00:00:00Z',
        filterStartDateEnd: '2030-05-01T23:59:59Z',
      },
      PROJECT,
    );
    expect(errorsOf(check)).toEqual([
      { field: 'fields.filterStartDateStart', reason: 'must not be after fields.filterStartDateEnd' },
    ]);
    const equal = CATALOGUE.checkFields(
      'homepage_section',
      {
        ...VALID_FIELDS.homepage_section,
        filterStartDateStart: '2030-05-02T04:00:00+04:00',
        filterStartDateEnd: '2030-05-02T00:00:00Z',
      },
      PROJECT,
    );
    expect(errorsOf(equal)).toEqual([]);
  });

  test('on update the given fields go over the stored ones: a value replaces, null removes, images key by key', () => {
    const stored = { title: 'Old', description: 'd', gradientColor: '#000', images: { image: STORED } };
    const check = CATALOGUE.checkFields('onboarding_onboarding', { title: 'New' }, PROJECT, stored);
    expect(check.ok && check.fields).toEqual({ ...stored, title: 'New' });
    const replaced = CATALOGUE.checkFields('onboarding_onboarding', { image: PNG }, PROJECT, stored);
    expect(replaced.ok && replaced.fields.images).toEqual({ image: PNG });
    // a required field removed is missing
    expect(errorsOf(CATALOGUE.checkFields('onboarding_onboarding', { title: null }, PROJECT, stored))).toEqual([
      { field: 'fields.title', reason: 'is required' },
    ]);
    expect(
      errorsOf(CATALOGUE.checkFields('onboarding_onboarding', { images: { image: null } }, PROJECT, stored)),
    ).toEqual([{ field: 'fields.image', reason: 'is required' }]);
    const optional = CATALOGUE.checkFields('homepage_hero_banner', { description: null }, PROJECT, {
      description: 'x',
      images: { image: STORED },
    });
    expect(optional.ok && optional.fields).toEqual({ images: { image: STORED } });
    expect(mergeFields({ a: 1, images: { x: 'u' } }, { b: 2 }, { b: 2, a: null })).toEqual({
      b: 2,
      images: { x: 'u' },
    });
  });

  test('category and subcategory keys must be among the options of the moment', () => {
    const options = categoryOptions([
      { id: 'cat-1', name: 'Dining', subcategories: ['Cafes', 'Fine dining'] },
      { id: 'cat-2', name: 'Travel', subcategories: ['Hotels', 'Cafes'] },
    ]);
    expect(options.benefitSubcategories.map((o) => o.key)).toEqual(['Cafes', 'Fine dining', 'Hotels']);
    const fields = {
      ...VALID_FIELDS.homepage_section,
      filterCategories: ['cat-1', 'cat-9'],
      filterSubcategories: ['Hotels', 'Spas'],
    };
    expect(CATALOGUE.optionProblems('homepage_section', fields, options)).toEqual([
      { field: 'fields.filterCategories.1', reason: "'cat-9' is not the id of an active benefit category" },
      { field: 'fields.filterSubcategories.1', reason: "'Spas' is not a subcategory of an active benefit category" },
    ]);
    expect(
      CATALOGUE.optionProblems(
        'homepage_section',
        { ...fields, filterCategories: ['cat-2'], filterSubcategories: ['Cafes'] },
        options,
      ),
    ).toEqual([]);
    expect(CATALOGUE.sourcesOf('homepage_section')).toEqual(['benefitCategories', 'benefitSubcategories']);
    expect(CATALOGUE.sourcesOf('login_login')).toEqual([]);
  });
});

describe('the schemas as getContentSchemas answers them', () => {
  test('fields in order, where each lives, enums as {key, value} lists, multi-select marked, sources filled', () => {
    const options = categoryOptions([{ id: 'cat-1', name: 'Dining', subcategories: ['Cafes'] }]);
    const section = publicSchema(CATALOGUE.key('homepage_section')!, options);
    const byKey = Object.fromEntries(section.fields.map((f) => [f.key, f]));
    expect(byKey.entityType).toMatchObject({
      type: 'enum',
      isMultiSelect: false,
      options: [
        { key: 'offer', value: 'Offer' },
        { key: 'voucher', value: 'Voucher' },
        { key: 'event', value: 'Event' },
      ],
    });
    expect(byKey.filterOfferTypes!.isMultiSelect).toBe(true);
    expect(byKey.filterCategories).toMatchObject({ isMultiSelect: true, options: [{ key: 'cat-1', value: 'Dining' }] });
    expect(byKey.filterSubcategories).toMatchObject({
      isMultiSelect: true,
      options: [{ key: 'Cafes', value: 'Cafes' }],
    });
    expect(byKey.filterFeaturedOnly).not.toHaveProperty('isMultiSelect');
    expect(section.fields.map((f) => f.order)).toEqual([...section.fields.map((f) => f.order)].sort((a, b) => a - b));
    expect(
      publicSchema(CATALOGUE.key('homepage_section')!, {}).fields.find((f) => f.key === 'filterCategories')!.options,
    ).toEqual([]);
    const login = publicSchema(CATALOGUE.key('login_login')!, {});
    expect(login.fields).toEqual([
      {
        key: 'backgroundImage',
        path: 'images.backgroundImage',
        title: 'Background image',
        type: 'image',
        required: true,
        order: 1,
      },
    ]);
    expect(
      publicSchema(CATALOGUE.key('onboarding_onboarding')!, {}).fields.find((f) => f.key === 'gradientColor'),
    ).toMatchObject({ type: 'color', required: true });
  });
});
