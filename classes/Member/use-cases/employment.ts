/** Spec 4.5 employment section: getMemberEmployment, updateMemberEmployment (member_update; the company is HR's). */
import { fieldError } from '../errors';
import type { MemberCtx, MemberReadCtx } from '../member-state';
import { MEMBER_UPDATE_EVENT, now, reachable } from './common';
import { changeProfile } from './profile-change';
import type { UpdateMemberEmploymentInput } from '../../../schemas/Member/inputs';

export function getMemberEmployment(ctx: MemberReadCtx) {
  const p = reachable(ctx);
  return {
    id: p.id,
    staffId: p.staffId,
    company: p.company,
    grade: p.grade,
    memberType: p.memberType,
    coreGrade: p.coreGrade ?? null,
    lastDayOfService: p.lastDayOfService ?? null,
    isCabinCrew: p.isCabinCrew ?? null,
  };
}

export async function updateMemberEmployment(ctx: MemberCtx<UpdateMemberEmploymentInput>) {
  const p = reachable(ctx);
  const body = ctx.request.body;
  if (body.company && body.company.id !== p.company.id) {
    throw fieldError(
      'COMPANY_CHANGE_NOT_ALLOWED',
      'company.id',
      "A member's company cannot be changed (only the HR system reassigns it)",
    );
  }
  return changeProfile(
    ctx,
    { ...p, ...(body.grade !== undefined ? { grade: body.grade } : {}), updatedAt: now() },
    MEMBER_UPDATE_EVENT,
    { section: 'employment' },
  );
}
