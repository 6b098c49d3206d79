/**
 * ApprovalManager (spec 2.8, 3.2, 4.5).
 *
 * Deviation from the spec's "singleton" wording, on purpose: one actor
 * instance per approval record (instance id = approval id, a UUID). A
 * singleton would serialise every approval of the service through one
 * instance lock and keep all records in one state blob; per-record instances
 * review in parallel, and listings read the streamed `approvals` collection.
 */
import type { Operation } from 'rfc6902';
import { randomUUID } from 'node:crypto';
import { ActorClass, ActorError, Init, Read, rolesGrant, Static, Write, type Ctx } from '../../runtime';
import { actorFromIdentity } from '../_platform/actor';
import {
  approvalClassId,
  approvalDocument,
  approvalView,
  buildListFilter,
  callbackBody,
  canReview,
  isLargePatch,
  largeApprovalFileName,
  largeOldValuesFileName,
  listingRow,
  newApprovalRecord,
  oldValuesInline,
  parseListQuery,
  reviewerWithRoles,
  reviewOutcome,
  reviewRefusal,
} from './domain';
import { approvalError } from './errors';
import type { ApprovalAction, ApprovalRecord, CreateApprovalInput } from './types';
import { listingInput } from '../_platform/paging';
import { ownedByCompany } from '../_platform/scope';

interface ApprovalState {
  approval: ApprovalRecord;
}

function recordOf(ctx: Ctx): ApprovalRecord {
  return (ctx.state.public as ApprovalState).approval;
}

/** The full patch: inline, or read back from the blob of a large approval. */
async function fullPatch(ctx: Ctx, record: ApprovalRecord): Promise<Operation[]> {
  if (!record.isLargeApproval) return record.jsonPatch;
  const name = record.largePatchFile ?? largeApprovalFileName(record.entityId, record.id);
  let blob: Awaited<ReturnType<Ctx['ports']['blobs']['get']>>;
  try {
    blob = await ctx.ports.blobs.get(name);
  } catch (err) {
    throw approvalError('APPROVAL_PATCH_UNAVAILABLE', `The patch of approval ${record.id} could not be read`, { file: name, error: (err as Error).message });
  }
  if (!blob) throw approvalError('APPROVAL_PATCH_UNAVAILABLE', `The patch of approval ${record.id} is missing`, { file: name });
  return JSON.parse(blob.data.toString('utf8')) as Operation[];
}

/**
 * The old values of the patched paths: inline, or read back from their blob.
 * Unreadable or missing: undefined (the record is still answered, without its
 * `changes` view), logged.
 */
async function oldValuesOf(ctx: Ctx, record: ApprovalRecord): Promise<unknown> {
  if (!record.oldValuesFile) return record.oldValues;
  try {
    const blob = await ctx.ports.blobs.get(record.oldValuesFile);
    if (blob) return JSON.parse(blob.data.toString('utf8'));
    ctx.log.warn({ approvalId: record.id, file: record.oldValuesFile }, 'old values of an approval are missing');
  } catch (err) {
    ctx.log.warn({ approvalId: record.id, file: record.oldValuesFile, error: (err as Error).message }, 'old values of an approval could not be read');
  }
  return undefined;
}

/** A record as callers see it: every field, the full patch and its before/after view (`changes`), no storage detail. */
async function view(ctx: Ctx, record: ApprovalRecord, patch?: Operation[]) {
  return approvalView(record, patch ?? (await fullPatch(ctx, record)), await oldValuesOf(ctx, record));
}

/**
 * For program management users of methods declared `skipRoleCheck` because
 * approvers may call them without the permission: unless `allowed`, the
 * caller's active roles must grant the method, as the runtime's role check
 * would have demanded. Other identities were judged by the access list.
 */
async function requirePermissionUnless(ctx: Ctx, allowed: boolean, why: string): Promise<void> {
  if (allowed || ctx.identity.type !== 'program_management_user') return;
  if (rolesGrant(await ctx.roles(), 'ApprovalManager', ctx.method)) return;
  throw approvalError('APPROVAL_ACCESS_DENIED', `No role of this user grants ApprovalManager.${ctx.method}, and ${why}`, { method: ctx.method });
}

interface InnerError {
  status?: number;
  code?: number | string;
  message: string;
  classId?: string;
}

function describe(err: unknown): InnerError {
  if (err instanceof ActorError) {
    const body = err.toBody();
    return { status: err.status, code: body.code as number | string | undefined, message: err.message, classId: body.classId as string | undefined };
  }
  return { message: (err as Error)?.message ?? String(err) };
}

/** The calling class (callbacks may only name it), for class identities. */
function callerOf(ctx: Ctx): string | undefined {
  return ctx.identity.type === 'class' ? ctx.identity.classId : undefined;
}

/**
 * Pure: the record an event's approval is stored as, the full patch and old
 * values (for the answer's view), and the blobs holding what does not fit
 * inline (10 KB, spec 8).
 */
