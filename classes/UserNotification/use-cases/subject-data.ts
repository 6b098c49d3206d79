/**
 * A data subject's inbox for DataSubject's export and erasure:
 * exportSubjectData and eraseSubjectData (STATIC, DataSubject only), and
 * readInbox and eraseInbox, the READ and INTERNAL write they reach the inbox
 * with (a STATIC has no instance state of its own).
 *
 * Company scope: an inbox keeps its owner's user id, not the owner's company.
 * A caller limited to a company is checked against the subject's company as
 * DataSubject hands it over (`subjectCompanyId`, which the subject's own class
 * answered within the caller's scope): another company's subject, or a call
 * that names no company, is 403 1023. readInbox and eraseInbox are open to
 * this class alone and reached only after that check.
 */
import { isUnknownInstance, type DeepReadonly, type StaticCtx } from '../../../runtime';
import { noSubjectData, type SubjectData, type SubjectErasure } from '../../_platform/personal-data';
import type {
  EraseInboxInput,
  EraseSubjectDataInput,
  ExportSubjectDataInput,
  ReadInboxInput,
} from '../../../schemas/UserNotification/inputs';
import { erasedInbox, inboxRecords, subjectInboxId } from '../subject-data-rules';
import type { NotificationItem } from '../types';
import { ownerOf, type UNCtx, type UNReadCtx } from './common';

/** readInbox's answer: the inbox's items as stored, oldest first */
export interface InboxAnswer {
  items: DeepReadonly<NotificationItem[]>;
}

/** The class's own READ, as the class file hands it over (its typed client). */
export interface InboxReader {
  readInbox(inboxId: string): Promise<InboxAnswer>;
}

/** eraseInbox's answer: how many items went */
export interface InboxErasure {
  removed: number;
}

/** The class's own write, as the class file hands it over (its typed client). */
export interface InboxEraser {
  eraseInbox(inboxId: string): Promise<InboxErasure>;
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

/**
 * → {records: the items removed from the subject's inbox, files: 0}; zeros for a partner user, an inbox never
 * written (none is created), or one erased already. Company scope as exportSubjectData's.
 */
export async function eraseSubjectData(
  ctx: StaticCtx<EraseSubjectDataInput>,
  self: InboxEraser,
): Promise<SubjectErasure> {
  const { subject, subjectCompanyId } = ctx.request.body;
  const inboxId = subjectInboxId(subject);
  if (inboxId === undefined) return { records: 0, files: 0 };
  ctx.tenancy.check(subjectCompanyId, `The inbox of ${subject.type} '${subject.id}'`);
  try {
    const { removed } = await self.eraseInbox(inboxId);
    return { records: removed, files: 0 };
  } catch (err) {
    // an inbox never written holds nothing (and is not created by its erasure)
    if (isUnknownInstance(err)) return { records: 0, files: 0 };
    throw err;
  }
}

/** eraseInbox (INTERNAL, this class only): every item removed; `removed` 0 when none is left. */
export function eraseInbox(ctx: UNCtx<EraseInboxInput>): InboxErasure {
  ownerOf(ctx);
  const s = ctx.state.private;
  const { items, removed } = erasedInbox(s.items ?? []);
  // nothing to write when nothing is left: a second erasure changes no state
  if (removed > 0) s.items = items;
  return { removed };
}
