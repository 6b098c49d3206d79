/**
 * A back-office user's data for DataSubject's export: exportSubjectData
 * (STATIC, DataSubject only) and readUserState, the READ it reads the user
 * with (a STATIC has no instance state of its own). The state leaves the
 * instance without the password hash (subject-data-rules.ts), as
 * verifyCredentials keeps it there.
 *
 * Company scope is the class's own (`ownedByCompany`): a caller limited to a
 * company reaches its company's users only, so readUserState on another
 * company's user, or on an internal user, is the runtime's 403 1023; the
 * listing document is read through the same scope.
 */
import type { StaticCtx } from '../../../runtime';
import { isAbsentRecord } from '../../_platform/calls';
import { noSubjectData, type SubjectData } from '../../_platform/personal-data';
import type { ExportSubjectDataInput } from '../../../schemas/ProgramManagementUser/inputs';
import { userError } from '../errors';
import { USERS_COLLECTION } from '../rules';
import { exportedUserState, subjectUserId, userSubjectData, type ExportedUserState } from '../subject-data-rules';
import type { UserReadCtx } from './common';

/** The class's own READ, as the class file hands it over (its typed client). */
export interface UserStateReader {
  readUserState(userId: string): Promise<ExportedUserState>;
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
  let state: ExportedUserState;
  try {
    state = await self.readUserState(userId);
  } catch (err) {
    if (isAbsentRecord(err)) throw notFound(subject.id);
    throw err;
  }
  const document = await ctx.documents.get(USERS_COLLECTION, userId);
  return userSubjectData(userId, state, document);
}

/** readUserState (this class only): the user's state without its secrets. */
export function readUserState(ctx: UserReadCtx): ExportedUserState {
  return exportedUserState(ctx.state.private);
}
