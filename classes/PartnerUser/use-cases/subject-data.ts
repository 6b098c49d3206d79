/**
 * A partner user's data for DataSubject's export: exportSubjectData (STATIC,
 * DataSubject only) and readUserState, the READ it reads the user with (a
 * STATIC has no instance state of its own, and getUser admits back-office
 * users only).
 *
 * Company scope is the class's own (`SHARED_DATA`): a caller limited to a
 * company may read partner users, as getUser lets a company user; the answer's
 * `companyId: null` tells DataSubject that the subject is no company's.
 */
import type { StaticCtx } from '../../../runtime';
import { isAbsentRecord } from '../../_platform/calls';
import { noSubjectData, type SubjectData } from '../../_platform/personal-data';
import type { ExportSubjectDataInput } from '../../../schemas/PartnerUser/inputs';
import { partnerUserError } from '../errors';
import { PARTNER_USERS_COLLECTION } from '../rules';
import { partnerUserSubjectData, subjectUserId } from '../subject-data-rules';
import type { PartnerUserState } from '../types';
import type { PartnerUserReadCtx } from './common';

/** The class's own READ, as the class file hands it over (its typed client). */
export interface UserStateReader {
  readUserState(userId: string): Promise<PartnerUserState>;
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
  let state: PartnerUserState;
  try {
    state = await self.readUserState(userId);
  } catch (err) {
    if (isAbsentRecord(err)) throw notFound(subject.id);
    throw err;
  }
  const document = await ctx.documents.get(PARTNER_USERS_COLLECTION, userId);
  return partnerUserSubjectData(userId, state, document);
}

/** readUserState (this class only): the user's state as stored (it holds no secret). */
export function readUserState(ctx: PartnerUserReadCtx): PartnerUserState {
  return structuredClone(ctx.state.private) as PartnerUserState;
}
