/** getUser (READ): the user, the approval it waits for and the last review. */
import type { PartnerUserReadCtx } from './common';

export function getUser(ctx: PartnerUserReadCtx) {
  const s = ctx.state.private;
  return { user: s.user, pendingApproval: s.pendingApproval ?? null, lastReview: s.lastReview ?? null };
}
