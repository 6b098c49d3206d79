/** Spec 3.1 "any → requested status" (not the four system-only ones): updateMemberStatus (member_status_update). */
import { fieldError } from '../errors';
import type { MemberCtx } from '../member-state';
import { nextMemberStatus } from '../status-machine';
import type { MemberProfile } from '../types';
import { MEMBER_STATUS_EVENT, now, reachable } from './common';
import { changeProfile } from './profile-change';
import type { UpdateMemberStatusInput } from '../../../schemas/Member/inputs';

export async function updateMemberStatus(ctx: MemberCtx<UpdateMemberStatusInput>) {
  const p = reachable(ctx);
  const { status, reason } = ctx.request.body;
  const r = nextMemberStatus(p.status, { type: 'updateMemberStatus', target: status });
  if (!r.ok) throw fieldError(r.error, 'status', r.message, { status });
  const requested: MemberProfile = { ...p, status: r.to, statusReason: reason ?? null, updatedAt: now() };
  return changeProfile(ctx, requested, MEMBER_STATUS_EVENT, { requestedStatus: r.to });
}
