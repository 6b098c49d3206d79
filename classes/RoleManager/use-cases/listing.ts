/** listRoles, from the streamed `roles` collection: status, search (name, description), page, limit (1-100, default 20); by name. */
import type { ReadCtx } from '../../../runtime';
import { listedDocument, listingInput, problemsText } from '../../_platform/paging';
import { buildListFilter, LIST_ROLES, parseListQuery } from '../rules';
import { roleError } from '../errors';

export async function listRoles(ctx: ReadCtx) {
  const parsed = parseListQuery(listingInput(ctx));
  if (!parsed.ok) {
    throw roleError('ROLE_INVALID_QUERY', `Invalid listing: ${problemsText(parsed.errors)}`, { errors: parsed.errors });
  }
  const q = parsed.query;
  const found = await ctx.documents.find<Record<string, unknown>>('roles', buildListFilter(q), {
    sort: LIST_ROLES.sort,
    skip: (q.page - 1) * q.limit,
    limit: q.limit,
  });
  const roles = found.items.map((doc) => listedDocument(doc, ['nameLower']));
  return { roles, totalCount: found.total, page: q.page, limit: q.limit, totalPages: Math.ceil(found.total / q.limit) };
}