function planApproval(id: string, input: CreateApprovalInput, caller: string | undefined, now: string) {
  if (caller) {
    for (const cb of [input.approveCallback, input.rejectCallback]) {
      if (cb && cb.classId !== caller) {
        throw approvalError('APPROVAL_CALLBACK_CLASS_MISMATCH', `Class ${caller} may only register callbacks on itself, not on ${cb.classId}`, {
          callerClassId: caller,
          callbackClassId: cb.classId,
        });
      }
    }
  }
  const { createdAt: _at, ...fields } = input;
  const record = newApprovalRecord(id, fields, approvalClassId(fields, caller), now);
  if (input.companyId !== undefined) record.companyId = input.companyId;
  const patch = record.jsonPatch;
  const oldValues = record.oldValues;
  const blobs: { name: string; json: string; what: string }[] = [];
  if (isLargePatch(patch)) {
    const name = largeApprovalFileName(record.entityId, record.id);
    blobs.push({ name, json: JSON.stringify(patch), what: 'patch' });
    record.isLargeApproval = true;
    record.largePatchFile = name;
    record.jsonPatch = [];
  }
  if (oldValues && !oldValuesInline(patch, oldValues)) {
    // the record keeps at most 10 KB inline: old values that do not fit beside the patch get their own blob
    const name = largeOldValuesFileName(record.entityId, record.id);
    blobs.push({ name, json: JSON.stringify(oldValues), what: 'old values' });
    record.oldValuesFile = name;
    delete record.oldValues;
  }
  return { record, patch, oldValues, blobs };
}

@ActorClass({
  id: 'ApprovalManager',
  description: 'Approval records and their review (spec 2.8, 3.2)',
  // company scope: a record belongs to the company of the entity it changes; records of programme data are internal
  tenancy: ownedByCompany((state) => (state.public as Partial<ApprovalState>).approval?.companyId),
  stream: {
    collections: {
      approvals: {
        tenantField: 'companyId',
        indexes: [
          { keys: { approvalStatus: 1, createdAt: -1 } },
          { keys: { classId: 1, createdAt: -1 } },
          { keys: { entityId: 1, createdAt: -1 } },
          { keys: { approvers: 1, approvalStatus: 1 } },
        ],
      },
    },
    toDocuments: (state, id) => (state.public.approval ? [{ collection: 'approvals', id, doc: approvalDocument(state.public.approval) }] : []),
  },
})
export class ApprovalManager {
  /**
   * The record one workflow event will be stored as (id, status, dates, the
   * before/after view), without storing anything: runWorkflow answers its
   * caller with it and commits createApproval with the change, as an effect
   * (runtime/actor/effects.ts) whose instance id is this record's id and whose
   * body carries this `createdAt`, so the stored record is this one.
   */
  @Static({ access: ['class'], schema: 'createApproval' })
  prepareApproval(ctx: Ctx) {
    const input = ctx.request.body as CreateApprovalInput;
    const planned = planApproval(randomUUID(), input, callerOf(ctx), input.createdAt ?? new Date().toISOString());
    return approvalView(planned.record, planned.patch, planned.oldValues);
  }

  /**
   * Stores the record of one workflow event (runWorkflow commits it with the
   * change, see prepareApproval). Auto-approved (type auto, approvedBy
   * auto_approve) when the rule has no approvers or the actor is a developer
   * or the system. A patch over 10 KB is stored as blob
   * LARGE_APPROVAL_{entityId}_{approvalId}.json (blob writes are idempotent by
   * name, so a redelivered effect writes the same files).
   */
  // the id is a UUID chosen up front (or a fresh one), so the instance is created at commit without a lease
  @Init({ access: ['class'], instanceId: (req) => req.path.instanceId ?? randomUUID(), lease: false })
  async createApproval(ctx: Ctx) {
    const input = ctx.request.body as CreateApprovalInput;
    const planned = planApproval(ctx.instanceId!, input, callerOf(ctx), input.createdAt ?? new Date().toISOString());
    const { record, patch, oldValues } = planned;
    for (const blob of planned.blobs) {
      try {
        await ctx.ports.blobs.put(blob.name, Buffer.from(blob.json, 'utf8'), 'application/json');
      } catch (err) {
        throw approvalError('APPROVAL_PATCH_STORE_FAILED', `Could not store the ${blob.what} of approval ${record.id}`, { file: blob.name, error: (err as Error).message });
      }
    }
    (ctx.state.public as ApprovalState).approval = record;
    ctx.response.status = 201;
    return approvalView(record, patch, oldValues);
  }

