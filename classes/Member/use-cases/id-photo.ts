/**
 * ID photos (spec 4.1, 3.1): the HR system's updateEmployeePhoto, the back
 * office's and the member's own uploads, all waiting for approval
 * (MEMBER_ID_PHOTO_UPLOAD), and the approval callback.
 */
import { actorFromIdentity } from '../../_platform/actor';
import { runWorkflow, type ApprovalCallbackBody } from '../../_platform/workflow';
import { logChange } from '../../_platform/audit-log';
import { fieldError, memberError } from '../errors';
import {
  ALLOWED_PHOTO_EXTENSIONS,
  checkPhotoExtension,
  invalidExtensionError,
  PHOTO_MIME,
  photoUploadFailed,
} from '../hr-contract';
import { clone, hasActiveMembership, logMemberChange, memberState, profileOf, type MemberCtx } from '../member-state';
import { nextMemberStatus } from '../status-machine';
import type { MemberProfile, PendingPhoto } from '../types';
import { MEMBER_PHOTO_EVENT, reachable } from './common';
import { downloadLink, fileError, storeMemberFile, storeMemberFileMeta } from './files';
import type { IdPhotoInput, UpdateEmployeePhotoInput } from '../../../schemas/Member/inputs';

/** Spec 4.1: the HR system sends a new ID photo; it waits for approval (MEMBER_ID_PHOTO_UPLOAD). */

export async function updateEmployeePhoto(ctx: MemberCtx<UpdateEmployeePhotoInput>) {
  const { photo, fileExtension } = ctx.request.body;
  const ext = checkPhotoExtension(fileExtension);
  if (!ext) throw invalidExtensionError(fileExtension);
  const profile = profileOf(ctx);
  let filename: string;
  try {
    filename = await storeMemberFile(ctx, profile.id, {
      content: photo,
      mimeType: PHOTO_MIME[ext],
      originalFilename: `${profile.staffId ?? profile.id}-id-photo.${ext}`,
    });
  } catch (err) {
    ctx.log.warn({ err }, 'employee photo upload failed');
    throw photoUploadFailed(err);
  }
  await submitIdPhoto(ctx, filename, 'hr');
  return { success: true };
}

/**
 * A new ID photo (stored already) waits for approval: MEMBER_ID_PHOTO_UPLOAD.
 * The member keeps its current photo until the approval; a newer upload
 * replaces a photo still waiting (its approval is then ignored). When the
 * rules approve at once, the photo is applied now.
 */
export async function submitIdPhoto(
  ctx: MemberCtx<unknown>,
  filename: string,
  source: PendingPhoto['source'],
): Promise<{ approvalId: string; approved: boolean }> {
  const state = memberState(ctx);
  const profile = profileOf(ctx);
  const statusOnApproval = nextMemberStatus(profile.status, {
    type: 'idPhotoUploaded',
    hasActiveMembership: hasActiveMembership(profile),
  });
  const newEntity: MemberProfile = {
    ...profile,
    idPhoto: filename,
    status: statusOnApproval.ok ? statusOnApproval.to : profile.status,
  };
  const wf = await runWorkflow(ctx, {
    event: MEMBER_PHOTO_EVENT,
    entityId: profile.id,
    oldEntity: profile,
    newEntity,
    approveCallback: 'approveMemberIdPhoto',
    rejectCallback: 'approveMemberIdPhoto',
    additionalData: { source, previousIdPhoto: profile.idPhoto ?? null, newIdPhoto: filename },
  });
  const pending: PendingPhoto = {
    approvalId: wf.approvalRecord.id,
    idPhoto: filename,
    previousIdPhoto: profile.idPhoto ?? null,
    statusOnApproval: newEntity.status,
    source,
    uploadedBy: actorFromIdentity(ctx.identity),
    uploadedAt: new Date().toISOString(),
  };
  if (wf.isApproved) {
    state.pendingPhoto = pending;
    await applyPhoto(ctx, pending, wf.approvalRecord.id, 'approve');
    return { approvalId: wf.approvalRecord.id, approved: true };
  }
  const supersededApprovalId = state.pendingPhoto?.approvalId ?? null;
  state.pendingPhoto = pending;
  // the submission is an audit entry of its own (spec 4.1 rule 5); the photo itself changes on approval
  await logChange(ctx, {
    entityType: 'member',
    entityId: profile.id,
    before: { pendingIdPhoto: null },
    after: { pendingIdPhoto: filename },
    additionalData: { event: MEMBER_PHOTO_EVENT, approvalId: wf.approvalRecord.id, source, supersededApprovalId },
  });
  return { approvalId: wf.approvalRecord.id, approved: false };
}

