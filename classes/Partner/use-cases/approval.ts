/**
 * approvePartner, the approval callback (approve and reject) of every partner
 * and venue event, settled by the platform's settleGatedChange. The event
 * says whose approval it is: a `venue_*` event settles the venue named by the
 * record's entityId, any other the partner. Approve applies the patch; reject
 * changes nothing (a partner or venue whose creation is rejected stays
 * `inactive`). An approved change that no longer fits is not applied: the
 * entity stops waiting and the answer says why (17012). A callback of an
 * approval nothing waits for is 409 17011; the last one settled again (a
 * redelivery) changes nothing.
 */
import type { DeepReadonly } from '../../../runtime';
import { settleGatedChange, type SettledChange } from '../../_platform/gated-change';
import { ownEntry } from '../../_platform/records';
import type { ApprovalCallbackBody } from '../../_platform/workflow';
import { PartnerErrors, partnerError } from '../errors';
import { venueView } from '../rules';
import { VENUE_EVENTS, type LastReview, type PartnerRecord, type PendingApproval, type Venue } from '../types';
import { logPartner, logVenue, now, st, type PartnerCtx } from './common';

const VENUE_EVENT_NAMES: readonly string[] = Object.values(VENUE_EVENTS);

function review(body: ApprovalCallbackBody, outcome: LastReview['outcome'], reason?: string): LastReview {
  return {
    approvalId: body.approvalId,
    event: String(body.event),
    entityId: body.entityId,
    action: body.action,
    outcome,
    ...(reason ? { reason } : {}),
    by: body.reviewedBy?.id ?? null,
    at: now(),
  };
}

export async function approvePartner(ctx: PartnerCtx<ApprovalCallbackBody>) {
  const body = ctx.request.body;
  const s = st(ctx);
  const isVenue = VENUE_EVENT_NAMES.includes(String(body.event));
  const mismatch = (waiting: string | null) =>
    partnerError(
      'PARTNER_APPROVAL_MISMATCH',
      `Approval ${body.approvalId} is not one that ${isVenue ? `venue ${body.entityId}` : `partner ${s.partner.id}`} waits for`,
      {
        pendingApprovalId: waiting,
      },
    );
  const info = {
    event: String(body.event),
    approvalId: body.approvalId,
    action: body.action,
    reviewedBy: body.reviewedBy?.id ?? null,
  };

  /** the outcome other than an approved patch: stop waiting, remember the review */
  const finish = (settled: Exclude<SettledChange<unknown>, { kind: 'approved' | 'settled' }>) => {
    if (settled.kind === 'conflict') {
      const reason = `The approved change no longer applies: ${settled.problems.join('; ')}`;
      ctx.log.warn(
        { approvalId: body.approvalId, entityId: body.entityId, reason },
        'approved partner change not applied',
      );
      s.lastReview = review(body, 'conflict', reason);
      return { applied: false, code: PartnerErrors.PARTNER_APPROVAL_CONFLICT.code, reason };
    }
    s.lastReview = review(body, 'rejected');
    return { applied: false };
  };

  if (isVenue) {
    const venue = ownEntry(s.locations, body.entityId);
    const pending: DeepReadonly<PendingApproval> | undefined = ownEntry(s.venueApprovals, body.entityId);
    if (!venue) {
      if (s.lastReview?.approvalId === body.approvalId) return { applied: false, settled: true, action: body.action };
      throw mismatch(null);
    }
    const settled = settleGatedChange<Venue>(venue, body, {
      pendingApprovalId: pending?.id,
      lastSettledApprovalId: s.lastReview?.approvalId,
      mismatch,
    });
    if (settled.kind === 'settled')
      return { applied: false, settled: true, action: body.action, venue: venueView(venue) };
    delete s.venueApprovals[venue.id];
    if (settled.kind !== 'approved') return { ...finish(settled), action: body.action, venue: venueView(venue) };
    s.locations[venue.id] = settled.entity;
    await logVenue(ctx, venue, settled.entity, info);
    s.lastReview = review(body, 'applied');
    return { applied: true, action: body.action, venue: venueView(settled.entity) };
  }

  const partner = s.partner;
  const settled = settleGatedChange<PartnerRecord>(partner, body, {
    pendingApprovalId: s.pendingApproval?.id,
    lastSettledApprovalId: s.lastReview?.approvalId,
    mismatch,
  });
  if (settled.kind === 'settled') return { applied: false, settled: true, action: body.action, partner };
  s.pendingApproval = null;
  if (settled.kind !== 'approved') return { ...finish(settled), action: body.action, partner };
  s.partner = settled.entity;
  await logPartner(ctx, partner, settled.entity, info);
  s.lastReview = review(body, 'applied');
  return { applied: true, action: body.action, partner: settled.entity };
}
