/** listRoles, from the streamed `roles` collection: status, search (name, description), page, limit (1-100, default 20); by name. */
import type { ReadCtx } from '../../../runtime';
import { listedDocument } from '../../_platform/paging';
import type { ListRolesInput } from '../../../schemas/RoleManager/inputs';
import { buildListFilter, LIST_ROLES, listQuery } from '../rules';
import type { RoleManagerClassState } from '../types';

export async function listRoles(ctx: ReadCtx<RoleManagerClassState, ListRolesInput>) {
  const q = listQuery(ctx.request.body);
  const found = await ctx.documents.find<Record<string, unknown>>('roles', buildListFilter(q), {
    sort: LIST_ROLES.sort,
    skip: (q.page - 1) * q.limit,
    limit: q.limit,
  });
  const roles = found.items.map((doc) => listedDocument(doc, ['nameLower']));
  return { roles, totalCount: found.total, page: q.page, limit: q.limit, totalPages: Math.ceil(found.total / q.limit) };
}
