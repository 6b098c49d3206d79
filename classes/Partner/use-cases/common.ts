/**
 * What Partner's use cases share: the handlers' context types, the state of a
 * partner's instance, the approval-gated changes of the partner and of a venue
 * (classes/_platform/gated-change.ts), applying a change (state, audit entry)
 * and the answers of a change.
 */
import type { Ctx, DeepReadonly, ReadCtx, StaticCtx } from '../../../runtime';
import { logChange } from '../../_platform/audit-log';
import { requestGatedChange, type GatedChange } from '../../_platform/gated-change';
import { openRecord, ownEntry } from '../../_platform/records';
import { partnerError } from '../errors';
import { venueView } from '../rules';
import {
  VENUE_WORKFLOW_CLASS,
  type PartnerClassState,
  type PartnerEvent,
  type PartnerRecord,
  type PartnerState,
  type PendingApproval,
  type Venue,
  type VenueEvent,
} from '../types';

/** a Partner write's context: one partner's state, and the method's body `I` */
export type PartnerCtx<I = Record<string, never>> = Ctx<PartnerClassState, I>;
/** a Partner READ's context */
export type PartnerReadCtx<I = Record<string, never>> = ReadCtx<PartnerClassState, I>;
/** a Partner STATIC's context */
export type PartnerStaticCtx<I = Record<string, never>> = StaticCtx<I>;

/** the approval callback of every partner and venue event (approve and reject) */
export const CALLBACK = 'approvePartner';

/** entity types of the audit entries */
export const PARTNER_ENTITY = 'partner';
export const VENUE_ENTITY = 'venue';

export const now = (): string => new Date().toISOString();

/** The partner's state to change (its maps opened for keys from input). */
export function st(ctx: PartnerCtx<unknown>): PartnerState {
  const s = ctx.state.private;
  s.locations = openRecord(s.locations);
  s.venueApprovals = openRecord(s.venueApprovals);
  s.documents ??= [];
  return s;
}

/** The venue `venueId` of the partner, or 404 17007. */
export function venueOf(
  state: DeepReadonly<PartnerState> | PartnerState,
  venueId: string | undefined,
): DeepReadonly<Venue> {
  const venue =
    typeof venueId === 'string' ? ownEntry(state.locations as Record<string, DeepReadonly<Venue>>, venueId) : undefined;
  if (!venue) {
    throw partnerError('VENUE_NOT_FOUND', `Partner ${state.partner.id} has no venue '${String(venueId)}'`, {
      errors: [{ field: 'venueId', reason: 'names no venue of this partner' }],
    });
  }
  return venue;
}

/** The approval the venue waits for, or null. */
export function venuePending(
  state: DeepReadonly<PartnerState> | PartnerState,
  venueId: string,
): DeepReadonly<PendingApproval> | null {
  return ownEntry(state.venueApprovals as Record<string, DeepReadonly<PendingApproval>>, venueId) ?? null;
}

// ---------------------------------------------------------------- audit entries

/** The audit entry of a partner change; the primary contact is personal data, masked. */
export async function logPartner(
  ctx: PartnerCtx<unknown>,
  before: PartnerRecord | null,
  after: PartnerRecord,
  additionalData: Record<string, unknown>,
): Promise<void> {
  await logChange(ctx, {
    entityType: PARTNER_ENTITY,
    entityId: after.id,
    before,
    after,
    sensitiveFields: ['name', 'email', 'phone'],
    ignore: ['updatedAt'],
    additionalData,
  });
}

/** The audit entry of a venue change (entity type `venue`, the partner in additionalData); its contact is masked. */
export async function logVenue(
  ctx: PartnerCtx<unknown>,
  before: Venue | null,
  after: Venue,
  additionalData: Record<string, unknown>,
): Promise<void> {
  await logChange(ctx, {
    entityType: VENUE_ENTITY,
    entityId: after.id,
    before,
    after,
    sensitiveFields: ['contactName', 'contactEmail', 'contactPhone'],
    ignore: ['updatedAt'],
    additionalData: { partnerId: after.partnerId, ...additionalData },
  });
}

// ---------------------------------------------------------------- the partner's gated changes

/** 409 17003: the partner waits for an approval. */
function partnerWhilePending(s: PartnerState) {
  return (approvalId: string) =>
    partnerError(
      'PARTNER_APPROVAL_PENDING',
      `Partner ${s.partner.id} waits for approval ${approvalId} (${s.pendingApproval?.event}); it takes no other change until then`,
      {
        pendingApproval: s.pendingApproval,
      },
    );
}

