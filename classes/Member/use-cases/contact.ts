/** Spec 4.5 contact section: getMemberContact, updateMemberContact (member_update). */
import type { MemberCtx, MemberReadCtx } from '../member-state';
import type { MemberProfile } from '../types';
import { MEMBER_UPDATE_EVENT, now, reachable } from './common';
import { changeProfile } from './profile-change';
import type { UpdateMemberContactInput } from '../../../schemas/Member/inputs';

export function getMemberContact(ctx: MemberReadCtx) {
  const p = reachable(ctx);
  return { id: p.id, email: p.email, phone: p.phone, address: p.address, permissions: p.permissions };
}

export async function updateMemberContact(ctx: MemberCtx<UpdateMemberContactInput>) {
  const p = reachable(ctx);
  const body = ctx.request.body;
  const requested: MemberProfile = {
    ...p,
    ...(body.phone !== undefined ? { phone: body.phone } : {}),
    ...(body.address !== undefined ? { address: body.address } : {}),
    ...(body.permissions !== undefined ? { permissions: { ...p.permissions, ...body.permissions } } : {}),
    updatedAt: now(),
  };
  return changeProfile(ctx, requested, MEMBER_UPDATE_EVENT, { section: 'contact' });
}
