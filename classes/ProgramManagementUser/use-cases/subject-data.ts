/**
 * A back-office user's data for DataSubject's export and erasure:
 * exportSubjectData and eraseSubjectData (STATIC, DataSubject only), and
 * readUserState and eraseUser, the READ and INTERNAL write they reach the user
 * with (a STATIC has no instance state of its own). The state leaves the
 * instance without the password hash (subject-data-rules.ts), as
 * verifyCredentials keeps it there.
 *
 * Company scope is the class's own (`ownedByCompany`): a caller limited to a
 * company reaches its company's users only, so readUserState or eraseUser on
 * another company's user, or on an internal user, is the runtime's 403 1023;
 * the listing document is read through the same scope.
 */
import type { StaticCtx } from '../../../runtime';
import { logChange } from '../../_platform/audit-log';
import { noSubjectData, ownSubjectRecord, type SubjectData, type SubjectErasure } from '../../_platform/personal-data';
import type {
  EraseSubjectDataInput,
  EraseUserInput,
  ExportSubjectDataInput,
} from '../../../schemas/ProgramManagementUser/inputs';
import { userError } from '../errors';
import { EMAIL_LOOKUP, USERS_COLLECTION } from '../rules';
import {
  erasedRecordCount,
  erasedUserState,
  exportedUserState,
  isErased,
  subjectUserId,
  userSubjectData,
  type ExportedUserState,
} from '../subject-data-rules';
import { ENTITY_TYPE, now, type UserCtx, type UserReadCtx } from './common';
import { TOKEN_TYPE } from './sign-in';

/** The class's own READ, as the class file hands it over (its typed client). */
export interface UserStateReader {
  readUserState(userId: string): Promise<ExportedUserState>;
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
  return userError('PM_USER_NOT_FOUND', `No back-office user '${id}'`, { id });
}

/**
 * → {records: the user's state and listing document, files: [], companyId}; nothing for another subject type;
 * 404 4022 for a user that does not exist.
 */
export async function exportSubjectData(
  ctx: StaticCtx<ExportSubjectDataInput>,
  self: UserStateReader,
): Promise<SubjectData> {
  const { subject } = ctx.request.body;
  if (subject.type !== 'program_management_user') return noSubjectData();
  const userId = subjectUserId(subject);
  if (userId === undefined) throw notFound(subject.id);
  const state = await ownSubjectRecord(self.readUserState(userId), () => notFound(subject.id));
  const document = await ctx.documents.get(USERS_COLLECTION, userId);
  return userSubjectData(userId, state, document);
}

/** readUserState (this class only): the user's state without its secrets. */
export function readUserState(ctx: UserReadCtx): ExportedUserState {
  return exportedUserState(ctx.state.private);
}

/**
 * → {records: the user's state and its listing document, files: 0}, erased (subject-data-rules.ts
 * erasedUserState); zeros for another subject type or a user erased before; 404 4022 for a user that does not
 * exist. The user's sessions end on every call (refresh tokens revoked, the identity answer forgotten), so a
 * retry after a failure between the erasure and the revocation still ends them.
 */
export async function eraseSubjectData(
  ctx: StaticCtx<EraseSubjectDataInput>,
  self: UserEraser,
): Promise<SubjectErasure> {
  const { subject, erasureId } = ctx.request.body;
  if (subject.type !== 'program_management_user') return { records: 0, files: 0 };
  const userId = subjectUserId(subject);
  if (userId === undefined) throw notFound(subject.id);
  const { erased } = await ownSubjectRecord(self.eraseUser(userId, { erasureId }), () => notFound(subject.id));
  // after the commit: from now on no sign-in makes a new session, and every one made before ends here
  await ctx.tokens.revokeAll(userId, TOKEN_TYPE);
  const listed = erased && (await ctx.documents.get(USERS_COLLECTION, userId)) !== null;
  return { records: erasedRecordCount(erased, listed), files: 0 };
}

/**
 * eraseUser (INTERNAL, this class only): the user's state erased, its `email` lookup key released, and an audit
 * entry of the fact without any personal value (status and the erasure's id and time); {erased: false}, writing
 * nothing, when it was erased before. It reads the state directly: `st` refuses every write of an erased user.
 */
export async function eraseUser(ctx: UserCtx<EraseUserInput>): Promise<UserErased> {
  const before = ctx.state.private;
  if (isErased(before.user)) return { erased: false };
  const at = now();
  const { erasureId } = ctx.request.body;
  const after = erasedUserState(before, erasureId, at);
  ctx.state.private = after;
  ctx.lookup.remove(EMAIL_LOOKUP);
  await logChange(ctx, {
    entityType: ENTITY_TYPE,
    entityId: after.user.id,
    before: { status: before.user.status, erasedAt: null, erasureId: null },
    after: { status: after.user.status, erasedAt: at, erasureId },
    additionalData: { event: 'subject_erasure', erasureId },
    ...(after.user.companyId ? { companyId: after.user.companyId } : {}),
  });
  return { erased: true };
}
