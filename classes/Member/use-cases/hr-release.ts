/**
 * The approval of a held HR push (event HR_DEACTIVATION_HELD, hr-hold.ts)
 * settles it on the member: approve applies the held record through the same
 * step as the push itself (hrApplyEmployee's or hrApplyDependant's, outside
 * the quarantine), reject discards it. The callback is a QUEUED_WRITE; the
 * hold is cleared in the same commit, so a redelivered callback, or one of an
 * approval whose push was superseded by a newer one, changes nothing.
 */
import { ActorError } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import type { ApprovalCallbackBody } from '../../_platform/workflow';
import { memberState, type MemberCtx } from '../member-state';
import type { HeldHrPush } from '../types';
import { applyDependant, type ApplyDependantBody } from './hr-dependant';
import { applyEmployee, type ApplyEmployeeBody } from './hr-employee';
import type { LinkFamilyBody } from './family';
import { logHold } from './hr-hold';

export async function settleHeldHrPush(ctx: MemberCtx<ApprovalCallbackBody>) {
  const body = ctx.request.body;
  const state = memberState(ctx);
  const held: HeldHrPush | null = state.heldHr ?? null;
  if (!held || held.approvalId !== body.approvalId) {
    return { ignored: true, reason: 'superseded or already settled', approvalId: body.approvalId };
  }
  state.heldHr = null;
  if (body.action !== 'approve') {
    await logHold(ctx, false, { approvalId: held.approvalId, outcome: 'discarded' });
    return { released: false, discarded: true, approvalId: held.approvalId };
  }
  let updatedFields: string[];
  const untouched = JSON.stringify(state);
  try {
    if (held.kind === 'employee') {
      updatedFields = (await applyEmployee(ctx, held.body as unknown as ApplyEmployeeBody, null)).updatedFields;
    } else {
      const input = held.body as unknown as ApplyDependantBody;
      const applied = await applyDependant(ctx, input, null);
      updatedFields = applied.updatedFields;
      // the primary member lists the dependant as it is now, as the push itself would have had it listed
      if (updatedFields.length) {
        await ctx.effect({
          classId: 'Member',
          method: 'linkFamilyMember',
          instanceId: input.primary.id,
          body: { ref: applied.ref, actor: actorFromIdentity(ctx.identity) } satisfies LinkFamilyBody,
        });
      }
    }
  } catch (err) {
    // the record no longer fits the member (its company closed meanwhile, ...): settled as not applied, not retried for ever
    // (refused before it changed anything; a failure after a change fails the callback, which is retried)
    if (!(err instanceof ActorError) || !err.body || JSON.stringify(state) !== untouched) throw err;
    await logHold(ctx, false, {
      approvalId: held.approvalId,
      outcome: 'not_applicable',
      code: err.code,
      reason: err.message,
    });
    return {
      released: false,
      discarded: false,
      approvalId: held.approvalId,
      notApplied: { code: err.code, message: err.message },
    };
  }
  await logHold(ctx, false, { approvalId: held.approvalId, outcome: 'released', updatedFields });
  return { released: true, discarded: false, approvalId: held.approvalId, updatedFields };
}
