/** listMembers (from the document store) and streamMember (re-projects the member). */
import type { Ctx } from '../../../runtime';
import { listingInput } from '../../_platform/paging';
import { invalidQuery, listMembersFilter, MEMBERS_COLLECTION, pageAnswer, parseListMembersQuery } from '../listing';
import { memberState } from '../member-state';
import type { MemberPrivateState } from '../types';
import { now, reachable } from './common';

export async function listMembers(ctx: Ctx) {
  const parsed = parseListMembersQuery(listingInput(ctx));
  if (!parsed.ok) throw invalidQuery(parsed.errors);
  const q = parsed.query;
  // a company user's listing is limited to its company by the platform (the collection's tenantField)
  const filter = listMembersFilter(q);
  const { items, total } = await ctx.documents.find(MEMBERS_COLLECTION, filter, { sort: { createdAt: -1, _id: 1 }, skip: q.skip, limit: q.limit });
  const members = items.map(({ _id, _v, _instance, _class, emailLower, ...doc }) => doc);
  return pageAnswer('members', members, total, q);
}

export function streamMember(ctx: Ctx) {
  const p = reachable(ctx);
  const state = memberState(ctx) as MemberPrivateState & { streamedAt?: string };
  state.streamedAt = now();
  return { streamed: true, id: p.id, collection: MEMBERS_COLLECTION };
}
