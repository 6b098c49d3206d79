/**
 * listPartnerUsers (STATIC): from the streamed `partnerUsers` collection.
 * Filters status, partnerId (users belonging to that partner), search (full
 * name or email, case-insensitive); page from 1, limit 1-100 (default 20);
 * POST body or GET query, checked by its schema; ordered by name, then id. getRoles: the roles a
 * partner user may hold at a partner.
 */
import { listedDocument, pageInfo } from '../../_platform/paging';
import type { ListPartnerUsersInput } from '../../../schemas/PartnerUser/inputs';
import {
  buildListFilter,
  HIDDEN_COLUMNS,
  LIST_PARTNER_USERS,
  listQuery,
  PARTNER_USERS_COLLECTION,
  roleOptions,
} from '../rules';
import type { PartnerUserStaticCtx } from './common';

export async function listPartnerUsers(ctx: PartnerUserStaticCtx<ListPartnerUsersInput>) {
  const q = listQuery(ctx.request.body);
  const found = await ctx.documents.find<Record<string, unknown>>(PARTNER_USERS_COLLECTION, buildListFilter(q), {
    sort: LIST_PARTNER_USERS.sort,
    skip: (q.page - 1) * q.limit,
    limit: q.limit,
  });
  return {
    users: found.items.map((d) => listedDocument(d, HIDDEN_COLUMNS)),
    ...pageInfo(found.total, q.page, q.limit),
  };
}

export function getRoles() {
  return { roles: roleOptions() };
}
