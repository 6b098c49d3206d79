/**
 * Pure rules derived from the content schemas (content-schemas.ts): a
 * compiled catalogue of groups and keys with one ajv validator per content
 * key (compiled once, when the catalogue is made), the check that a key
 * belongs to its group, the normalisation and validation of a content's
 * `fields`, the check of Base64 images, and the schemas as getContentSchemas
 * answers them. No I/O; unit-tested in test/ContentManager/schema-rules.test.ts.
 *
 * Where a content's values live in `fields`:
 *  - every field but images under its key (`fields.title`, `fields.filterCategories`);
 *  - images under `fields.images.<key>` (spec 2.8: "returned as public URLs in a
 *    nested `images` object of `fields`"). On input an image may be given at
 *    `fields.<key>` or at `fields.images.<key>`; it is stored under images.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import {
  CONTENT_GROUPS,
  CONTENT_KEYS,
  FIELD_TYPES,
  OPTION_SOURCES,
  type ContentGroupDefinition,
  type ContentKeyDefinition,
  type EnumOption,
  type FieldDefinition,
  type OptionSource,
} from './content-schemas';

import type { FieldProblem } from '../_platform/paging';
import { isBase64Text, withoutWhitespace } from '../_platform/base64';

export type { FieldProblem };

/** the content's fields as stored: every value but images at its key, image URLs under `images` */
export type ContentFields = Record<string, unknown> & { images?: Record<string, string> };

export const DEFAULT_TEXT_LENGTH = 1000;
export const DEFAULT_RICHTEXT_LENGTH = 20_000;
export const DEFAULT_MAX_ITEMS = 50;
/** the longest image value accepted: a 5 MB image (spec 8) in Base64 with a data URL prefix */
export const MAX_IMAGE_TEXT = Math.ceil((5 * 1024 * 1024 * 4) / 3) + 200;
/** the longest enum key (a category id from the catalogue, an option key) */
export const MAX_ENUM_KEY = 200;
const COLOR = '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$';
const KEY_PATTERN = /^[a-z][A-Za-z0-9_]{0,63}$/;

// ---------------------------------------------------------------- the definitions checked

