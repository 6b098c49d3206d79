/**
 * Content metadata (spec 5: no authentication): getContentSchemas,
 * listContentGroups, getContentGroup. The groups and schemas are data of the
 * code (content-schemas.ts), not state, so these are STATIC methods: they
 * answer before the singleton exists and are called with or without the
 * instance id `default`. The homepage section's category and subcategory
 * options are asked from the benefit catalogue on each call that includes it.
 */
import type { StaticCtx } from '../../../runtime';
import { listingInput, unknownKeys, type FieldProblem } from '../../_platform/paging';
import { contentError } from '../errors';
import { CATALOGUE, publicSchema, type DynamicOptions } from '../schema-rules';
import type { GroupInput, SchemaFilterInput } from '../types';
import { activeCategoryOptions } from './categories';
import { fieldError } from './common';

function text(raw: Record<string, unknown>, k: string, errors: FieldProblem[]): string | undefined {
  const v = raw[k];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string' && v.length <= 100) return v;
  errors.push({ field: k, reason: 'must be a string of at most 100 characters' });
  return undefined;
}

export async function getContentSchemas(ctx: StaticCtx<SchemaFilterInput>) {
  const raw = listingInput(ctx);
  const errors: FieldProblem[] = [];
  unknownKeys(raw, ['contentGroupKey', 'contentKey'], errors);
  const filter = { contentGroupKey: text(raw, 'contentGroupKey', errors), contentKey: text(raw, 'contentKey', errors) };
  if (errors.length) throw fieldError('CONTENT_INVALID_QUERY', errors, 'Invalid filter');
  const selected = CATALOGUE.select(filter);
  if (!selected.ok) throw fieldError('CONTENT_INVALID_QUERY', selected.errors, 'Invalid filter');
  const needsOptions = selected.keys.some((k) => CATALOGUE.sourcesOf(k.contentKey).length > 0);
  const options: DynamicOptions = needsOptions ? await activeCategoryOptions(ctx) : {};
  return { schemas: selected.keys.map((k) => publicSchema(k, options)) };
}

function groupView(key: string) {
  const g = CATALOGUE.group(key)!;
  return {
    key: g.key,
    title: g.title,
    ...(g.description ? { description: g.description } : {}),
    order: g.order,
    contentKeys: CATALOGUE.keysOf(g.key).map((k) => ({ contentKey: k.contentKey, title: k.title, order: k.order })),
  };
}

export function listContentGroups(ctx: StaticCtx) {
  const errors: FieldProblem[] = [];
  unknownKeys(listingInput(ctx), [], errors);
  if (errors.length) throw fieldError('CONTENT_INVALID_QUERY', errors, 'Invalid filter');
  return { groups: CATALOGUE.groups.map((g) => groupView(g.key)) };
}

export function getContentGroup(ctx: StaticCtx<GroupInput>) {
  const raw = listingInput(ctx);
  const errors: FieldProblem[] = [];
  unknownKeys(raw, ['contentGroupKey'], errors);
  const key = text(raw, 'contentGroupKey', errors);
  if (!key && !errors.length)
    errors.push({ field: 'contentGroupKey', reason: 'is required (in the body or the query)' });
  if (errors.length) throw fieldError('CONTENT_INVALID_QUERY', errors, 'Invalid input');
  if (!CATALOGUE.group(key!))
    throw contentError('CONTENT_GROUP_NOT_FOUND', `No content group '${key}'`, {
      contentGroupKey: key,
      groups: CATALOGUE.groups.map((g) => g.key),
    });
  return { group: groupView(key!) };
}
