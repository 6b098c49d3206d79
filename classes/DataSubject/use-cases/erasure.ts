/**
 * Erasure ("erase me"), four eyes: requestErasure records the request and
 * its approval record (workflow event `subject_erasure`, waiting for an
 * approver; only the system actor's request applies at once, every other
 * that would is refused); approveErasure settles the review and, once
 * approved, gathers the subjects' trace values and queues runErasure, which
 * has every class erase what it keeps (the subject's own class last), then
 * the runtime forget the traces holding those values, and closes the
 * request. Every step is audit-logged without a personal value.
 */
import { actorFromIdentity, changeActor } from '../../_platform/actor';
import { logChange } from '../../_platform/audit-log';
import { requestGatedChange, settleGatedChange } from '../../_platform/gated-change';
import { SUBJECT_ERASE_METHOD, type Subject, type SubjectErasure } from '../../_platform/personal-data';
import type { ApprovalCallbackBody } from '../../_platform/workflow';
import type { RequestErasureInput } from '../../../schemas/DataSubject/inputs';
import { dataSubjectError } from '../errors';
import { ERASURE_EVENT, erasureOrder, sumErased, traceValues } from '../rules';
import type { ErasureRecord } from '../types';
import { askOwner, type DataSubjectCtx, type DataSubjectReadCtx } from './common';

/** the audit log's entity type of an erasure request */
export const ERASURE_ENTITY_TYPE = 'data_subject_erasure';
/** the approval callback and the erasure's own step */
export const APPROVE_ERASURE = 'approveErasure';
export const RUN_ERASURE = 'runErasure';

function erasureOf(ctx: DataSubjectReadCtx<unknown> | DataSubjectCtx<unknown>): ErasureRecord {
  const e = ctx.state.private.erasure;
  if (!e) throw dataSubjectError('ERASURE_NOT_FOUND', `No erasure request '${ctx.instanceId}'`);
  return e as ErasureRecord;
}

async function logErasure(ctx: DataSubjectCtx<unknown>, before: ErasureRecord | null, after: ErasureRecord) {
  await logChange(ctx, {
    entityType: ERASURE_ENTITY_TYPE,
    entityId: after.id,
    before,
    after,
    ignore: ['updatedAt'],
    ...(after.companyId ? { companyId: after.companyId } : {}),
  });
}

export async function requestErasure(ctx: DataSubjectCtx<RequestErasureInput>) {
  if (ctx.state.private.erasure || ctx.state.private.export)
    throw dataSubjectError('REQUEST_EXISTS', `Request '${ctx.instanceId}' exists`);
  const { subjectType, subjectId, includeDependants = false, reason } = ctx.request.body;
  const subject: Subject = { type: subjectType, id: subjectId };
  const owner = await askOwner(ctx, subject);
  const now = new Date().toISOString();
  const requested: ErasureRecord = {
    id: ctx.instanceId!,
    subject,
    includeDependants,
    subjects: [subject, ...(includeDependants ? (owner.related ?? []) : [])],
    companyId: owner.companyId ?? null,
    reason,
    status: 'requested',
    requestedBy: actorFromIdentity(ctx.identity),
    requestedAt: now,
    approvalId: null,
    updatedAt: now,
  };
  const gated = await requestGatedChange(ctx, {
    event: ERASURE_EVENT,
    entityId: requested.id,
    oldEntity: requested,
    newEntity: { ...requested, status: 'approved' },
    pendingApprovalId: null,
    whilePending: () => dataSubjectError('REQUEST_EXISTS', `Request '${requested.id}' waits for its approval`),
    approveCallback: APPROVE_ERASURE,
    rejectCallback: APPROVE_ERASURE,
    ...(requested.companyId ? { companyId: requested.companyId } : {}),
  });
  if (gated.applied && ctx.identity.type !== 'system')
    throw dataSubjectError(
      'ERASURE_NEEDS_APPROVAL',
      'An erasure waits for a second person: the workflow rule would approve this one at once',
    );
  const erasure: ErasureRecord = { ...requested, approvalId: gated.approvalRecord.id };
  if (gated.applied) {
    Object.assign(erasure, { status: 'approved', reviewedBy: erasure.requestedBy, reviewedAt: now });
    await startErasure(ctx, erasure);
  }
  ctx.state.private.erasure = erasure;
  await logErasure(ctx, null, erasure);
  ctx.response.status = 201;
  return { erasure, approval: gated.approval };
}

