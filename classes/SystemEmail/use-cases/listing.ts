/**
 * listSystemEmailTemplates (STATIC): from the streamed `systemEmailTemplates`
 * collection. Filters status, type, search (template id or title,
 * case-insensitive); page from 1, limit 1-100 (default 10); POST body or GET
 * query, checked by the schema. Ordered by template id.
 */
import type { StaticCtx } from '../../../runtime';
import type { ListSystemEmailTemplatesInput } from '../../../schemas/SystemEmail/inputs';
import { listedDocument, pageInfo } from '../../_platform/paging';
import { buildListFilter, LIST_SYSTEM_EMAIL_TEMPLATES, listQuery, TEMPLATES_COLLECTION } from '../rules';

/** The input is validated by the schema (a bad one is 400 11009, SystemEmail.class.ts). */
export async function listSystemEmailTemplates(ctx: StaticCtx<ListSystemEmailTemplatesInput>) {
  const q = listQuery(ctx.request.body);
  const found = await ctx.documents.find<Record<string, unknown>>(TEMPLATES_COLLECTION, buildListFilter(q), {
    sort: LIST_SYSTEM_EMAIL_TEMPLATES.sort,
    skip: (q.page - 1) * q.limit,
    limit: q.limit,
  });
  // the store's fields (with the state version `_sv`) and the search column are not the template's
  const items = found.items.map((doc) => listedDocument(doc, ['search']));
  return { items, ...pageInfo(found.total, q.page, q.limit) };
}
