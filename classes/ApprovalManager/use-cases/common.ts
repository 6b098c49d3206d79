/** What the ApprovalManager use cases share: reading a record's blobs, the record as callers see it, the in-handler permission check. */
import type { Operation } from 'rfc6902';
import { rolesGrant, type BaseCtx, type DeepReadonly } from '../../../runtime';
import { approvalView, largeApprovalFileName } from '../rules';
import { approvalError } from '../errors';
import type { ApprovalRecord } from '../types';

/** a record as handlers hold it: the draft of a WRITE or the frozen state of a READ */
export type RecordView = ApprovalRecord | DeepReadonly<ApprovalRecord>;

/** The full patch: inline, or read back from the blob of a large approval. */
export async function fullPatch(ctx: Pick<BaseCtx, 'ports'>, record: RecordView): Promise<Operation[]> {
  // a copy: a READ's record is frozen, and callers may hand the patch on
  if (!record.isLargeApproval) return [...record.jsonPatch];
  const name = record.largePatchFile ?? largeApprovalFileName(record.entityId, record.id);
  let blob: Awaited<ReturnType<BaseCtx['ports']['blobs']['get']>>;
  try {
    blob = await ctx.ports.blobs.get(name);
  } catch (err) {
    throw approvalError('APPROVAL_PATCH_UNAVAILABLE', `The patch of approval ${record.id} could not be read`, {
      file: name,
      error: (err as Error).message,
    });
  }
  if (!blob)
    throw approvalError('APPROVAL_PATCH_UNAVAILABLE', `The patch of approval ${record.id} is missing`, { file: name });
  return JSON.parse(blob.data.toString('utf8')) as Operation[];
}

/**
 * The old values of the patched paths: inline, or read back from their blob.
 * Unreadable or missing: undefined (the record is still answered, without its
 * `changes` view), logged.
 */
async function oldValuesOf(ctx: Pick<BaseCtx, 'ports' | 'log'>, record: RecordView): Promise<unknown> {
  if (!record.oldValuesFile) return record.oldValues;
  try {
    const blob = await ctx.ports.blobs.get(record.oldValuesFile);
    if (blob) return JSON.parse(blob.data.toString('utf8'));
    ctx.log.warn({ approvalId: record.id, file: record.oldValuesFile }, 'old values of an approval are missing');
  } catch (err) {
    ctx.log.warn(
      { approvalId: record.id, file: record.oldValuesFile, error: (err as Error).message },
      'old values of an approval could not be read',
    );
  }
  return undefined;
}

/** A record as callers see it: every field, the full patch and its before/after view (`changes`), no storage detail. */
export async function view(ctx: Pick<BaseCtx, 'ports' | 'log'>, record: RecordView, patch?: Operation[]) {
  return approvalView(record, patch ?? (await fullPatch(ctx, record)), await oldValuesOf(ctx, record));
}

/**
 * For program management users of methods declared `skipRoleCheck` because
 * approvers may call them without the permission: unless `allowed`, the
 * caller's active roles must grant the method, as the runtime's role check
 * would have demanded. Other identities were judged by the access list.
 */
export async function requirePermissionUnless(ctx: BaseCtx, allowed: boolean, why: string): Promise<void> {
  if (allowed || ctx.identity.type !== 'program_management_user') return;
  if (rolesGrant(await ctx.roles(), 'ApprovalManager', ctx.method)) return;
  throw approvalError(
    'APPROVAL_ACCESS_DENIED',
    `No role of this user grants ApprovalManager.${ctx.method}, and ${why}`,
    { method: ctx.method },
  );
}
