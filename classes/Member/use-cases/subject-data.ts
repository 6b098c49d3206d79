/**
 * exportSubjectData (STATIC, DataSubject only): what Member keeps about one
 * member, for a personal-data export (classes/_platform/personal-data.ts).
 *
 * A STATIC holds no instance, so the member's own READ, subjectRecordsOf
 * (class:Member only), gathers it: the instance's state (secrets left out,
 * subject-data-rules.ts), its held HR push, its documents in the document
 * store and its entries in the HR ledger. The call carries the caller's
 * company, so the runtime's company scope refuses a company user's export of
 * another company's member on that read (403 1023), as for any other read.
 */
import { isUnknownInstance, type JournalEntry } from '../../../runtime';
import { noSubjectData, type SubjectData, type SubjectRecord } from '../../_platform/personal-data';
import type { ExportSubjectDataInput } from '../../../schemas/Member/inputs';
import { memberError } from '../errors';
import { HR_JOURNAL } from '../hr-ledger';
import { memberDocuments } from '../listing-rules';
import { memberState, profileOf, type MemberReadCtx, type MemberStaticCtx } from '../member-state';
import {
  instanceRecords,
  ledgerRecords,
  MEMBER_CLASS_ID,
  mayBeMemberId,
  relatedSubjects,
  staffIdsOf,
  subjectCompany,
  traceValues,
} from '../subject-data-rules';
import type { hrEmployeeSnapshot } from './hr-employee';
import { members } from './self-client';

/** the most entries one page of the ledger gives (its reader's own limit) */
const LEDGER_PAGE = 100;

export async function exportSubjectData(ctx: MemberStaticCtx<ExportSubjectDataInput>): Promise<SubjectData> {
  const { subject } = ctx.request.body;
  if (subject.type !== 'member') return noSubjectData();
  const notFound = () => memberError('MEMBER_NOT_FOUND', `Member '${subject.id}' does not exist`);
  if (!mayBeMemberId(subject.id)) throw notFound();
  try {
    return await members<{ subjectRecordsOf: typeof subjectRecordsOf }>(ctx).subjectRecordsOf(subject.id);
  } catch (err) {
    // DataSubject reads the owner class's 404 as "no such subject"
    if (isUnknownInstance(err)) throw notFound();
    throw err;
  }
}

/** Everything Member keeps about this member (404 5000 when the instance holds no member). */
export async function subjectRecordsOf(ctx: MemberReadCtx): Promise<SubjectData> {
  const state = memberState(ctx);
  const profile = profileOf(ctx);
  const memberId = profile.id;
  const listed = await streamedRecords(ctx);
  const ledger = await hrLedgerRecords(ctx);
  return {
    records: [...instanceRecords(memberId, state), ...listed, ...ledger],
    files: [],
    related: relatedSubjects(profile),
    companyId: subjectCompany(profile),
    values: traceValues(profile),
  };
}

/** The member's documents in the collections Member streams it to, as the store holds them now. */
async function streamedRecords(ctx: MemberReadCtx): Promise<SubjectRecord[]> {
  const refs = memberDocuments(memberState(ctx), ctx.instanceId!);
  const records: SubjectRecord[] = [];
  for (const { collection, id } of refs) {
    const doc = await ctx.documents.get(collection, id);
    if (doc) records.push({ store: 'listing', classId: MEMBER_CLASS_ID, instanceId: id, kind: collection, data: doc });
  }
  return records;
}

/**
 * The member's entries in the HR ledger, found under its staff ids (a
 * dependant's: its employee's, where HR's dependant pushes are indexed).
 *
 * The ledger spans every company and is not kept per company: the runtime
 * refuses a company-bound reader, so a company user's export has none of it
 * (an internal user's has). A photo push addressed by member id rather than
 * staff id is not in the staff-id index, and would take a scan of the whole
 * ledger to find: it is not exported.
 */
async function hrLedgerRecords(ctx: MemberReadCtx): Promise<SubjectRecord[]> {
  if (ctx.tenancy.tenant !== undefined) return [];
  const profile = profileOf(ctx);
  const isDependant = Boolean(profile.primaryMemberId);
  const staffIds = isDependant ? await primaryStaffIds(ctx, profile.primaryMemberId!) : staffIdsOf(profile);
  const entries: JournalEntry[] = [];
  for (const subject of staffIds) {
    let cursor: string | undefined;
    do {
      const page = await ctx.journals.list(HR_JOURNAL, { subject, limit: LEDGER_PAGE, cursor });
      entries.push(...page.entries);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  }
  return ledgerRecords(profile.id, isDependant, entries);
}

/** The staff ids of a dependant's employee; none when the employee is gone. */
async function primaryStaffIds(ctx: MemberReadCtx, primaryMemberId: string): Promise<string[]> {
  try {
    const { profile } = await members<{ hrEmployeeSnapshot: typeof hrEmployeeSnapshot }>(ctx).hrEmployeeSnapshot(
      primaryMemberId,
    );
    return staffIdsOf(profile);
  } catch (err) {
    if (isUnknownInstance(err)) return [];
    throw err;
  }
}
