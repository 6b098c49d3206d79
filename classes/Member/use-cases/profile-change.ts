/**
 * A change of the member's profile through the workflow (member_update,
 * member_status_update, member_create's approval): applied at once when
 * approved, otherwise held (pendingChange) until approveMember settles it.
 */
import type { DeepReadonly } from '../../../runtime';
import { applyApprovalCallback, approvalSummary, PatchConflictError, runWorkflow, type ApprovalCallbackBody } from '../../_platform/workflow';
import { fieldError, memberError } from '../errors';
import { clone, emailKey, hasActiveMembership, logMemberChange, memberIdByLookup, memberState, profileOf, syncEmailLookup, syncStaffIdLookup, type MemberCtx } from '../member-state';
import { nextMemberStatus } from '../status-machine';
import type { MemberProfile } from '../types';
import { refuseWhilePending } from './common';

/**
 * A profile change through the workflow (member_update, member_status_update):
 * applied now when approved at once, otherwise kept waiting (no other change
 * until the approval is reviewed).
 */
export async function changeProfile(ctx: MemberCtx<unknown>, requested: MemberProfile, event: string, additionalData: Record<string, unknown> = {}) {
  const state = memberState(ctx);
  refuseWhilePending(state);
  const before = state.profile;
  if (JSON.stringify({ ...before, updatedAt: '' }) === JSON.stringify({ ...requested, updatedAt: '' })) {
    return { member: before, updatedFields: [], approval: null, pendingApprovalId: null };
  }
  const updatedFields = (Object.keys(requested) as (keyof MemberProfile)[]).filter(
    (k) => k !== 'updatedAt' && JSON.stringify(before[k] ?? null) !== JSON.stringify(requested[k] ?? null),
  );
  const wf = await runWorkflow(ctx, {
    event,
    entityId: before.id,
    oldEntity: before,
    newEntity: requested,
    approveCallback: 'approveMember',
    rejectCallback: 'approveMember',
    additionalData: { ...additionalData, updatedFields },
  });
  if (wf.isApproved) {
    const after = wf.simulatedApprovedState;
    state.profile = after;
    syncStaffIdLookup(ctx, after);
    if ((await syncEmailLookup(ctx, after)) === 'taken') throw fieldError('EMAIL_TAKEN', 'email', `Email '${after.email}' belongs to another member`);
    await logMemberChange(ctx, before, after, { event, approvalId: wf.approvalRecord.id });
  } else {
    state.pendingChange = { approvalId: wf.approvalRecord.id, event, requestedAt: new Date().toISOString() };
  }
  return { member: state.profile, updatedFields, approval: approvalSummary(wf.approvalRecord), pendingApprovalId: state.pendingChange?.approvalId ?? null };
}

/** approveMember for member_update / member_status_update: apply the patch, or drop a change that no longer fits. */
export function applyApprovedChange(before: MemberProfile, body: ApprovalCallbackBody): { after: MemberProfile; conflict?: string[] } {
  try {
    return { after: applyApprovalCallback(before, body) };
  } catch (err) {
    if (err instanceof PatchConflictError) return { after: before, conflict: err.problems };
    throw err;
  }
}

/**
 * Lookup keys an approved change would take from another member: the staff id
 * or email it sets when another member holds it by now (a change waiting for
 * approval does not hold them). approveMember drops such a change as it drops
 * one that no longer fits; applying it could not commit.
 */
export async function lookupConflicts(ctx: MemberCtx<unknown>, before: DeepReadonly<MemberProfile>, after: DeepReadonly<MemberProfile>): Promise<string[]> {
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

/** Approval callback of member_create / member_update / member_status_update. */
export async function approveMember(ctx: MemberCtx<ApprovalCallbackBody>) {
  const body = ctx.request.body;
  const state = memberState(ctx);
  const pending = state.pendingChange;
  if (!pending || pending.approvalId !== body.approvalId) {
    // a redelivered or stale callback changes nothing
    if (state.lastApprovalId === body.approvalId) return { ignored: true, approvalId: body.approvalId };
    throw memberError('APPROVAL_MISMATCH', `Member ${ctx.instanceId} does not wait for approval ${body.approvalId}`);
  }
  const before = clone(profileOf(ctx));
  let after: MemberProfile;
  if (pending.event === 'member_create') {
    // the creation patch is the whole entity: only the status moves on approval (HR may have updated the member meanwhile)
    if (body.action === 'approve') {
      const r = nextMemberStatus(before.status, {
        type: 'creationApproved',
        loginMethod: before.loginMethod,
        hasIdPhoto: Boolean(before.idPhoto),
        hasActiveMembership: hasActiveMembership(before),
      });
      after = { ...before, status: r.ok ? r.to : before.status };
    } else {
      after = { ...before, status: 'rejected' };
    }
  } else {
    const applied = applyApprovedChange(before, body);
    // a staff id or email another member took while the change waited: it cannot apply either
    if (!applied.conflict && body.action === 'approve') {
      const taken = await lookupConflicts(ctx, before, applied.after);
      if (taken.length) applied.conflict = taken;
    }
    if (applied.conflict) {
      // the member changed meanwhile (e.g. by the HR system): the approved change no longer fits and is dropped
      state.pendingChange = null;
      state.lastApprovalId = body.approvalId;
      ctx.log.warn({ approvalId: body.approvalId, problems: applied.conflict }, 'approved member change no longer applies');
      return { member: before, conflict: applied.conflict };
    }
    after = applied.after;
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