async function applyPhoto(
  ctx: MemberCtx<unknown>,
  pending: PendingPhoto,
  approvalId: string,
  action: 'approve' | 'reject',
) {
  const state = memberState(ctx);
  const before = clone(profileOf(ctx));
  let after = before;
  if (action === 'approve') {
    // the status move of 3.1 is decided now, with the memberships the member has now
    const r = nextMemberStatus(before.status, {
      type: 'idPhotoUploaded',
      hasActiveMembership: hasActiveMembership(before),
    });
    after = {
      ...before,
      idPhoto: pending.idPhoto,
      status: r.ok ? r.to : before.status,
      updatedAt: new Date().toISOString(),
    };
    state.previousIdPhoto = before.idPhoto ?? null;
  }
  state.profile = after;
  state.pendingPhoto = null;
  state.lastApprovalId = approvalId;
  if (action === 'approve')
    await logMemberChange(ctx, before, after, { event: MEMBER_PHOTO_EVENT, approvalId, source: pending.source });
  return { member: after, action };
}

/** approveMemberIdPhoto: the approval outcome of a photo (a superseded approval changes nothing). */
export async function settleIdPhoto(ctx: MemberCtx<ApprovalCallbackBody>) {
  const body = ctx.request.body;
  const state = memberState(ctx);
  const pending = state.pendingPhoto;
  if (!pending || pending.approvalId !== body.approvalId) {
    return { ignored: true, reason: 'superseded or already settled', approvalId: body.approvalId };
  }
  return applyPhoto(ctx, pending, body.approvalId, body.action === 'approve' ? 'approve' : 'reject');
}

async function storePhoto(
  ctx: MemberCtx<IdPhotoInput>,
  p: MemberProfile,
  source: 'program_management_user' | 'enduser',
) {
  const { photo, fileExtension } = ctx.request.body;
  const ext = checkPhotoExtension(fileExtension);
  if (!ext) {
    throw fieldError(
      'INVALID_FILE',
      'fileExtension',
      `Invalid file extension '${fileExtension}'. Allowed extensions: ${ALLOWED_PHOTO_EXTENSIONS.join(', ')}`,
      {
        allowed: ALLOWED_PHOTO_EXTENSIONS,
      },
    );
  }
  let file;
  try {
    file = await storeMemberFileMeta(ctx, p.id, {
      content: photo,
      mimeType: PHOTO_MIME[ext],
      originalFilename: `${p.staffId ?? p.id}-id-photo.${ext}`,
    });
  } catch (err) {
    throw fileError(err, { content: 'photo', type: 'fileExtension' });
  }
  const submitted = await submitIdPhoto(ctx, file.filename, source);
  return { filename: file.filename, ...submitted };
}

export async function uploadMemberIdPhoto(ctx: MemberCtx<IdPhotoInput>) {
  const p = reachable(ctx);
  const r = await storePhoto(ctx, p, 'program_management_user');
  return { idPhoto: r.filename, approvalId: r.approvalId, approved: r.approved, member: memberState(ctx).profile };
}

export async function uploadMyIdPhoto(ctx: MemberCtx<IdPhotoInput>) {
  const p = reachable(ctx);
  if (p.status !== 'active' && p.status !== 'pending_id_photo') {
    throw memberError(
      'PHOTO_UPLOAD_NOT_ALLOWED',
      `A member in status '${p.status}' cannot upload an ID photo (only active or pending_id_photo)`,
    );
  }
  const r = await storePhoto(ctx, p, 'enduser');
  return {
    approvalId: r.approvalId,
    approved: r.approved,
    status: memberState(ctx).profile.status,
    photo: { filename: r.filename, ...(await downloadLink(ctx, p.id, r.filename)) },
  };
}
