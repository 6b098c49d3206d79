/**
 * listPartnerUsers (STATIC): from the streamed `partnerUsers` collection.
 * Filters status, partnerId (users belonging to that partner), search (full
 * name or email, case-insensitive); page from 1, limit 1-100 (default 20);
 * POST body or GET query; ordered by name, then id. getRoles: the roles a
 * partner user may hold at a partner.
 */
import { listedDocument, listingInput, pageInfo, problemsText } from '../../_platform/paging';
import { partnerUserError } from '../errors';
import {
  buildListFilter,
  HIDDEN_COLUMNS,
  LIST_PARTNER_USERS,
  parseListQuery,
  PARTNER_USERS_COLLECTION,
  roleOptions,
} from '../rules';
import type { ListPartnerUsersInput } from '../types';
import type { PartnerUserStaticCtx } from './common';

export async function listPartnerUsers(ctx: PartnerUserStaticCtx<ListPartnerUsersInput>) {
  const parsed = parseListQuery(listingInput(ctx));
  if (!parsed.ok) {
    throw partnerUserError('PARTNER_USER_INVALID_QUERY', `Invalid listing: ${problemsText(parsed.errors)}`, {
      errors: parsed.errors,
    });
  }
  const q = parsed.query;
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
