/**
 * exportSubject: every record the service keeps about one subject (and its
 * dependants on request), gathered from each class that keeps personal data
 * (its exportSubjectData), answered as a ZIP archive with a JSON manifest.
 * The export itself is kept on its instance and audit-logged, without the
 * data it handed out.
 */
import JSZip from 'jszip';
import type { Ctx } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { logChange } from '../../_platform/audit-log';
import { isAbsentRecord } from '../../_platform/calls';
import { SUBJECT_DATA_METHOD, type Subject, type SubjectData } from '../../_platform/personal-data';
import type { ExportSubjectInput } from '../../../schemas/DataSubject/inputs';
import { dataSubjectError } from '../errors';
import {
  archiveEntries,
  archiveFilename,
  exportRecord,
  mergeSubjectData,
  ownerClassOf,
  scopeRefusal,
  SUBJECT_DATA_CLASSES,
  type ArchivePart,
} from '../rules';
import type { DataSubjectClassState } from '../types';

export type DataSubjectCtx<I> = Ctx<DataSubjectClassState, I>;

/** the audit log's entity type of an export */
export const EXPORT_ENTITY_TYPE = 'data_subject_export';

async function askClass(ctx: DataSubjectCtx<unknown>, classId: string, subject: Subject): Promise<SubjectData> {
  return (await ctx.call(classId, SUBJECT_DATA_METHOD, undefined, { subject })).body as SubjectData;
}

/**
 * One subject's data from every class: its own class first (no such subject
 * there: 404; its company decides whether the caller may go on), then the
 * others side by side.
 */
async function gather(ctx: DataSubjectCtx<unknown>, subject: Subject): Promise<SubjectData> {
  const ownerClass = ownerClassOf(subject.type);
  let owner: SubjectData;
  try {
    owner = await askClass(ctx, ownerClass, subject);
  } catch (err) {
    if (isAbsentRecord(err)) throw dataSubjectError('SUBJECT_NOT_FOUND', `No ${subject.type} '${subject.id}'`);
    throw err;
  }
  const refusal = scopeRefusal(ctx.tenancy.tenant, owner.companyId);
  if (refusal) throw dataSubjectError('SUBJECT_OUT_OF_SCOPE', `${subject.type} '${subject.id}': ${refusal}`);
  const others = await Promise.all(
    SUBJECT_DATA_CLASSES.filter((c) => c !== ownerClass).map((c) => askClass(ctx, c, subject)),
  );
  return mergeSubjectData(owner, others);
}

export async function exportSubject(ctx: DataSubjectCtx<ExportSubjectInput>) {
  const { subjectType, subjectId, includeDependants = false } = ctx.request.body;
  const subject: Subject = { type: subjectType, id: subjectId };
  const main = await gather(ctx, subject);
  const parts: ArchivePart[] = [{ subject, data: main }];
  if (includeDependants) {
    for (const dependant of main.related ?? []) parts.push({ subject: dependant, data: await gather(ctx, dependant) });
  }
  const head = {
    exportId: ctx.instanceId!,
    generatedAt: new Date().toISOString(),
    subject,
    includeDependants,
    requestedBy: actorFromIdentity(ctx.identity),
  };
  const { manifest, entries } = archiveEntries(head, parts);
  const zip = new JSZip();
  for (const entry of entries) zip.file(entry.path, entry.content, { date: new Date(head.generatedAt) });
  const archive = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });

  const record = exportRecord(head, manifest, main.companyId ?? null, archive);
  ctx.state.private.export = record;
  await logChange(ctx, {
    entityType: EXPORT_ENTITY_TYPE,
    entityId: record.id,
    before: null,
    after: record,
    ...(record.companyId ? { companyId: record.companyId } : {}),
  });
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
