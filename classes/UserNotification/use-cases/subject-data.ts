/**
 * A data subject's inbox for DataSubject's export: exportSubjectData
 * (STATIC, DataSubject only) and readInbox, the READ it reads the inbox with
 * (a STATIC has no instance state of its own).
 *
 * Company scope: an inbox keeps its owner's user id, not the owner's company.
 * A caller limited to a company is checked against the subject's company as
 * DataSubject hands it over (`subjectCompanyId`, which the subject's own class
 * answered within the caller's scope): another company's subject, or a call
 * that names no company, is 403 1023. readInbox is open to this class alone
 * and reached only after that check.
 */
import type { DeepReadonly, StaticCtx } from '../../../runtime';
import { noSubjectData, type SubjectData } from '../../_platform/personal-data';
import type { ExportSubjectDataInput, ReadInboxInput } from '../../../schemas/UserNotification/inputs';
import { inboxRecords, subjectInboxId } from '../subject-data-rules';
import type { NotificationItem } from '../types';
import { ownerOf, type UNReadCtx } from './common';

/** readInbox's answer: the inbox's items as stored, oldest first */
export interface InboxAnswer {
  items: DeepReadonly<NotificationItem[]>;
}

/** The class's own READ, as the class file hands it over (its typed client). */
export interface InboxReader {
  readInbox(inboxId: string): Promise<InboxAnswer>;
}

/** → {records: one per item of the subject's inbox, files: []}; nothing for a partner user, or an inbox never written. */
export async function exportSubjectData(
  ctx: StaticCtx<ExportSubjectDataInput>,
  self: InboxReader,
): Promise<SubjectData> {
  const { subject, subjectCompanyId } = ctx.request.body;
  const inboxId = subjectInboxId(subject);
  if (inboxId === undefined) return noSubjectData();
  ctx.tenancy.check(subjectCompanyId, `The inbox of ${subject.type} '${subject.id}'`);
  const { items } = await self.readInbox(inboxId);
  return { records: inboxRecords(inboxId, items), files: [] };
}

/** readInbox (this class only; a missing inbox reads as empty): the items as stored. */
export function readInbox(ctx: UNReadCtx<ReadInboxInput>): InboxAnswer {
  ownerOf(ctx);
  return { items: ctx.state.private.items ?? [] };
}
