/**
 * A change of the member's profile through the workflow (member_update,
 * member_status_update, member_create's approval), as the platform's
 * approval-gated change (classes/_platform/gated-change.ts): applied at once
 * when approved, otherwise held (pendingChange) until approveMember settles
 * it. What is Member's own: the pending change is `pendingChange` beside the
 * profile, the last settled approval is `lastApprovalId` (a redelivered
 * callback is answered `ignored`), an approved change that would take a staff
 * id or email another member holds by now is dropped like one that no longer
 * fits, and member_create's approval moves only the status.
 */
import type { DeepReadonly } from '../../../runtime';
import { requestGatedChange, settleGatedChange } from '../../_platform/gated-change';
import type { ApprovalCallbackBody } from '../../_platform/workflow';
import { fieldError, memberError } from '../errors';
import {
  clone,
  emailKey,
  hasActiveMembership,
  logMemberChange,
  memberIdByLookup,
  memberState,
  profileOf,
  syncEmailLookup,
  syncStaffIdLookup,
  type MemberCtx,
} from '../member-state';
import { nextMemberStatus } from '../status-machine';
import type { MemberProfile } from '../types';
import { MEMBER_CREATE_EVENT, refuseWhilePending, whilePending } from './common';
import { welcomeIfDue } from './welcome';

/**
 * A profile change through the workflow (member_update, member_status_update):
 * applied now when approved at once, otherwise kept waiting (no other change
 * until the approval is reviewed). A request that changes nothing runs no
 * workflow.
 */
export async function changeProfile(
  ctx: MemberCtx<unknown>,
  requested: MemberProfile,
  event: string,
  additionalData: Record<string, unknown> = {},
) {
  const state = memberState(ctx);
  refuseWhilePending(state);
  const before = state.profile;
  if (JSON.stringify({ ...before, updatedAt: '' }) === JSON.stringify({ ...requested, updatedAt: '' })) {
    return { member: before, updatedFields: [], approval: null, pendingApprovalId: null };
  }
  const updatedFields = (Object.keys(requested) as (keyof MemberProfile)[]).filter(
    (k) => k !== 'updatedAt' && JSON.stringify(before[k] ?? null) !== JSON.stringify(requested[k] ?? null),
  );
  const change = await requestGatedChange<MemberProfile>(ctx, {
    event,
    entityId: before.id,
    oldEntity: before,
    newEntity: requested,
    pendingApprovalId: state.pendingChange?.approvalId,
    whilePending: whilePending(state),
    approveCallback: 'approveMember',
    rejectCallback: 'approveMember',
    additionalData: { ...additionalData, updatedFields },
  });
  if (change.applied) {
    const after = change.entity;
    state.profile = after;
    syncStaffIdLookup(ctx, after);
    if ((await syncEmailLookup(ctx, after)) === 'taken')
      throw fieldError('EMAIL_TAKEN', 'email', `Email '${after.email}' belongs to another member`);
    await logMemberChange(ctx, before, after, { event, approvalId: change.approvalRecord.id });
  } else {
    state.pendingChange = { approvalId: change.approvalId, event, requestedAt: new Date().toISOString() };
  }
  return {
    member: state.profile,
    updatedFields,
    approval: change.approval,
    pendingApprovalId: state.pendingChange?.approvalId ?? null,
  };
}

/**
 * Lookup keys an approved change would take from another member: the staff id
 * or email it sets when another member holds it by now (a change waiting for
 * approval does not hold them). approveMember drops such a change as it drops
 * one that no longer fits; applying it could not commit.
 */
export async function lookupConflicts(
  ctx: MemberCtx<unknown>,
  before: DeepReadonly<MemberProfile>,
  after: DeepReadonly<MemberProfile>,
): Promise<string[]> {
  const problems: string[] = [];
  if (after.staffId && after.staffId !== before.staffId) {
    const owner = await memberIdByLookup(ctx, 'staffId', after.staffId);
    if (owner && owner !== before.id) problems.push(`staffId '${after.staffId}' belongs to member ${owner}`);
  }
  if (after.email && emailKey(after.email) !== (before.email ? emailKey(before.email) : null)) {
    const owner = await memberIdByLookup(ctx, 'email', emailKey(after.email));
    if (owner && owner !== before.id) problems.push(`email '${after.email}' belongs to member ${owner}`);
  }
  return problems;
}

/**
 * Approval callback of member_create / member_update / member_status_update.
 * member_create: its patch is the whole entity, so only the status moves on
 * approval (the HR system may have updated the member meanwhile); a rejected
 * creation leaves the member `rejected`.
 */
export async function approveMember(ctx: MemberCtx<ApprovalCallbackBody>, appUrl: string) {
  const body = ctx.request.body;
  const state = memberState(ctx);
  const pending = state.pendingChange ?? null;
  const creation = pending !== null && pending.approvalId === body.approvalId && pending.event === MEMBER_CREATE_EVENT;
  const outcome = settleGatedChange(state.profile, creation ? { ...body, jsonPatch: [] } : body, {
    pendingApprovalId: pending?.approvalId,
    lastSettledApprovalId: state.lastApprovalId,
    mismatch: (waiting) =>
      memberError(
        'APPROVAL_MISMATCH',
        waiting
          ? `Member ${ctx.instanceId} waits for approval ${waiting}, not ${body.approvalId}`
          : `Member ${ctx.instanceId} waits for no approval (callback for approval ${body.approvalId})`,
      ),
  });
  // a redelivered callback changes nothing
  if (outcome.kind === 'settled') return { ignored: true, approvalId: body.approvalId };
  // any other outcome settles the approval the member waits for
  if (!pending) throw new Error(`approveMember: settled approval ${body.approvalId} without a pending change`);
  const before = clone(profileOf(ctx));
  let after: MemberProfile;
  if (creation) {
    if (outcome.kind === 'approved') {
      const r = nextMemberStatus(before.status, {
        type: 'creationApproved',
        loginMethod: before.loginMethod,
        hasIdPhoto: Boolean(before.idPhoto),
        hasActiveMembership: hasActiveMembership(before),
      });
      after = { ...before, status: r.ok ? r.to : before.status };
      if (r.ok) await welcomeIfDue(ctx, after, r.effects, appUrl);
    } else {
      after = { ...before, status: 'rejected' };
    }
  } else {
    let conflict = outcome.kind === 'conflict' ? outcome.problems : null;
    // a staff id or email another member took while the change waited: it cannot apply either
    if (outcome.kind === 'approved') {
      const taken = await lookupConflicts(ctx, before, outcome.entity);
      if (taken.length) conflict = taken;
    }
    if (conflict) {
      // the member changed meanwhile (e.g. by the HR system): the approved change no longer fits and is dropped
      state.pendingChange = null;
      state.lastApprovalId = body.approvalId;
      ctx.log.warn({ approvalId: body.approvalId, problems: conflict }, 'approved member change no longer applies');
      return { member: before, conflict };
    }
    after = outcome.kind === 'approved' ? outcome.entity : before;
  }
  if (JSON.stringify(after) !== JSON.stringify(before)) after.updatedAt = new Date().toISOString();
  state.profile = after;
  state.pendingChange = null;
  state.lastApprovalId = body.approvalId;
  syncStaffIdLookup(ctx, after);
  await syncEmailLookup(ctx, after);
  await logMemberChange(ctx, before, after, { approvalId: body.approvalId, action: body.action, event: pending.event });
  return { member: after };
}
