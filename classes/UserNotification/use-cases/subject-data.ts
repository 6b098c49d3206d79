/**
 * A data subject's inbox for DataSubject's export: exportSubjectData
 * (STATIC, DataSubject only) and readInbox, the READ it reads the inbox with
 * (a STATIC has no instance state of its own).
 *
 * Company scope: an inbox keeps its owner's user id, not the owner's company,
 * so this class cannot tell whether a subject belongs to a caller limited to
 * a company. Such a call is refused as the platform refuses a record that is
 * not the caller's company's (403 1023): an export for a company user gets
 * no inbox until the subject's company reaches this class some other way.
 */
import type { BaseCtx, DeepReadonly, StaticCtx } from '../../../runtime';
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

/** 403 1023 for a caller limited to a company: no inbox can be shown to be its company's. */
function checkScope(ctx: Pick<BaseCtx, 'tenancy'>, inboxId: string): void {
  ctx.tenancy.check(undefined, `Inbox ${inboxId} (an inbox keeps no company)`);
}

/** → {records: one per item of the subject's inbox, files: []}; nothing for a partner user, or an inbox never written. */
export async function exportSubjectData(
  ctx: StaticCtx<ExportSubjectDataInput>,
  self: InboxReader,
): Promise<SubjectData> {
  const inboxId = subjectInboxId(ctx.request.body.subject);
  if (inboxId === undefined) return noSubjectData();
  checkScope(ctx, inboxId);
  const { items } = await self.readInbox(inboxId);
  return { records: inboxRecords(inboxId, items), files: [] };
}

/** readInbox (this class only; a missing inbox reads as empty): the items as stored. */
export function readInbox(ctx: UNReadCtx<ReadInboxInput>): InboxAnswer {
  ownerOf(ctx);
  checkScope(ctx, ctx.instanceId!);
  return { items: ctx.state.private.items ?? [] };
}
