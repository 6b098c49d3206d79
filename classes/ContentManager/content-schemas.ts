/**
 * The content groups and the schema of each content key (spec 2.8), as data.
 * Everything else is derived from these two lists: the validation of a
 * content's `fields` (schema-rules.ts compiles one ajv validator per key),
 * which key belongs to which group, the order getContents sorts by, and what
 * getContentSchemas answers. Adding a content key is adding an entry to
 * CONTENT_KEYS (a group to CONTENT_GROUPS); schema-rules.ts checks the lists
 * when the module loads (definitionProblems) and refuses to start on a broken one.
 *
 * Field types (spec 2.8): boolean, text, number, richtext, image, datetime,
 * array, enum, color. An `enum` field lists its options as {key, value}
 * (key = what is stored, value = what is shown), or names an `optionsSource`
 * whose options are filled at request time (the homepage section's category
 * and subcategory filters: the active benefit categories). A multi-select
 * enum holds a list of keys. Image fields hold a Base64 image (a data URL,
 * or bare Base64 of a png, jpeg, gif or webp) on input, which is stored as a
 * public file; the content keeps its public URL under `fields.images.<key>`.
 */

export const FIELD_TYPES = [
  'boolean',
  'text',
  'number',
  'richtext',
  'image',
  'datetime',
  'array',
  'enum',
  'color',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** enum options filled at request time, not held here */
export const OPTION_SOURCES = ['benefitCategories', 'benefitSubcategories'] as const;
export type OptionSource = (typeof OPTION_SOURCES)[number];

export interface EnumOption {
  key: string;
  value: string;
}

export interface FieldDefinition {
  /** the key in `fields` (image fields: in `fields.images`) */
  key: string;
  title: string;
  type: FieldType;
  required: boolean;
  /** position among the key's fields (ascending) */
  order: number;
  description?: string;
  /** text, richtext: longest value (defaults: text 1000, richtext 20000) */
  maxLength?: number;
  /** text: a format the value must have ('uri': an absolute URI, any scheme, e.g. an app deep link) */
  format?: 'uri';
  /** number: bounds, and whether only integers are allowed */
  minimum?: number;
  maximum?: number;
  integer?: boolean;
  /** enum: the options (or optionsSource), and whether the field holds a list of keys */
  options?: readonly EnumOption[];
  optionsSource?: OptionSource;
  isMultiSelect?: boolean;
  /** array: the type of its items and their number (default at most 50) */
  items?: { type: 'text' | 'number'; maxLength?: number };
  maxItems?: number;
  /** datetime: the key of another datetime field of the same content this one must not be after */
  notAfter?: string;
}

export interface ContentKeyDefinition {
  contentKey: string;
  contentGroupKey: string;
  title: string;
  description?: string;
  /** position of the key (getContents sorts by it, spec 4.5 "schema order") */
  order: number;
  fields: readonly FieldDefinition[];
}

export interface ContentGroupDefinition {
  key: string;
  title: string;
  description?: string;
  order: number;
}

export const CONTENT_GROUPS: readonly ContentGroupDefinition[] = [
  { key: 'login', title: 'Login', description: 'The sign-in screen of the member application', order: 1 },
  {
    key: 'onboarding',
    title: 'Onboarding',
    description: 'The screens a member sees before the first sign-in',
    order: 2,
  },
  {
    key: 'homepage',
    title: 'Home page',
    description: 'The hero banner, sliders and sections of the home page',
    order: 3,
  },
];

/** Offer, voucher and event: what a homepage section lists (spec 2.8). */
const SECTION_ENTITY_TYPES: readonly EnumOption[] = [
  { key: 'offer', value: 'Offer' },
  { key: 'voucher', value: 'Voucher' },
  { key: 'event', value: 'Event' },
];

const SECTION_SORT_FIELDS: readonly EnumOption[] = [
  { key: 'relevance', value: 'Relevance' },
  { key: 'distance', value: 'Distance' },
  { key: 'newest', value: 'Newest' },
  { key: 'featured', value: 'Featured' },
];

/**
 * Offer types (the offer sheet's `offerType`, spec 2.9). The spec does not
 * list OfferType's values ("not shown"); these are the kinds of benefit the
 * programme offers, and the filter is a plain enum of them.
 */
const OFFER_TYPES: readonly EnumOption[] = [
  { key: 'discount', value: 'Discount' },
  { key: 'voucher', value: 'Voucher' },
  { key: 'cashback', value: 'Cashback' },
  { key: 'free_item', value: 'Free item' },
  { key: 'experience', value: 'Experience' },
];

const slider = (contentKey: string, title: string, order: number): ContentKeyDefinition => ({
  contentKey,
  contentGroupKey: 'homepage',
  title,
  order,
  fields: [
    { key: 'image', title: 'Image', type: 'image', required: true, order: 1 },
    {
      key: 'actionUrl',
      title: 'Action URL',
      description: 'Where a tap leads: a web address or an app link',
      type: 'text',
      format: 'uri',
      maxLength: 2048,
      required: true,
      order: 2,
    },
  ],
});

const datetimeRange = (prefix: string, title: string, order: number): FieldDefinition[] => [
  { key: `${prefix}Start`, title: `${title} from`, type: 'datetime', required: false, order, notAfter: `${prefix}End` },
  { key: `${prefix}End`, title: `${title} until`, type: 'datetime', required: false, order: order + 1 },
];

export const CONTENT_KEYS: readonly ContentKeyDefinition[] = [
  {
    contentKey: 'login_login',
    contentGroupKey: 'login',
    title: 'Login screen',
    order: 1,
    fields: [{ key: 'backgroundImage', title: 'Background image', type: 'image', required: true, order: 1 }],
  },
  {
    contentKey: 'onboarding_onboarding',
    contentGroupKey: 'onboarding',
    title: 'Onboarding screen',
    order: 2,
    fields: [
      { key: 'title', title: 'Title', type: 'text', maxLength: 200, required: true, order: 1 },
      { key: 'description', title: 'Description', type: 'richtext', required: true, order: 2 },
      { key: 'image', title: 'Image', type: 'image', required: true, order: 3 },
      { key: 'gradientColor', title: 'Gradient color', type: 'color', required: true, order: 4 },
    ],
  },
  {
    contentKey: 'homepage_hero_banner',
    contentGroupKey: 'homepage',
    title: 'Hero banner',
    order: 3,
    fields: [
      { key: 'image', title: 'Image', type: 'image', required: true, order: 1 },
      { key: 'description', title: 'Description', type: 'text', maxLength: 1000, required: false, order: 2 },
    ],
  },
  slider('homepage_top_slider', 'Top slider', 4),
  slider('homepage_bottom_slider', 'Bottom slider', 5),
  {
    contentKey: 'homepage_section',
    contentGroupKey: 'homepage',
    title: 'Home page section',
    description: 'A list of offers, vouchers or events, sorted and filtered as given',
    order: 6,
    fields: [
      {
        key: 'entityType',
        title: 'Lists',
        type: 'enum',
        options: SECTION_ENTITY_TYPES,
        isMultiSelect: false,
        required: true,
        order: 1,
      },
      {
        key: 'sortField',
        title: 'Sorted by',
        type: 'enum',
        options: SECTION_SORT_FIELDS,
        isMultiSelect: false,
        required: true,
        order: 2,
      },
      {
        key: 'filterOfferTypes',
        title: 'Offer types',
        type: 'enum',
        options: OFFER_TYPES,
        isMultiSelect: true,
        required: false,
        order: 3,
      },
      {
        key: 'filterCategories',
        title: 'Categories',
        type: 'enum',
        optionsSource: 'benefitCategories',
        isMultiSelect: true,
        required: false,
        order: 4,
      },
      {
        key: 'filterSubcategories',
        title: 'Subcategories',
        type: 'enum',
        optionsSource: 'benefitSubcategories',
        isMultiSelect: true,
        required: false,
        order: 5,
      },
      { key: 'filterFeaturedOnly', title: 'Featured only', type: 'boolean', required: false, order: 6 },
      ...datetimeRange('filterCreatedAt', 'Created', 7),
      ...datetimeRange('filterStartDate', 'Starting', 9),
      ...datetimeRange('filterViewStartDate', 'Shown', 11),
    ],
  },
];
