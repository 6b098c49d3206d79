/** listMembers (from the document store) and streamMember (re-projects the member). */
import type { ListMembersInput } from '../../../schemas/Member/inputs';
import { LIST_MEMBERS, listMembersFilter, listMembersQuery, MEMBERS_COLLECTION, pageAnswer } from '../listing-rules';
import { memberState, type MemberCtx, type MemberStaticCtx } from '../member-state';
import { now, reachable } from './common';

export async function listMembers(ctx: MemberStaticCtx<ListMembersInput>) {
  const q = listMembersQuery(ctx.request.body);
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
