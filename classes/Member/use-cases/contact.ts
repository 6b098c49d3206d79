/** Spec 4.5 contact section: getMemberContact, updateMemberContact (member_update). */
import type { Ctx } from '../../../runtime';
import type { MemberProfile } from '../types';
import { MEMBER_UPDATE_EVENT, now, reachable } from './common';
import { changeProfile } from './profile-change';

export function getMemberContact(ctx: Ctx) {
  const p = reachable(ctx);
  return { id: p.id, email: p.email, phone: p.phone, address: p.address, permissions: p.permissions };
}

export async function updateMemberContact(ctx: Ctx) {
  const p = reachable(ctx);
  const body = ctx.request.body as Partial<Pick<MemberProfile, 'phone' | 'address' | 'permissions'>>;
  const requested: MemberProfile = {
    ...p,
    ...(body.phone !== undefined ? { phone: body.phone } : {}),
    ...(body.address !== undefined ? { address: body.address } : {}),
    ...(body.permissions !== undefined ? { permissions: { ...p.permissions, ...body.permissions } } : {}),
    updatedAt: now(),
  };
  return changeProfile(ctx, requested, MEMBER_UPDATE_EVENT, { section: 'contact' });
}
