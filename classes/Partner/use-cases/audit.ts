/**
 * The partners' audit trail (spec 4.5 Partner getLogEntries, getLog): the
 * entries the Partner class wrote to LogManager (entity types `partner`,
 * `venue`, `partner_document`), read through LogManager's typed client.
 *
 * getLogEntries asks LogManager.getLogEntries for class `Partner` with the
 * caller's filters. getLog finds the entry's entity and time in LogManager's
 * listing (collection `logs`) and reads the entry through getLogEntries
 * narrowed to that entity and instant: LogManager.getLog, which restores large
 * values in full, admits program management users only, not classes, so
 * values over 1 KB are answered as getLogEntries answers them (previews,
 * `isLarge: true`); LogManager.getLog gives them whole.
 */
import { client } from '../../../runtime';
import type { LogManager } from '../../LogManager/LogManager.class';
import { listingInput, problemsText } from '../../_platform/paging';
import { partnerError } from '../errors';
import { parseLogQuery } from '../rules';
import type { PartnerLogBody, PartnerLogQueryBody } from '../types';
import type { PartnerStaticCtx } from './common';

const logs = (ctx: PartnerStaticCtx<unknown>) => client<typeof LogManager>(ctx, 'LogManager');

/** LogManager's listing collection and the fields of it getLog reads */
const LOGS_COLLECTION = 'logs';
const LOG_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** `{entries, totalCount, page, limit, totalPages}`, newest first; 400 17010 (17018 for from after to) naming the field. */
export async function getLogEntries(ctx: PartnerStaticCtx<PartnerLogQueryBody>) {
  const parsed = parseLogQuery(listingInput(ctx));
  if (!parsed.ok) {
    const message = `Invalid query: ${problemsText(parsed.errors)}`;
    throw partnerError(parsed.range ? 'PARTNER_INVALID_DATE_RANGE' : 'INVALID_QUERY', message, { errors: parsed.errors });
  }
  return logs(ctx).getLogEntries(undefined, parsed.query);
}

/** One entry of the Partner class by its id (`logId`, body or query); 404 17017 for any other id. */
export async function getLog(ctx: PartnerStaticCtx<PartnerLogBody>) {
  const { logId } = listingInput(ctx);
  if (typeof logId !== 'string' || logId === '') {
    throw partnerError('INVALID_QUERY', 'logId is required', { errors: [{ field: 'logId', reason: 'is required (a string, in the body or the query)' }] });
  }
  const notFound = () => partnerError('PARTNER_LOG_NOT_FOUND', `No audit entry '${logId}' of the Partner class`, { logId });
  if (!LOG_ID.test(logId)) throw notFound();
  const listed = await ctx.documents.get(LOGS_COLLECTION, logId);
  if (!listed || listed.classId !== 'Partner' || typeof listed.timeStamp !== 'string') throw notFound();
  const page = await logs(ctx).getLogEntries(undefined, {
    classId: 'Partner',
    entityType: String(listed.entityType),
    entityId: String(listed.entityId),
    from: listed.timeStamp,
    to: listed.timeStamp,
    limit: 100,
  });
  const entry = page.entries.find((e) => e.id === logId);
  if (!entry) throw notFound();
  return entry;
}
