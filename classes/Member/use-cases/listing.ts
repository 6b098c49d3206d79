/** listMembers (from the document store) and streamMember (re-projects the member). */
import { listingInput } from '../../_platform/paging';
import {
  invalidQuery,
  LIST_MEMBERS,
  listMembersFilter,
  MEMBERS_COLLECTION,
  pageAnswer,
  parseListMembersQuery,
} from '../listing-rules';
import { memberState, type MemberCtx, type MemberStaticCtx } from '../member-state';
import { now, reachable } from './common';

/** listMembers takes its filters from the query and the body together; listing.ts checks them */
export async function listMembers(ctx: MemberStaticCtx<Record<string, unknown>>) {
  const parsed = parseListMembersQuery(listingInput(ctx));
  if (!parsed.ok) throw invalidQuery(parsed.errors);
  const q = parsed.query;
  // a company user's listing is limited to its company by the platform (the collection's tenantField)
  const filter = listMembersFilter(q);
  const { items, total } = await ctx.documents.find(MEMBERS_COLLECTION, filter, {
    sort: LIST_MEMBERS.sort,
    skip: q.skip,
    limit: q.limit,
  });
  const members = items.map(({ _id, _v, _instance, _class, emailLower: _emailLower, ...doc }) => doc);
  return pageAnswer('members', members, total, q);
}

export function streamMember(ctx: MemberCtx) {
  const p = reachable(ctx);
  memberState(ctx).streamedAt = now();
  return { streamed: true, id: p.id, collection: MEMBERS_COLLECTION };
}