/** Problems of a set of definitions (empty when usable): what would make a key's schema wrong or ambiguous. */
export function definitionProblems(
  groups: readonly ContentGroupDefinition[],
  keys: readonly ContentKeyDefinition[],
): string[] {
  const problems: string[] = [];
  const groupKeys = new Set<string>();
  for (const g of groups) {
    if (!KEY_PATTERN.test(g.key)) problems.push(`group '${g.key}': the key must match ${KEY_PATTERN}`);
    if (groupKeys.has(g.key)) problems.push(`group '${g.key}' is defined twice`);
    groupKeys.add(g.key);
  }
  const contentKeys = new Set<string>();
  for (const k of keys) {
    const where = `content key '${k.contentKey}'`;
    if (!KEY_PATTERN.test(k.contentKey)) problems.push(`${where}: the key must match ${KEY_PATTERN}`);
    if (contentKeys.has(k.contentKey)) problems.push(`${where} is defined twice`);
    contentKeys.add(k.contentKey);
    if (!groupKeys.has(k.contentGroupKey)) problems.push(`${where}: group '${k.contentGroupKey}' is not defined`);
    if (!Number.isFinite(k.order)) problems.push(`${where}: order must be a number`);
    const fieldKeys = new Set<string>();
    for (const f of k.fields) {
      const at = `${where}, field '${f.key}'`;
      if (!KEY_PATTERN.test(f.key) || f.key === 'images')
        problems.push(`${at}: the key must match ${KEY_PATTERN} and not be 'images'`);
      if (fieldKeys.has(f.key)) problems.push(`${at} is defined twice`);
      fieldKeys.add(f.key);
      if (!(FIELD_TYPES as readonly string[]).includes(f.type)) problems.push(`${at}: unknown type '${f.type}'`);
      if (f.type === 'enum') {
        const has = (f.options ? 1 : 0) + (f.optionsSource ? 1 : 0);
        if (has !== 1) problems.push(`${at}: an enum has either options or an optionsSource`);
        if (f.optionsSource && !(OPTION_SOURCES as readonly string[]).includes(f.optionsSource))
          problems.push(`${at}: unknown optionsSource '${f.optionsSource}'`);
        const optionKeys = (f.options ?? []).map((o) => o.key);
        if (f.options && (optionKeys.length === 0 || new Set(optionKeys).size !== optionKeys.length))
          problems.push(`${at}: options must be a non-empty list of distinct keys`);
      } else if (f.options || f.optionsSource || f.isMultiSelect !== undefined) {
        problems.push(`${at}: options, optionsSource and isMultiSelect belong to enum fields`);
      }
      if (f.type === 'array' && !f.items) problems.push(`${at}: an array names the type of its items`);
    }
    for (const f of k.fields) {
      if (f.notAfter === undefined) continue;
      const other = k.fields.find((o) => o.key === f.notAfter);
      if (f.type !== 'datetime' || !other || other.type !== 'datetime')
        problems.push(`${where}, field '${f.key}': notAfter names a datetime field of the same key`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------- JSON Schema of a key's fields

function fieldSchema(f: FieldDefinition): Record<string, unknown> {
  switch (f.type) {
    case 'boolean':
      return { type: 'boolean' };
    case 'number':
      return {
        type: f.integer ? 'integer' : 'number',
        ...(f.minimum !== undefined ? { minimum: f.minimum } : {}),
        ...(f.maximum !== undefined ? { maximum: f.maximum } : {}),
      };
    case 'text':
    case 'richtext': {
      const max = f.maxLength ?? (f.type === 'text' ? DEFAULT_TEXT_LENGTH : DEFAULT_RICHTEXT_LENGTH);
      return { type: 'string', maxLength: max, pattern: '\\S', ...(f.format ? { format: f.format } : {}) };
    }
    case 'datetime':
      return { type: 'string', format: 'date-time', maxLength: 64 };
    case 'color':
      return { type: 'string', pattern: COLOR };
    case 'image':
      return { type: 'string', minLength: 1, maxLength: MAX_IMAGE_TEXT };
    case 'array': {
      const item = f.items!;
      const items =
        item.type === 'number'
          ? { type: 'number' }
          : { type: 'string', minLength: 1, maxLength: item.maxLength ?? DEFAULT_TEXT_LENGTH };
      return { type: 'array', items, maxItems: f.maxItems ?? DEFAULT_MAX_ITEMS };
    }
    case 'enum': {
      const one = f.options
        ? { enum: f.options.map((o) => o.key) }
        : { type: 'string', minLength: 1, maxLength: MAX_ENUM_KEY };
      return f.isMultiSelect
        ? { type: 'array', items: one, uniqueItems: true, maxItems: f.options?.length ?? 500 }
        : one;
    }
  }
}

/** The JSON Schema of a key's stored `fields` (images nested under `images`). */
export function fieldsSchema(def: ContentKeyDefinition): Record<string, unknown> {
  const plain = def.fields.filter((f) => f.type !== 'image');
  const images = def.fields.filter((f) => f.type === 'image');
  const properties: Record<string, unknown> = Object.fromEntries(plain.map((f) => [f.key, fieldSchema(f)]));
  const required = plain.filter((f) => f.required).map((f) => f.key);
  if (images.length) {
    const requiredImages = images.filter((f) => f.required).map((f) => f.key);
    properties.images = {
      type: 'object',
      properties: Object.fromEntries(images.map((f) => [f.key, fieldSchema(f)])),
      required: requiredImages,
      additionalProperties: false,
    };
    if (requiredImages.length) required.push('images');
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

// ---------------------------------------------------------------- Base64 images

export type ImageValue =
  /** a Base64 image to store as a public file */
  | { kind: 'upload'; mimeType: string; content: string }
  /** the public URL of an image stored before (kept as it is) */
  | { kind: 'stored'; url: string };

// only the head is matched: the content (millions of characters) is sliced off and checked by a loop (see _platform/base64.ts)
const DATA_URL_HEAD = /^data:(image\/(?:png|jpeg|jpg|gif|webp));base64,/i;

/** png, jpeg, gif or webp from the first bytes of the content; null for anything else */
export function sniffImage(head: Buffer): string | null {
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.length >= 6 && /^GIF8[79]a$/.test(head.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (
    head.length >= 12 &&
    head.subarray(0, 4).toString('latin1') === 'RIFF' &&
    head.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  return null;
}

/** the path prefix of the project's public files (FileManager.getPublicFile), which an image field may keep */
export function publicFilePrefix(projectId: string): string {
  return `/${projectId}/CALL/FileManager/getPublicFile/`;
}

export const IMAGE_REASON =
  'must be a Base64 image (png, jpeg, gif or webp; a data URL or bare Base64) or the public URL of an image stored before';

/** What an image field's value is: a Base64 image to upload, or a public file URL of this project; null: neither. */
export function classifyImage(value: string, projectId: string): ImageValue | null {
  const prefix = publicFilePrefix(projectId);
  if (value.startsWith(prefix)) {
    return /^[A-Za-z0-9_.@+=-]+\?filename=[A-Za-z0-9_.%-]+$/.test(value.slice(prefix.length))
      ? { kind: 'stored', url: value }
      : null;
  }
  const head = DATA_URL_HEAD.exec(value.slice(0, 64));
  const declared = head ? head[1].toLowerCase().replace('image/jpg', 'image/jpeg') : undefined;
  const content = withoutWhitespace(head ? value.slice(head[0].length) : value);
  if (!content || content.length % 4 === 1 || !isBase64Text(content)) return null;
  const sniffed = sniffImage(Buffer.from(content.slice(0, 24), 'base64'));
  if (!sniffed) return null;
  // a data URL's declared type must be the content's (FileManager would refuse the mismatch later)
  if (declared && declared !== sniffed) return null;
  return { kind: 'upload', mimeType: sniffed, content };
}

// ---------------------------------------------------------------- the compiled catalogue

/** the filter of getContentSchemas (and of the groups' operations) */
export interface SchemaFilter {
  contentGroupKey?: string;
  contentKey?: string;
}

/** enum options filled at request time, by source */
export type DynamicOptions = Partial<Record<OptionSource, readonly EnumOption[]>>;

/** the input fields split: what to store, where each image was given (for error names), and their problems */
interface NormalizedInput {
  fields: ContentFields;
  /** image key → the field name it was given under (`fields.image` or `fields.images.image`) */
  imageOrigins: Map<string, string>;
  problems: FieldProblem[];
}

export type FieldsCheck =
  | { ok: true; fields: ContentFields; images: { key: string; field: string; value: ImageValue }[] }
  | { ok: false; errors: FieldProblem[] };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pointerSegments(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export class ContentCatalogue {
  readonly groups: readonly ContentGroupDefinition[];
  readonly keys: readonly ContentKeyDefinition[];
  private readonly byKey = new Map<string, ContentKeyDefinition>();
  private readonly byGroup = new Map<string, ContentGroupDefinition>();
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(groups: readonly ContentGroupDefinition[], keys: readonly ContentKeyDefinition[]) {
    const problems = definitionProblems(groups, keys);
    if (problems.length) throw new Error(`Content schemas are broken: ${problems.join('; ')}`);
    this.groups = [...groups].sort((a, b) => a.order - b.order);
    this.keys = [...keys].sort((a, b) => a.order - b.order);
    for (const g of groups) this.byGroup.set(g.key, g);
    const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false });
    addFormats(ajv);
    for (const k of keys) {
      this.byKey.set(k.contentKey, k);
      this.validators.set(k.contentKey, ajv.compile(fieldsSchema(k)));
    }
  }

  group(key: string): ContentGroupDefinition | undefined {
    return this.byGroup.get(key);
  }

  key(contentKey: string): ContentKeyDefinition | undefined {
    return this.byKey.get(contentKey);
  }

  keysOf(groupKey: string): ContentKeyDefinition[] {
    return this.keys.filter((k) => k.contentGroupKey === groupKey);
  }

  /** the key's position (getContents' "schema order"); unknown keys last */
  schemaOrder(contentKey: string): number {
    return this.byKey.get(contentKey)?.order ?? Number.NEGATIVE_INFINITY;
  }

  /** A group and a key of it (spec 2.8: a content key is valid only inside its own group). */
  keyProblems(contentGroupKey: string, contentKey: string): FieldProblem[] {
    const group = this.byGroup.get(contentGroupKey);
    if (!group)
      return [{ field: 'contentGroupKey', reason: `must be one of: ${this.groups.map((g) => g.key).join(', ')}` }];
    const def = this.byKey.get(contentKey);
    if (!def)
      return [{ field: 'contentKey', reason: `must be one of: ${this.keys.map((k) => k.contentKey).join(', ')}` }];
    if (def.contentGroupKey !== contentGroupKey) {
      return [
        {
          field: 'contentKey',
          reason: `belongs to group '${def.contentGroupKey}', not '${contentGroupKey}' (keys of '${contentGroupKey}': ${this.keysOf(
            contentGroupKey,
          )
            .map((k) => k.contentKey)
            .join(', ')})`,
        },
      ];
    }
    return [];
  }

  /**
   * The given fields split into stored shape: images given at `fields.<key>`
   * move under `images`; a value null is a field left out (on update: removed).
   */
  normalize(def: ContentKeyDefinition, raw: unknown): NormalizedInput {
    const problems: FieldProblem[] = [];
    const imageOrigins = new Map<string, string>();
    if (!isPlainObject(raw))
      return { fields: {}, imageOrigins, problems: [{ field: 'fields', reason: 'must be an object' }] };
    const imageKeys = new Set(def.fields.filter((f) => f.type === 'image').map((f) => f.key));
    const out: ContentFields = {};
    const images: Record<string, unknown> = {};
    let nestedImages: unknown = undefined;
    for (const [k, v] of Object.entries(raw)) {
      if (k === 'images') nestedImages = v;
      else if (v === null) continue;
      else if (imageKeys.has(k)) {
        images[k] = v;
        imageOrigins.set(k, `fields.${k}`);
      } else out[k] = v;
    }
    if (nestedImages !== undefined && nestedImages !== null) {
      if (!isPlainObject(nestedImages))
        problems.push({ field: 'fields.images', reason: 'must be an object of image fields' });
      else {
        for (const [k, v] of Object.entries(nestedImages)) {
          if (imageOrigins.has(k)) {
            problems.push({ field: `fields.${k}`, reason: `is given twice (also as fields.images.${k})` });
            continue;
          }
          if (!imageKeys.has(k)) {
            problems.push({
              field: `fields.images.${k}`,
              reason: imageKeys.size
                ? `is not an image field of ${def.contentKey} (those are: ${[...imageKeys].join(', ')})`
                : `is not allowed: ${def.contentKey} has no image fields`,
            });
            continue;
          }
          if (v === null) continue;
          images[k] = v;
          imageOrigins.set(k, `fields.images.${k}`);
        }
      }
    }
    if (Object.keys(images).length) out.images = images as Record<string, string>;
    return { fields: out, imageOrigins, problems };
  }

  /**
   * The fields of a content of `contentKey` checked against its schema:
   * `given` (the request's fields) over `base` (the stored fields, on update:
   * a value given replaces the stored one, null removes it, images key by
   * key). Each problem names its field (`fields.<key>`, `fields.images.<key>`).
   * Enum options from an optionsSource are checked by optionProblems.
   */
  checkFields(contentKey: string, given: unknown, projectId: string, base?: ContentFields): FieldsCheck {
    const def = this.byKey.get(contentKey);
    if (!def)
      return {
        ok: false,
        errors: [{ field: 'contentKey', reason: `must be one of: ${this.keys.map((k) => k.contentKey).join(', ')}` }],
      };
    const n = this.normalize(def, given);
    if (n.problems.length) return { ok: false, errors: n.problems };
    const fields = base ? mergeFields(base, n.fields, given as Record<string, unknown>) : n.fields;
    const validate = this.validators.get(contentKey)!;
    // the schema's problems, then those of the values it let through (every problem of the request at once)
    const errors: FieldProblem[] = validate(fields) ? [] : this.named(def, validate.errors, n.imageOrigins);
    const named = new Set(errors.map((e) => e.field));
    for (const f of def.fields) {
      if (f.notAfter === undefined) continue;
      const from = fields[f.key];
      const until = fields[f.notAfter];
      if (
        typeof from === 'string' &&
        typeof until === 'string' &&
        !named.has(`fields.${f.key}`) &&
        !named.has(`fields.${f.notAfter}`) &&
        Date.parse(from) > Date.parse(until)
      ) {
        errors.push({ field: `fields.${f.key}`, reason: `must not be after fields.${f.notAfter}` });
      }
    }
    const images: { key: string; field: string; value: ImageValue }[] = [];
    for (const [key, value] of Object.entries(isPlainObject(fields.images) ? fields.images : {})) {
      const field = n.imageOrigins.get(key) ?? `fields.images.${key}`;
      if (typeof value !== 'string' || named.has(field)) continue;
      const classified = classifyImage(value, projectId);
      if (!classified) errors.push({ field, reason: IMAGE_REASON });
      else images.push({ key, field, value: classified });
    }
    if (errors.length) return { ok: false, errors };
    return { ok: true, fields, images };
  }

  /** ajv's errors as `{field, reason}` under `fields.` (an image under the name it was given with) */
  private named(
    def: ContentKeyDefinition,
    errors: ErrorObject[] | null | undefined,
    imageOrigins: Map<string, string>,
  ): FieldProblem[] {
    const out: FieldProblem[] = [];
    const seen = new Set<string>();
    const push = (field: string, reason: string) => {
      const k = `${field}\u0000${reason}`;
      if (!seen.has(k)) {
        seen.add(k);
        out.push({ field, reason });
      }
    };
    const nameOf = (segments: string[]): string => {
      if (segments[0] === 'images' && segments.length > 1)
        return imageOrigins.get(segments[1]) ?? `fields.images.${segments.slice(1).join('.')}`;
      return ['fields', ...segments].join('.');
    };
    for (const e of errors ?? []) {
      const at = pointerSegments(e.instancePath);
      if (e.keyword === 'required') {
        const missing = String((e.params as { missingProperty: string }).missingProperty);
        // every required image is missing when `images` itself is
        if (at.length === 0 && missing === 'images') {
          for (const f of def.fields) if (f.type === 'image' && f.required) push(`fields.${f.key}`, 'is required');
        } else push(nameOf([...at, missing]), 'is required');
      } else if (e.keyword === 'additionalProperties') {
        const extra = String((e.params as { additionalProperty: string }).additionalProperty);
        push(nameOf([...at, extra]), `is not a field of ${def.contentKey}`);
      } else if (e.keyword === 'enum') {
        push(
          nameOf(at),
          `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`,
        );
      } else if (e.keyword === 'pattern' && def.fields.find((f) => f.key === at[0])?.type === 'color') {
        push(nameOf(at), 'must be a color as #rgb, #rgba, #rrggbb or #rrggbbaa');
      } else if (e.keyword === 'pattern') {
        push(nameOf(at), 'must not be blank');
      } else {
        push(nameOf(at), e.message ?? 'is invalid');
      }
    }
    return out;
  }

  /** The enum fields whose options come from a source: each key given must be one of the options now. */
  optionProblems(contentKey: string, fields: ContentFields, options: DynamicOptions): FieldProblem[] {
    const def = this.byKey.get(contentKey);
    const problems: FieldProblem[] = [];
    for (const f of def?.fields ?? []) {
      if (!f.optionsSource || fields[f.key] === undefined) continue;
      const allowed = new Set((options[f.optionsSource] ?? []).map((o) => o.key));
      const given = f.isMultiSelect ? (fields[f.key] as string[]) : [fields[f.key] as string];
      given.forEach((k, i) => {
        if (!allowed.has(k))
          problems.push({
            field: f.isMultiSelect ? `fields.${f.key}.${i}` : `fields.${f.key}`,
            reason: `'${k}' is not ${sourceNoun(f.optionsSource!)}`,
          });
      });
    }
    return problems;
  }

  /** the option sources a key's fields use */
  sourcesOf(contentKey: string): OptionSource[] {
    return [
      ...new Set((this.byKey.get(contentKey)?.fields ?? []).flatMap((f) => (f.optionsSource ? [f.optionsSource] : []))),
    ];
  }

  /** The keys a filter selects (a group, a key, or both: the key must be of the group). */
  select(filter: SchemaFilter): { ok: true; keys: ContentKeyDefinition[] } | { ok: false; errors: FieldProblem[] } {
    const errors: FieldProblem[] = [];
    if (filter.contentGroupKey !== undefined && !this.byGroup.has(filter.contentGroupKey)) {
      errors.push({ field: 'contentGroupKey', reason: `must be one of: ${this.groups.map((g) => g.key).join(', ')}` });
    }
    if (filter.contentKey !== undefined && !this.byKey.has(filter.contentKey)) {
      errors.push({ field: 'contentKey', reason: `must be one of: ${this.keys.map((k) => k.contentKey).join(', ')}` });
    }
    if (!errors.length && filter.contentGroupKey !== undefined && filter.contentKey !== undefined)
      errors.push(...this.keyProblems(filter.contentGroupKey, filter.contentKey));
    if (errors.length) return { ok: false, errors };
    return {
      ok: true,
      keys: this.keys.filter(
        (k) =>
          (filter.contentGroupKey === undefined || k.contentGroupKey === filter.contentGroupKey) &&
          (filter.contentKey === undefined || k.contentKey === filter.contentKey),
      ),
    };
  }
}

function sourceNoun(source: OptionSource): string {
  return source === 'benefitCategories'
    ? 'the id of an active benefit category'
    : 'a subcategory of an active benefit category';
}

/** `given` over `base`: a key given replaces, null removes; images merge key by key (null removes one). */
export function mergeFields(
  base: ContentFields,
  normalized: ContentFields,
  raw: Record<string, unknown>,
): ContentFields {
  const out: ContentFields = {};
  for (const [k, v] of Object.entries(base)) if (k !== 'images') out[k] = v;
  for (const [k, v] of Object.entries(raw)) if (k !== 'images' && v === null) delete out[k];
  const images: Record<string, string> = { ...(base.images ?? {}) };
  const nested = isPlainObject(raw.images) ? raw.images : {};
  for (const [k, v] of Object.entries(nested)) if (v === null) delete images[k];
  for (const [k, v] of Object.entries(raw)) if (k !== 'images' && v === null) delete images[k];
  for (const [k, v] of Object.entries(normalized)) if (k !== 'images') out[k] = v;
  Object.assign(images, normalized.images ?? {});
  if (Object.keys(images).length) out.images = images;
  return out;
}

// ---------------------------------------------------------------- getContentSchemas

export interface PublicField {
  key: string;
  /** where the value is in a content's `fields` (images: `images.<key>`) */
  path: string;
  title: string;
  type: string;
  required: boolean;
  order: number;
  description?: string;
  isMultiSelect?: boolean;
  options?: EnumOption[];
  maxLength?: number;
  format?: string;
  minimum?: number;
  maximum?: number;
  integer?: boolean;
  items?: { type: string; maxLength?: number };
  maxItems?: number;
  notAfter?: string;
}

export interface PublicSchema {
  contentKey: string;
  contentGroupKey: string;
  title: string;
  description?: string;
  order: number;
  fields: PublicField[];
}

/** A key's schema as getContentSchemas answers it: fields in order, enums as {key, value} lists (sources filled from `options`). */
export function publicSchema(def: ContentKeyDefinition, options: DynamicOptions): PublicSchema {
  const fields = [...def.fields]
    .sort((a, b) => a.order - b.order)
    .map((f): PublicField => {
      const { optionsSource, options: own, ...rest } = f;
      const out: PublicField = { ...rest, path: f.type === 'image' ? `images.${f.key}` : f.key };
      if (f.type === 'text' || f.type === 'richtext')
        out.maxLength = f.maxLength ?? (f.type === 'text' ? DEFAULT_TEXT_LENGTH : DEFAULT_RICHTEXT_LENGTH);
      if (f.type === 'enum') {
        out.isMultiSelect = f.isMultiSelect === true;
        out.options = (optionsSource ? (options[optionsSource] ?? []) : (own ?? [])).map((o) => ({
          key: o.key,
          value: o.value,
        }));
      }
      return out;
    });
  return {
    contentKey: def.contentKey,
    contentGroupKey: def.contentGroupKey,
    title: def.title,
    ...(def.description ? { description: def.description } : {}),
    order: def.order,
    fields,
  };
}

/** The catalogue of content-schemas.ts, compiled once. */
export const CATALOGUE = new ContentCatalogue(CONTENT_GROUPS, CONTENT_KEYS);
