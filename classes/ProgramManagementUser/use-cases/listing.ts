/**
 * listUsers (STATIC): from the streamed `programManagementUsers` collection.
 * Filters status, type, companyId, loginMethod, search (name or email,
 * case-insensitive); page from 1, limit 1-100 (default 20); POST body or GET
 * query; ordered by name, then id. A company user sees its company's users
 * only (the collection's tenantField).
 */
import { listedDocument, listingInput, pageInfo, problemsText } from '../../_platform/paging';
import { userError } from '../errors';
import { buildListFilter, LIST_USERS, parseListQuery, USERS_COLLECTION } from '../rules';
import type { ListUsersInput } from '../types';
import type { UserStaticCtx } from './common';

export async function listUsers(ctx: UserStaticCtx<ListUsersInput>) {
  const parsed = parseListQuery(listingInput(ctx));
  if (!parsed.ok) {
    throw userError('PM_USER_INVALID_QUERY', `Invalid listing: ${problemsText(parsed.errors)}`, {
      errors: parsed.errors,
    });
  }
  const q = parsed.query;
  const found = await ctx.documents.find<Record<string, unknown>>(USERS_COLLECTION, buildListFilter(q), {
    sort: LIST_USERS.sort,
    skip: (q.page - 1) * q.limit,
    limit: q.limit,
  });
  return { users: found.items.map((d) => listedDocument(d, ['search'])), ...pageInfo(found.total, q.page, q.limit) };
}
