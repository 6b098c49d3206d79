/**
 * The quarantine's step inside an HR apply (hrApplyEmployee, hrApplyDependant,
 * under the member's write turn): a push that would deactivate the member
 * takes a slot of its company's window, or is held on the member with an
 * approval (event HR_DEACTIVATION_HELD) that releases or discards it
 * (hr-release.ts). The hold, its approval record, its audit entry and the
 * operators' notice commit together with the member. Rules: hr-quarantine.ts.
 */
import { logChange } from '../../_platform/audit-log';
import type { Actor } from '../../_platform/actor';
import { runWorkflow } from '../../_platform/workflow';
import { notify } from '../../_platform/notify';
import { deactivationLimit, deactivates, quarantineStep, type QuarantineSettings } from '../hr-quarantine';
import { MEMBERS_COLLECTION } from '../listing-rules';
import { memberState, type MemberCtx } from '../member-state';
import type { HeldHrPush, MemberProfile } from '../types';

export const HR_HOLD_EVENT = 'HR_DEACTIVATION_HELD';
export const HR_HOLD_TEMPLATE = 'HR_DEACTIVATIONS_HELD';
/** the code of a held push's 202 answer, in the HR contract's range (errors.ts) */
export const HR_HELD_CODE = 10076;
/** the counters of ctx.limits the quarantine keeps, per company */
const WINDOW_COUNTER = 'hr-deactivations';
const NOTICE_COUNTER = 'hr-quarantine-notice';

export interface HoldInput {
  kind: HeldHrPush['kind'];
  before: MemberProfile;
  /** the member as the push would leave it */
  after: MemberProfile;
  companyId: string;
  /** the apply step's body, kept whole for the release */
  body: Record<string, unknown>;
  /** who pushed (the API key's actor) */
  actor: Actor;
}

export type HoldOutcome = { held: false } | { held: true; approvalId: string };

/**
 * Decides whether the push goes on (`held: false`: the caller applies it) or
 * is held. A released push (`settings.enabled` false, or the release itself)
 * never comes here. A push that does not deactivate a held member supersedes
 * the hold: the member follows HR's newer word and the waiting approval
 * changes nothing when reviewed.
 */
export async function holdIfQuarantined(
  ctx: MemberCtx<unknown>,
  settings: QuarantineSettings,
  input: HoldInput,
): Promise<HoldOutcome> {
  const state = memberState(ctx);
  const held = state.heldHr ?? null;
  if (!settings.enabled) {
    if (held) await supersede(ctx, held, input.actor);
    return { held: false };
  }
  const step = quarantineStep(deactivates(input.before.status, input.after.status), held !== null);
  if (step === 'none') return { held: false };
  if (step === 'supersede') {
    await supersede(ctx, held!, input.actor);
    return { held: false };
  }
  if (step === 'hold-again') {
    state.heldHr = { ...held!, body: input.body, replaced: held!.replaced + 1 };
    return { held: true, approvalId: held!.approvalId };
  }
  const active = await ctx.documents.count(MEMBERS_COLLECTION, { companyId: input.companyId, status: 'active' });
  const limit = deactivationLimit(settings, active);
  if (limit === Number.POSITIVE_INFINITY) return { held: false };
  const slot = await ctx.limits.hit(WINDOW_COUNTER, input.companyId, {
    max: limit,
    windowSeconds: settings.windowSeconds,
  });
  if (slot.allowed) return { held: false };
  return hold(ctx, settings, input, limit);
}

async function hold(
  ctx: MemberCtx<unknown>,
  settings: QuarantineSettings,
  input: HoldInput,
  limit: number,
): Promise<HoldOutcome> {
  const state = memberState(ctx);
  const wf = await runWorkflow(ctx, {
    event: HR_HOLD_EVENT,
    entityId: input.before.id,
    oldEntity: input.before,
    newEntity: input.after,
    approveCallback: 'settleHeldHrPush',
    rejectCallback: 'settleHeldHrPush',
    companyId: input.companyId,
    additionalData: {
      kind: input.kind,
      pushedBy: input.actor,
      windowLimit: limit,
      windowMinutes: settings.windowSeconds / 60,
    },
  });
  const heldHr: HeldHrPush = {
    kind: input.kind,
    body: input.body,
    companyId: input.companyId,
    approvalId: wf.approvalRecord.id,
    heldAt: new Date().toISOString(),
    replaced: 0,
  };
  state.heldHr = heldHr;
  await logHold(ctx, true, { approvalId: heldHr.approvalId, kind: input.kind, windowLimit: limit }, input.actor);
  // the operators hear of a company's holds once per window, not once per member
  if (settings.notifyTo.length) {
    const first = await ctx.limits.hit(NOTICE_COUNTER, input.companyId, {
      max: 1,
      windowSeconds: settings.windowSeconds,
    });
    if (first.allowed) {
      await notify(ctx, HR_HOLD_TEMPLATE, {
        to: settings.notifyTo,
        parameters: {
          companyId: input.companyId,
          limit: String(limit),
          windowMinutes: String(settings.windowSeconds / 60),
          approvalId: heldHr.approvalId,
        },
      });
    }
  }
  return { held: true, approvalId: heldHr.approvalId };
}

async function supersede(ctx: MemberCtx<unknown>, held: HeldHrPush, actor: Actor): Promise<void> {
  memberState(ctx).heldHr = null;
  await logHold(ctx, false, { approvalId: held.approvalId, outcome: 'superseded' }, actor);
}

/** The audit entry of a hold taken (`held` true) or ended, with what it was about. */
export async function logHold(
  ctx: MemberCtx<unknown>,
  held: boolean,
  data: Record<string, unknown>,
  actor?: Actor,
): Promise<void> {
  await logChange(ctx, {
    entityType: 'member',
    entityId: ctx.instanceId!,
    before: { hrDeactivationHeld: !held },
    after: { hrDeactivationHeld: held },
    additionalData: { event: HR_HOLD_EVENT, ...data },
    ...(actor ? { actor } : {}),
  });
}

/**
 * The answer to a held push (beside spec 7.2): 202, `success: true` (the HR
 * system has nothing to retry), code 10076 and the approval that settles it.
 */
export function heldAnswer(
  ctx: { response: { status?: number } },
  message: string,
  body: Record<string, unknown>,
  approvalId: string,
) {
  ctx.response.status = 202;
  return { success: true, code: HR_HELD_CODE, message, body: { ...body, held: true, approvalId } };
}
