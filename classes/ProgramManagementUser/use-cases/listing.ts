/**
 * listUsers (STATIC): from the streamed `programManagementUsers` collection.
 * Filters status, type, companyId, loginMethod, search (name or email,
 * case-insensitive); page from 1, limit 1-100 (default 20); POST body or GET
 * query, checked by its schema; ordered by name, then id. A company user sees
 * its company's users only (the collection's tenantField).
 */
import { listedDocument, pageInfo } from '../../_platform/paging';
import type { ListUsersInput } from '../../../schemas/ProgramManagementUser/inputs';
import { buildListFilter, LIST_USERS, listQuery, USERS_COLLECTION } from '../rules';
import type { UserStaticCtx } from './common';

export async function listUsers(ctx: UserStaticCtx<ListUsersInput>) {
  const q = listQuery(ctx.request.body);
  const found = await ctx.documents.find<Record<string, unknown>>(USERS_COLLECTION, buildListFilter(q), {
    sort: LIST_USERS.sort,
    skip: (q.page - 1) * q.limit,
    limit: q.limit,
  });
  return { users: found.items.map((d) => listedDocument(d, ['search'])), ...pageInfo(found.total, q.page, q.limit) };
}
