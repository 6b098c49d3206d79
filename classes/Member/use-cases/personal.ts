/** Spec 4.5 personal section: getMemberPersonal, updateMemberPersonal (member_update). */
import { fieldError } from '../errors';
import { memberIdByLookup, memberState, type MemberCtx, type MemberReadCtx } from '../member-state';
import type { MemberProfile } from '../types';
import { checkMemberTypes, MEMBER_UPDATE_EVENT, now, reachable, requireCompany } from './common';
import { downloadLink } from './files';
import { changeProfile } from './profile-change';
import type { UpdateMemberPersonalInput } from '../../../schemas/Member/inputs';

export async function getMemberPersonal(ctx: MemberReadCtx) {
  const p = reachable(ctx);
  const state = memberState(ctx);
  const photo = p.idPhoto ? { filename: p.idPhoto, ...(await downloadLink(ctx, p.id, p.idPhoto)) } : null;
  let pendingApproval = null;
  if (state.pendingPhoto) {
    const pp = state.pendingPhoto;
    pendingApproval = {
      approvalId: pp.approvalId,
      uploadedAt: pp.uploadedAt,
      oldPhoto: pp.previousIdPhoto
        ? { filename: pp.previousIdPhoto, ...(await downloadLink(ctx, p.id, pp.previousIdPhoto)) }
        : null,
      newPhoto: { filename: pp.idPhoto, ...(await downloadLink(ctx, p.id, pp.idPhoto)) },
    };
  }
  return {
    id: p.id,
    name: p.name,
    middleName: p.middleName,
    surname: p.surname,
    staffId: p.staffId,
    previousStaffIds: p.previousStaffIds ?? [],
    memberType: p.memberType,
    memberSubType: p.memberSubType,
    status: p.status,
    idPhoto: photo,
    pendingApproval,
    pendingChange: state.pendingChange ?? null,
  };
}

export async function updateMemberPersonal(ctx: MemberCtx<UpdateMemberPersonalInput>) {
  const p = reachable(ctx);
  const body = ctx.request.body;
  const requested: MemberProfile = { ...p, ...body, updatedAt: now() };
  if (body.memberType !== undefined || body.memberSubType !== undefined) {
    const company = await requireCompany(ctx, p.company.id);
    await checkMemberTypes(
      ctx,
      company,
      body.memberType !== undefined && body.memberType !== p.memberType ? requested.memberType : null,
      body.memberSubType !== undefined && body.memberSubType !== p.memberSubType ? requested.memberSubType : null,
    );
  }
  if (body.staffId && body.staffId !== p.staffId) {
    const owner = await memberIdByLookup(ctx, 'staffId', body.staffId);
    if (owner && owner !== p.id)
      throw fieldError('STAFF_ID_TAKEN', 'staffId', `Staff id '${body.staffId}' belongs to another member`);
    requested.previousStaffIds =
      p.staffId && !(p.previousStaffIds ?? []).includes(p.staffId)
        ? [...(p.previousStaffIds ?? []), p.staffId]
        : (p.previousStaffIds ?? []);
  }
  return changeProfile(ctx, requested, MEMBER_UPDATE_EVENT, { section: 'personal' });
}