/** Refuses a change of the partner while it waits for an approval. */
export function guardPartner(ctx: PartnerCtx<unknown>): void {
  const s = st(ctx);
  if (s.pendingApproval) throw partnerWhilePending(s)(s.pendingApproval.id);
}

/**
 * The approval-gated change of the partner: refused while it waits; an auto
 * approval applies now (state, audit entry), a manual one waits for
 * approvePartner.
 */
export async function requestPartnerChange(
  ctx: PartnerCtx<unknown>,
  event: PartnerEvent,
  requested: PartnerRecord,
  additionalData: Record<string, unknown> = {},
): Promise<GatedChange<PartnerRecord>> {
  const s = st(ctx);
  const old = s.partner;
  const change = await requestGatedChange(ctx, {
    event,
    entityId: old.id,
    oldEntity: old,
    newEntity: requested,
    approveCallback: CALLBACK,
    rejectCallback: CALLBACK,
    additionalData,
    pendingApprovalId: s.pendingApproval?.id,
    whilePending: partnerWhilePending(s),
  });
  if (change.applied) {
    s.partner = change.entity;
    await logPartner(ctx, old, change.entity, { event, approvalId: change.approvalRecord.id, ...additionalData });
  } else {
    s.pendingApproval = { id: change.approvalId, event, requestedStatus: change.newStatus ?? old.status };
  }
  return change;
}

/** The answer of a partner change: the partner as it is now, the approval, and (when waiting) what it becomes. */
export function partnerAnswer(ctx: PartnerCtx<unknown>, change: GatedChange<PartnerRecord>) {
  const s = st(ctx);
  return {
    partner: s.partner,
    pendingApproval: s.pendingApproval,
    approval: change.approval,
    ...(change.applied ? {} : { requestedPartner: change.workflow.simulatedApprovedState }),
  };
}

// ---------------------------------------------------------------- a venue's gated changes

/** 409 17004: the venue waits for an approval. */
function venueWhilePending(s: PartnerState, venueId: string) {
  return (approvalId: string) =>
    partnerError(
      'VENUE_APPROVAL_PENDING',
      `Venue ${venueId} waits for approval ${approvalId} (${venuePending(s, venueId)?.event}); it takes no other change until then`,
      {
        pendingApproval: venuePending(s, venueId),
      },
    );
}

/**
 * The approval-gated change of a venue (rules of the `Venue` workflow
 * configuration): a creation when `old` is null (the venue is stored as
 * requested, `inactive`, while it waits), else a change of the stored venue.
 */
export async function requestVenueChange(
  ctx: PartnerCtx<unknown>,
  event: VenueEvent,
  old: Venue | null,
  requested: Venue,
  additionalData: Record<string, unknown> = {},
): Promise<GatedChange<Venue>> {
  const s = st(ctx);
  const pending = old ? venuePending(s, old.id) : null;
  const change = await requestGatedChange(ctx, {
    event,
    entityId: requested.id,
    oldEntity: old,
    newEntity: requested,
    workflowClassId: VENUE_WORKFLOW_CLASS,
    approveCallback: CALLBACK,
    rejectCallback: CALLBACK,
    additionalData: { partnerId: requested.partnerId, ...additionalData },
    pendingApprovalId: pending?.id,
    whilePending: venueWhilePending(s, requested.id),
  });
  if (change.applied) {
    s.locations[requested.id] = change.entity;
    await logVenue(ctx, old, change.entity, { event, approvalId: change.approvalRecord.id, ...additionalData });
  } else {
    if (!old) {
      // the venue exists, waiting: its creation is in the audit log now, its activation when approved
      s.locations[requested.id] = requested;
      await logVenue(ctx, null, requested, {
        event,
        approvalId: change.approvalId,
        approvalStatus: 'pending',
        ...additionalData,
      });
    }
    s.venueApprovals[requested.id] = {
      id: change.approvalId,
      event,
      requestedStatus: change.newStatus ?? requested.status,
    };
  }
  return change;
}

/** The answer of a venue change: the venue as it is now, the approval, and (when waiting) what it becomes. */
export function venueAnswer(ctx: PartnerCtx<unknown>, venueId: string, change: GatedChange<Venue>) {
  const s = st(ctx);
  return {
    venue: venueView(s.locations[venueId]),
    pendingApproval: venuePending(s, venueId),
    approval: change.approval,
    ...(change.applied ? {} : { requestedVenue: venueView(change.workflow.simulatedApprovedState) }),
  };
}