/**
 * Approved: the values by which the subjects' traces are found are gathered
 * now, while every class still holds them, and kept until the erasure ends;
 * the erasure runs as its own queued step.
 */
async function startErasure(ctx: DataSubjectCtx<unknown>, erasure: ErasureRecord): Promise<void> {
  const values: string[][] = [];
  for (const subject of erasure.subjects) {
    try {
      values.push((await askOwner(ctx, subject)).values ?? []);
    } catch (err) {
      // a dependant erased or removed meanwhile has nothing left to trace
      if ((err as { code?: unknown }).code !== 20001 || subject === erasure.subject) throw err;
    }
  }
  ctx.state.private.pendingValues = traceValues(values);
  // a task of this instance, dispatched after the commit (the instance may be the one this commit creates)
  ctx.schedule({ method: RUN_ERASURE, body: {}, delaySeconds: 0 });
}

export async function approveErasure(ctx: DataSubjectCtx<ApprovalCallbackBody>) {
  const body = ctx.request.body;
  const before = erasureOf(ctx);
  const outcome = settleGatedChange(before, body, {
    pendingApprovalId: before.status === 'requested' ? before.approvalId : null,
    lastSettledApprovalId: before.status === 'requested' ? null : before.approvalId,
    mismatch: (waiting) =>
      dataSubjectError(
        'APPROVAL_MISMATCH',
        `Approval ${body.approvalId} is not the one request ${before.id} waits for`,
        {
          waiting,
        },
      ),
  });
  if (outcome.kind === 'settled') return { erasure: before };
  const reviewedBy = changeActor(ctx.identity, body);
  const now = new Date().toISOString();
  const after: ErasureRecord = {
    ...before,
    status: outcome.kind === 'approved' ? 'approved' : 'rejected',
    reviewedBy,
    reviewedAt: now,
    updatedAt: now,
  };
  if (after.status === 'approved') await startErasure(ctx, after);
  ctx.state.private.erasure = after;
  await logErasure(ctx, before, after);
  return { erasure: after };
}

/**
 * Each class erases what it keeps about each subject (a second run finds
 * nothing left: each class's erasure is idempotent), then the runtime forgets
 * the traces; the request is closed and its trace values dropped in one commit.
 */
export async function runErasure(ctx: DataSubjectCtx<Record<string, never>>) {
  const before = erasureOf(ctx);
  if (before.status !== 'approved') return { erasure: before };
  const counts: { classId: string; records: number; files: number }[] = [];
  for (const subject of before.subjects) {
    for (const classId of erasureOrder(subject.type)) {
      const body = { subject, subjectCompanyId: before.companyId, erasureId: before.id };
      const erased = (await ctx.call(classId, SUBJECT_ERASE_METHOD, undefined, body)).body as SubjectErasure;
      counts.push({ classId, records: erased.records, files: erased.files });
    }
  }
  const traces = await ctx.ports.traces.forget(ctx.state.private.pendingValues ?? []);
  const now = new Date().toISOString();
  const after: ErasureRecord = {
    ...before,
    status: 'erased',
    erasedAt: now,
    erased: sumErased(counts),
    traces: traces.removed,
    updatedAt: now,
  };
  ctx.state.private.erasure = after;
  delete ctx.state.private.pendingValues;
  await logErasure(ctx, before, after);
  return { erasure: after };
}

export function getErasure(ctx: DataSubjectReadCtx<Record<string, never>>) {
  return { erasure: erasureOf(ctx) };
}
