/** The partner's READs: details (the whole partner), contact and contract. */
import type { PartnerReadCtx } from './common';

/** The partner (spec 2.5) and the approval it waits for. */
export function getPartnerDetails(ctx: PartnerReadCtx) {
  const s = ctx.state.private;
  return { partner: s.partner, pendingApproval: s.pendingApproval };
}

export function getPartnerContact(ctx: PartnerReadCtx) {
  const p = ctx.state.private.partner;
  return { partnerId: p.id, primaryContact: p.primaryContact };
}

export function getPartnerContract(ctx: PartnerReadCtx) {
  const p = ctx.state.private.partner;
  return {
    partnerId: p.id,
    contractId: p.contractId,
    contractStartDate: p.contractStartDate,
    contractEndDate: p.contractEndDate,
  };
}
