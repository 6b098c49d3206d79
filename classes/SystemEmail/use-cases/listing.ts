/**
 * listSystemEmailTemplates (STATIC): from the streamed `systemEmailTemplates`
 * collection. Filters status, type, search (template id or title,
 * case-insensitive); page from 1, limit 1-100 (default 10); POST body or GET
 * query. Ordered by template id.
 */
import type { Ctx } from '../../../runtime';
import { listingInput, pageInfo, problemsText } from '../../_platform/paging';
import { systemEmailError } from '../errors';
import { buildListFilter, LIST_SYSTEM_EMAIL_TEMPLATES, parseListQuery, TEMPLATES_COLLECTION } from '../rules';

/** A STATIC's context with no instance state (as listTiers): listingInput reads its body and query. */
export async function listSystemEmailTemplates(ctx: Ctx) {
  const parsed = parseListQuery(listingInput(ctx));
  if (!parsed.ok) {
    throw systemEmailError('SYSTEM_EMAIL_INVALID_QUERY', `Invalid listing: ${problemsText(parsed.errors)}`, {
      errors: parsed.errors,
    });
  }
  const q = parsed.query;
  const found = await ctx.documents.find<Record<string, unknown>>(TEMPLATES_COLLECTION, buildListFilter(q), {
    sort: LIST_SYSTEM_EMAIL_TEMPLATES.sort,
    skip: (q.page - 1) * q.limit,
    limit: q.limit,
  });
  const items = found.items.map(({ _id, _v, _instance, _class, search: _search, ...doc }) => doc);
  return { items, ...pageInfo(found.total, q.page, q.limit) };
}
