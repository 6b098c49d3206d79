/**
 * Content metadata (spec 5: no authentication): getContentSchemas,
 * listContentGroups, getContentGroup. The groups and schemas are data of the
 * code (content-schemas.ts), not state, so these are STATIC methods: they
 * answer before the singleton exists and are called with or without the
 * instance id `default`. The homepage section's category and subcategory
 * options are asked from the benefit catalogue on each call that includes it.
 */
import type { StaticCtx } from '../../../runtime';
import type {
  GetContentGroupInput,
  GetContentSchemasInput,
  ListContentGroupsInput,
} from '../../../schemas/ContentManager/inputs';
import { contentError } from '../errors';
import { CATALOGUE, publicSchema, type DynamicOptions } from '../schema-rules';
import { activeCategoryOptions } from './categories';
import { fieldError } from './common';

export async function getContentSchemas(ctx: StaticCtx<GetContentSchemasInput>) {
  const { contentGroupKey, contentKey } = ctx.request.body;
  // an empty value is no filter, in a body as in a query
  const selected = CATALOGUE.select({
    contentGroupKey: contentGroupKey || undefined,
    contentKey: contentKey || undefined,
  });
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

/** takes no input (its schema refuses any field) */
export function listContentGroups(_ctx: StaticCtx<ListContentGroupsInput>) {
  return { groups: CATALOGUE.groups.map((g) => groupView(g.key)) };
}

/** {contentGroupKey} as a GET query or a POST body (its schema requires it: 400 18009 without one). */
export function getContentGroup(ctx: StaticCtx<GetContentGroupInput>) {
  const key = ctx.request.body.contentGroupKey;
  if (!CATALOGUE.group(key))
    throw contentError('CONTENT_GROUP_NOT_FOUND', `No content group '${key}'`, {
      contentGroupKey: key,
      groups: CATALOGUE.groups.map((g) => g.key),
    });
  return { group: groupView(key) };
}
