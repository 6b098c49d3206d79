/**
 * exportSubject: every record the service keeps about one subject (and its
 * dependants on request), gathered from each class that keeps personal data
 * (its exportSubjectData), answered as a ZIP archive with a JSON manifest.
 * The export itself is kept on its instance and audit-logged, without the
 * data it handed out.
 */
import { randomUUID } from 'node:crypto';
import JSZip from 'jszip';
import { actorFromIdentity } from '../../_platform/actor';
import { logChange } from '../../_platform/audit-log';
import type { Subject } from '../../_platform/personal-data';
import type { ExportSubjectInput } from '../../../schemas/DataSubject/inputs';
import { dataSubjectError } from '../errors';
import { archiveEntries, archiveFilename, exportRecord, type ArchivePart } from '../rules';
import type { ExportRecord } from '../types';
import { gather, type DataSubjectCtx, type DataSubjectStaticCtx } from './common';

/** the audit log's entity type of an export */
export const EXPORT_ENTITY_TYPE = 'data_subject_export';

export async function exportSubject(ctx: DataSubjectStaticCtx<ExportSubjectInput>) {
  const { subjectType, subjectId, includeDependants = false } = ctx.request.body;
  const subject: Subject = { type: subjectType, id: subjectId };
  const main = await gather(ctx, subject);
  const parts: ArchivePart[] = [{ subject, data: main }];
  if (includeDependants) {
    for (const dependant of main.related ?? []) parts.push({ subject: dependant, data: await gather(ctx, dependant) });
  }
  const head = {
    exportId: randomUUID(),
    generatedAt: new Date().toISOString(),
    subject,
    includeDependants,
    requestedBy: actorFromIdentity(ctx.identity),
  };
  const { manifest, entries } = archiveEntries(head, parts);
  const zip = new JSZip();
  for (const entry of entries) zip.file(entry.path, entry.content, { date: new Date(head.generatedAt) });
  const archive = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });

  // recorded and audit-logged before the archive is handed out: an export that cannot be recorded is not made
  const record = exportRecord(head, manifest, main.companyId ?? null, archive);
  await ctx.call('DataSubject', RECORD_EXPORT, record.id, record);
  ctx.response = {
    status: 201,
    body: archive,
    headers: {
      'content-type': 'application/zip',
      'content-disposition': `attachment; filename="${archiveFilename(record.id)}"`,
      'cache-control': 'no-store',
      'x-export-id': record.id,
    },
  };
}

/** the export's own record, written by exportSubject on a new instance */
export const RECORD_EXPORT = 'recordExport';

/** The export on its instance and in the audit log, in the name of whoever asked for it. */
export async function recordExport(ctx: DataSubjectCtx<ExportRecord>) {
  if (ctx.state.private.export || ctx.state.private.erasure)
    throw dataSubjectError('REQUEST_EXISTS', `Request '${ctx.instanceId}' exists`);
  const record = ctx.request.body;
  ctx.state.private.export = record;
  await logChange(ctx, {
    entityType: EXPORT_ENTITY_TYPE,
    entityId: record.id,
    before: null,
    after: record,
    actor: record.requestedBy,
    ...(record.companyId ? { companyId: record.companyId } : {}),
  });
  return { export: record };
}