  /**
   * One record with its before/after view. Program management users need the
   * permission ApprovalManager.getApproval, or to be an eligible approver of
   * the record (an active role it names, or a developer): who may approve a
   * record may see it.
   */
  @Read({ access: ['program_management_user', 'class'], skipRoleCheck: true })
  async getApproval(ctx: Ctx) {
    const record = recordOf(ctx);
    if (ctx.identity.type === 'program_management_user') {
      const eligible = canReview(actorFromIdentity(ctx.identity), record.approvers, await ctx.roles());
      await requirePermissionUnless(ctx, eligible, `it is no approver of approval ${record.id}`);
    }
    return view(ctx, record);
  }

  /**
   * Approve or reject a pending record (body {action, note?}). Only eligible
   * approvers: a program management user holding, as an active role of the
   * deployed roles now (ctx.roles(), not the token's claims), a role the
   * record names (by name or id), or a developer (the approver check replaces
   * the role check). The maker of the change may not approve it unless its
   * rule allowed self-approval (403 8007); it may reject (withdraw) it. The
   * originating class's callback is queued (QUEUED_WRITE) with the full
   * patch; when queuing fails, nothing is committed.
   */
  @Write({ access: ['program_management_user'], skipRoleCheck: true })
  async reviewApproval(ctx: Ctx) {
    const { action, note } = ctx.request.body as { action: ApprovalAction; note?: string };
    const record = recordOf(ctx);
    if (record.approvalStatus !== 'pending') {
      throw approvalError('APPROVAL_NOT_PENDING', `Approval ${record.id} is already ${record.approvalStatus}`, { approvalStatus: record.approvalStatus });
    }
    const roles = await ctx.roles();
    const reviewer = reviewerWithRoles(actorFromIdentity(ctx.identity), roles);
    const refusal = reviewRefusal(record, action, reviewer, roles);
    if (refusal === 'APPROVER_NOT_ELIGIBLE') {
      throw approvalError('APPROVER_NOT_ELIGIBLE', `Only holders of the active roles ${record.approvers.join(', ')} may review approval ${record.id}`, {
        approvers: record.approvers,
      });
    }
    if (refusal === 'SELF_APPROVAL_NOT_ALLOWED') {
      throw approvalError('SELF_APPROVAL_NOT_ALLOWED', `The maker of a change may not approve it: approval ${record.id} was made by ${record.actor.type} ${record.actor.id}`, {
        actor: { id: record.actor.id, type: record.actor.type },
      });
    }
    const outcome = reviewOutcome(record, action, reviewer, new Date().toISOString(), note);
    const next = outcome.record;
    const patch = await fullPatch(ctx, record);
    const cb = outcome.callback;
    if (cb) {
      // queued with this commit: the callback runs only if the review is recorded
      try {
        const { jobId } = await ctx.enqueue(cb.classId, cb.methodName, cb.instanceId, callbackBody(next, action, patch));
        next.callbackJobId = jobId;
      } catch (err) {
        throw approvalError('APPROVAL_CALLBACK_FAILED', `The ${action} callback ${cb.classId}.${cb.methodName} of approval ${record.id} failed: ${(err as Error).message}`, {
          callback: cb,
          error: describe(err),
        });
      }
    }
    (ctx.state.public as ApprovalState).approval = next;
    return view(ctx, next, patch);
  }

  /**
   * Listing from the streamed `approvals` collection, newest first. Filters:
   * approvalStatus, classId, event, entityId, actionable (pending records the
   * caller may approve now: an active role of the caller is named, and the
   * caller is not the maker unless self-approval is allowed), page (from 1),
   * limit (1-100, default 10). POST body or GET query. `actionable: true`
   * needs no permission (what an approver can act on); every other listing
   * needs ApprovalManager.listApprovals. Rows carry `changes` when their patch
   * and old values are inline (see README).
   */
  @Static({ access: ['program_management_user'], skipRoleCheck: true })
  async listApprovals(ctx: Ctx) {
    const raw = listingInput(ctx);
    // judged before the filters, so a caller without the permission learns nothing from a 400
    const actionable = raw.actionable === true || raw.actionable === 'true';
    await requirePermissionUnless(ctx, actionable, 'only the actionable listing (actionable: true) is open to approvers without it');
    const parsed = parseListQuery(raw);
    if (!parsed.ok) {
      throw approvalError('APPROVAL_INVALID_QUERY', `Invalid listing: ${parsed.errors.map((e) => `${e.field} ${e.reason}`).join('; ')}`, {
        errors: parsed.errors,
      });
    }
    const q = parsed.query;
    const filter = buildListFilter(q, actorFromIdentity(ctx.identity), q.actionable ? await ctx.roles() : []);
    const found = await ctx.documents.find<Record<string, unknown>>('approvals', filter, {
      sort: { createdAt: -1, _id: -1 },
      skip: (q.page - 1) * q.limit,
      limit: q.limit,
    });
    const approvals = found.items.map(({ _id, _v, _instance, _class, ...doc }) => listingRow(doc));
    return { approvals, totalCount: found.total, page: q.page, limit: q.limit, totalPages: Math.ceil(found.total / q.limit) };
  }
}
