/**
 * The partner's updates, each its own workflow event (spec 6):
 * updatePartnerDetails (update_partner_details), updatePartnerBrandLogo
 * (update_partner_brand_logo), updatePartnerContact (update_partner_contact),
 * updatePartnerContract (update_partner_contract) and updatePartnerStatus
 * (update_partner_status, optional reason). Each is refused while the partner
 * waits for an approval, and an update that changes nothing is 400 17006.
 */
import type {
  UpdatePartnerBrandLogoInput,
  UpdatePartnerContactInput,
  UpdatePartnerContractInput,
  UpdatePartnerDetailsInput,
  UpdatePartnerStatusInput,
} from '../../../schemas/Partner/inputs';
import { partnerError } from '../errors';
import {
  applyContract,
  applyDetails,
  partnerStatusMove,
  sameEntity,
  socialMediaProblems,
  withLogo,
  withStatus,
} from '../rules';
import { PARTNER_EVENTS, type PartnerRecord } from '../types';
import { guardPartner, now, partnerAnswer, requestPartnerChange, st, type PartnerCtx } from './common';
import { storeLogo } from './logo';
import { problemsText } from '../../_platform/paging';

function unchanged(partner: PartnerRecord, requested: PartnerRecord): void {
  if (sameEntity(partner, requested))
    throw partnerError('PARTNER_NO_CHANGES', `The update changes nothing on partner ${partner.id}`);
}

export async function updatePartnerDetails(ctx: PartnerCtx<UpdatePartnerDetailsInput>) {
  guardPartner(ctx);
  const body = ctx.request.body;
  const social = socialMediaProblems(body.socialMediaAccounts);
  if (social.length)
    throw partnerError('INVALID_INPUT', `Invalid social media accounts: ${problemsText(social)}`, { errors: social });
  const partner = st(ctx).partner;
  const requested = applyDetails(partner, body, now());
  unchanged(partner, requested);
  return partnerAnswer(ctx, await requestPartnerChange(ctx, PARTNER_EVENTS.details, requested));
}

export async function updatePartnerContact(ctx: PartnerCtx<UpdatePartnerContactInput>) {
  guardPartner(ctx);
  const { name, email, phone } = ctx.request.body.primaryContact;
  const partner = st(ctx).partner;
  const requested: PartnerRecord = { ...partner, primaryContact: { name, email, phone }, updatedAt: now() };
  unchanged(partner, requested);
  return partnerAnswer(ctx, await requestPartnerChange(ctx, PARTNER_EVENTS.contact, requested));
}

export async function updatePartnerContract(ctx: PartnerCtx<UpdatePartnerContractInput>) {
  guardPartner(ctx);
  const partner = st(ctx).partner;
  const next = applyContract(partner, ctx.request.body, now());
  if (!next.ok)
    throw partnerError('PARTNER_INVALID_CONTRACT_DATES', 'contractStartDate must be before contractEndDate', {
      errors: next.problems,
    });
  unchanged(partner, next.partner);
  return partnerAnswer(ctx, await requestPartnerChange(ctx, PARTNER_EVENTS.contract, next.partner));
}

/** A new logo (stored as a public file first), or null to remove the partner's. */
export async function updatePartnerBrandLogo(ctx: PartnerCtx<UpdatePartnerBrandLogoInput>) {
  guardPartner(ctx);
  const partner = st(ctx).partner;
  const logo = ctx.request.body.brandLogo;
  if (!logo && partner.brandLogoPath === undefined)
    throw partnerError('PARTNER_NO_CHANGES', `Partner ${partner.id} has no logo to remove`);
  const path = logo ? await storeLogo(ctx, partner.id, logo, 'brandLogo') : undefined;
  return partnerAnswer(ctx, await requestPartnerChange(ctx, PARTNER_EVENTS.brandLogo, withLogo(partner, path, now())));
}

export async function updatePartnerStatus(ctx: PartnerCtx<UpdatePartnerStatusInput>) {
  const { status, statusReason } = ctx.request.body;
  const partner = st(ctx).partner;
  const move = partnerStatusMove(partner.status, status);
  if (!move.ok)
    throw partnerError(move.error, `Partner ${partner.id}: ${move.message}`, {
      errors: [{ field: 'status', reason: move.message }],
    });
  guardPartner(ctx);
  const requested = withStatus(partner, move.to, statusReason, now());
  const change = await requestPartnerChange(ctx, PARTNER_EVENTS.status, requested, {
    fromStatus: partner.status,
    toStatus: move.to,
  });
  return partnerAnswer(ctx, change);
}
