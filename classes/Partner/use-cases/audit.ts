/**
 * The partners' audit trail (spec 4.5 Partner getLogEntries, getLog): the
 * entries the Partner class wrote to LogManager (entity types `partner`,
 * `venue`, `partner_document`), read through LogManager's typed client.
 *
 * getLogEntries asks LogManager.getLogEntries for class `Partner` with the
 * caller's filters (a listing). getLog reads the one entry from its own
 * instance (LogManager.readEntry), never from the listing, and answers it
 * only when the Partner class wrote it: large values as getLogEntries answers
 * them (previews, `isLarge: true`); LogManager.getLog, which admits program
 * management users only, gives them whole.
 */
import { ActorError, client, isClassError, isUnknownInstance, RuntimeCodes } from '../../../runtime';
import type { LogManager, LogManagerErrorName } from '../../LogManager/LogManager.class';
import type { GetLogEntriesInput, LogRefInput } from '../../../schemas/Partner/inputs';
import { partnerError } from '../errors';
import { logQuery } from '../rules';
import type { PartnerStaticCtx } from './common';

const logs = (ctx: PartnerStaticCtx<unknown>) => client<typeof LogManager>(ctx, 'LogManager');

const LOG_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** LogManager's answers for an entry the caller cannot have */
function notThere(err: unknown): boolean {
  return (
    isUnknownInstance(err) ||
    isClassError<LogManagerErrorName>(err, 'LogManager', 'LOG_NOT_FOUND') ||
    (err instanceof ActorError && err.code === RuntimeCodes.OUT_OF_SCOPE.code)
  );
}

/** `{entries, totalCount, page, limit, totalPages}`, newest first; 400 17010 (17018 for from after to) naming the field. */
export async function getLogEntries(ctx: PartnerStaticCtx<GetLogEntriesInput>) {
  return logs(ctx).getLogEntries(undefined, logQuery(ctx.request.body));
}

/** One entry of the Partner class by its id (`logId`, body or query; its schema requires it); 404 17017 for any other id. */
export async function getLog(ctx: PartnerStaticCtx<LogRefInput>) {
  const { logId } = ctx.request.body;
  const notFound = () =>
    partnerError('PARTNER_LOG_NOT_FOUND', `No audit entry '${logId}' of the Partner class`, { logId });
  if (!LOG_ID.test(logId)) throw notFound();
  let entry;
  try {
    entry = await logs(ctx).readEntry(logId);
  } catch (err) {
    // no such entry, or one of a company the caller may not reach: not the Partner's to give either way
    if (notThere(err)) throw notFound();
    throw err;
  }
  if (entry.classId !== 'Partner') throw notFound();
  return entry;
}
