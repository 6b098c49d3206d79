/**
 * init (event partner_create): a new partner, `inactive` until its creation is
 * approved (the rule moves it to `active`); the brand logo, when given, is
 * stored as a public file first. Answers 201.
 */
import type { InitInput } from '../../../schemas/Partner/inputs';
import { actorFromIdentity } from '../../_platform/actor';
import { requestGatedChange } from '../../_platform/gated-change';
import { openRecord } from '../../_platform/records';
import { partnerError } from '../errors';
import { buildPartner, contractDates, partnerIdProblem, socialMediaProblems } from '../rules';
import { PARTNER_EVENTS, type PartnerState } from '../types';
import { CALLBACK, logPartner, now, partnerAnswer, type PartnerCtx } from './common';
import { storeLogo } from './logo';
import { problemsText } from '../../_platform/paging';

export async function createPartner(ctx: PartnerCtx<InitInput>) {
  const body = ctx.request.body;
  const id = ctx.instanceId!;
  const idProblem = partnerIdProblem(id);
  if (idProblem)
    throw partnerError('PARTNER_INVALID_ID', `Partner id '${id}' ${idProblem}`, {
      errors: [{ field: 'instanceId', reason: idProblem }],
    });
  const dates = contractDates(body.contractStartDate, body.contractEndDate);
  if (!dates.ok)
    throw partnerError('PARTNER_INVALID_CONTRACT_DATES', 'contractStartDate must be before contractEndDate', {
      errors: dates.problems,
    });
  const social = socialMediaProblems(body.socialMediaAccounts);
  if (social.length)
    throw partnerError('INVALID_INPUT', `Invalid social media accounts: ${problemsText(social)}`, { errors: social });

  const brandLogoPath = body.brandLogo ? await storeLogo(ctx, id, body.brandLogo, 'brandLogo') : undefined;
  const partner = buildPartner({
    id,
    body,
    dates,
    brandLogoPath,
    createdBy: actorFromIdentity(ctx.identity),
    now: now(),
  });

  const event = PARTNER_EVENTS.create;
  const change = await requestGatedChange(ctx, {
    event,
    entityId: id,
    oldEntity: null,
    newEntity: partner,
    approveCallback: CALLBACK,
    rejectCallback: CALLBACK,
    pendingApprovalId: null,
    // a new partner waits for nothing yet
    whilePending: () => partnerError('PARTNER_APPROVAL_PENDING', `Partner ${id} waits for an approval`),
  });
  const state: PartnerState = {
    partner: change.applied ? change.entity : partner,
    locations: openRecord(null),
    documents: [],
    pendingApproval: change.applied
      ? null
      : { id: change.approvalId, event, requestedStatus: change.newStatus ?? 'active' },
    venueApprovals: openRecord(null),
    lastReview: null,
  };
  Object.assign(ctx.state.private, state);
  const approvalId = change.applied ? change.approvalRecord.id : change.approvalId;
  await logPartner(ctx, null, state.partner, {
    event,
    approvalId,
    ...(change.applied ? {} : { approvalStatus: 'pending' }),
  });
  ctx.response.status = 201;
  return partnerAnswer(ctx, change);
}
