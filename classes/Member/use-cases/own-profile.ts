/** The signed-in member's own profile (enduser only). */
import { memberState, type MemberReadCtx } from '../member-state';
import { reachable } from './common';
import { downloadLink } from './files';

export async function getMemberProfile(ctx: MemberReadCtx) {
  const p = reachable(ctx);
  const state = memberState(ctx);
  const pp = state.pendingPhoto;
  return {
    id: p.id,
    name: p.name,
    middleName: p.middleName,
    surname: p.surname,
    email: p.email,
    phone: p.phone,
    company: p.company,
    status: p.status,
    idPhoto: p.idPhoto ? { filename: p.idPhoto, ...(await downloadLink(ctx, p.id, p.idPhoto)) } : null,
    hasWaitingApproval: Boolean(pp || state.pendingChange),
    approval: pp
      ? {
          approvalId: pp.approvalId,
          uploadedAt: pp.uploadedAt,
          newPhoto: { filename: pp.idPhoto, ...(await downloadLink(ctx, p.id, pp.idPhoto)) },
          oldPhoto: pp.previousIdPhoto
            ? { filename: pp.previousIdPhoto, ...(await downloadLink(ctx, p.id, pp.previousIdPhoto)) }
            : null,
        }
      : null,
  };
}
