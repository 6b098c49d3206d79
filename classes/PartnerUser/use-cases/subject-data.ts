/**
 * A partner user's data for DataSubject's export and erasure:
 * exportSubjectData and eraseSubjectData (STATIC, DataSubject only), and
 * readUserState and eraseUser, the READ and INTERNAL write they reach the user
 * with (a STATIC has no instance state of its own, and getUser admits
 * back-office users only).
 *
 * Company scope is the class's own (`SHARED_DATA`): a caller limited to a
 * company may read partner users, as getUser lets a company user; the answer's
 * `companyId: null` tells DataSubject that the subject is no company's. It may
 * change none: an erasure for a caller limited to a company is 403 1023 here.
 */
import type { StaticCtx } from '../../../runtime';
import { logChange } from '../../_platform/audit-log';
import { noSubjectData, ownSubjectRecord, type SubjectData, type SubjectErasure } from '../../_platform/personal-data';
import type {
  EraseSubjectDataInput,
  EraseUserInput,
  ExportSubjectDataInput,
} from '../../../schemas/PartnerUser/inputs';
import { partnerUserError } from '../errors';
import { EMAIL_LOOKUP, PARTNER_USERS_COLLECTION } from '../rules';
import {
  erasedRecordCount,
  erasedUserState,
  isErased,
  partnerUserSubjectData,
  subjectUserId,
} from '../subject-data-rules';
import type { PartnerUserState } from '../types';
import { actorId, ENTITY_TYPE, now, type PartnerUserCtx, type PartnerUserReadCtx } from './common';

/** The class's own READ, as the class file hands it over (its typed client). */
export interface UserStateReader {
  readUserState(userId: string): Promise<PartnerUserState>;
}

/** eraseUser's answer: whether this call erased the user (false: erased before) */
export interface UserErased {
  erased: boolean;
}

/** The class's own write, as the class file hands it over (its typed client). */
export interface UserEraser {
  eraseUser(userId: string, body: EraseUserInput): Promise<UserErased>;
}

function notFound(id: string) {
  return partnerUserError('PARTNER_USER_NOT_FOUND', `No partner user '${id}'`, { id });
}

/**
 * → {records: the user's state and listing document, files: [], companyId: null}; nothing for another subject
 * type; 404 17110 for a user that does not exist.
 */
export async function exportSubjectData(
  ctx: StaticCtx<ExportSubjectDataInput>,
  self: UserStateReader,
): Promise<SubjectData> {
  const { subject } = ctx.request.body;
  if (subject.type !== 'partner_user') return noSubjectData();
  const userId = subjectUserId(subject);
  if (userId === undefined) throw notFound(subject.id);
  const state = await ownSubjectRecord(self.readUserState(userId), () => notFound(subject.id));
  const document = await ctx.documents.get(PARTNER_USERS_COLLECTION, userId);
  return partnerUserSubjectData(userId, state, document);
}

/** readUserState (this class only): the user's state as stored (it holds no secret). */
export function readUserState(ctx: PartnerUserReadCtx): PartnerUserState {
  return structuredClone(ctx.state.private) as PartnerUserState;
}

/**
 * → {records: the user's state and its listing document, files: 0}, erased (subject-data-rules.ts
 * erasedUserState); zeros for another subject type or a user erased before; 404 17110 for a user that does not
 * exist. Partner users are no company's: a caller limited to a company erases none (403 1023), as it changes none.
 */
export async function eraseSubjectData(
  ctx: StaticCtx<EraseSubjectDataInput>,
  self: UserEraser,
): Promise<SubjectErasure> {
  const { subject, erasureId } = ctx.request.body;
  if (subject.type !== 'partner_user') return { records: 0, files: 0 };
  ctx.tenancy.check(null, `Partner user '${subject.id}' (partner users belong to no company)`);
  const userId = subjectUserId(subject);
  if (userId === undefined) throw notFound(subject.id);
  const { erased } = await ownSubjectRecord(self.eraseUser(userId, { erasureId }), () => notFound(subject.id));
  const listed = erased && (await ctx.documents.get(PARTNER_USERS_COLLECTION, userId)) !== null;
  return { records: erasedRecordCount(erased, listed), files: 0 };
}

/**
 * eraseUser (INTERNAL, this class only): the user's state erased, its `email` lookup key released, and an audit
 * entry of the fact without any personal value (status and the erasure's id and time); {erased: false}, writing
 * nothing, when it was erased before. It reads the state directly: `st` refuses every write of an erased user.
 */
export async function eraseUser(ctx: PartnerUserCtx<EraseUserInput>): Promise<UserErased> {
  const before = ctx.state.private;
  if (isErased(before.user)) return { erased: false };
  const at = now();
  const { erasureId } = ctx.request.body;
  const after = erasedUserState(before, erasureId, actorId(ctx), at);
  ctx.state.private = after;
  ctx.lookup.remove(EMAIL_LOOKUP);
  await logChange(ctx, {
    entityType: ENTITY_TYPE,
    entityId: after.user.id,
    before: { status: before.user.status, erasedAt: null, erasureId: null },
    after: { status: after.user.status, erasedAt: at, erasureId },
    additionalData: { event: 'subject_erasure', erasureId },
  });
  return { erased: true };
}
