/**
 * DataSubject's pure rules: which classes hold personal data, which of them
 * owns a subject, who may export whose data, and what an export archive
 * contains (its entries and its manifest).
 */
import { createHash } from 'node:crypto';
import type { Actor } from '../_platform/actor';
import {
  subjectOwnerClass,
  type Subject,
  type SubjectData,
  type SubjectRecord,
  type SubjectType,
} from '../_platform/personal-data';
import type { ExportRecord } from './types';

/**
 * Every class that keeps personal data and answers exportSubjectData (the
 * subject's own class first). A class that starts keeping personal data
 * declares the method and joins this list; test/DataSubject checks the
 * list against the classes that declare it.
 */
export const SUBJECT_DATA_CLASSES = [
  'Member',
  'ProgramManagementUser',
  'PartnerUser',
  'FileManager',
  'LogManager',
  'ApprovalManager',
  'UserNotification',
  'Otp',
] as const;

/**
 * Why a caller may not export a subject, or null when it may: a company user
 * (tenant set) reaches only subjects of its own company; a subject of no
 * company (a partner user, an internal back-office user) is for internal users.
 */
export function scopeRefusal(tenant: string | undefined, companyId: string | null | undefined): string | null {
  if (tenant === undefined) return null;
  if (!companyId) return 'the subject belongs to no company: only internal users may export it';
  if (companyId !== tenant) return "the subject belongs to another company than the caller's";
  return null;
}

/** What one subject's classes answered, merged (the owner's `related` and `companyId` kept). */
export function mergeSubjectData(owner: SubjectData, others: readonly SubjectData[]): SubjectData {
  return {
    records: [...owner.records, ...others.flatMap((d) => d.records)],
    files: [...owner.files, ...others.flatMap((d) => d.files)],
    ...(owner.related ? { related: owner.related } : {}),
    ...(owner.companyId !== undefined ? { companyId: owner.companyId } : {}),
  };
}

/**
 * A path segment from an id or a stored name: only `[A-Za-z0-9_.-]` (anything
 * else becomes `_`), never `.` or `..`, at most 120 characters. Ids are the
 * service's own, but an archive is unpacked on someone's disk: no segment may
 * climb out of its folder or carry a separator.
 */
export function pathSegment(text: string): string {
  const safe = text.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 120);
  return safe === '' || /^\.+$/.test(safe) ? `_${safe}` : safe;
}

export interface ArchivePart {
  subject: Subject;
  data: SubjectData;
}

export interface ManifestRecord {
  path: string;
  subject: Subject;
  store: SubjectRecord['store'];
  classId: string;
  instanceId: string;
  kind: string;
}

export interface ManifestFile {
  path: string;
  subject: Subject;
  classId: string;
  instanceId: string;
  name: string;
  kind: string;
  contentType: string;
  size: number;
  sha256: string;
}

export interface ExportManifest {
  format: 'membership-subject-export/1';
  exportId: string;
  generatedAt: string;
  subject: Subject;
  includeDependants: boolean;
  subjects: Subject[];
  requestedBy: Actor;
  records: ManifestRecord[];
  files: ManifestFile[];
}

export interface ArchiveEntry {
  path: string;
  content: Buffer;
}

export interface ArchiveHead {
  exportId: string;
  generatedAt: string;
  subject: Subject;
  includeDependants: boolean;
  requestedBy: Actor;
}

function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * The archive's entries: `manifest.json` first, then per subject
 * `<type>-<id>/records/<store>/<nnnn>-<class>-<kind>.json` (each the record as
 * its class answered it, with where it was kept) and
 * `<type>-<id>/files/<class>/<instance>/<name>` (the content). The manifest
 * lists every entry with its origin; files carry their size and SHA-256.
 */
export function archiveEntries(
  head: ArchiveHead,
  parts: readonly ArchivePart[],
): {
  manifest: ExportManifest;
  entries: ArchiveEntry[];
} {
  const entries: ArchiveEntry[] = [];
  const records: ManifestRecord[] = [];
  const files: ManifestFile[] = [];
  const taken = new Set<string>();
  const unique = (path: string): string => {
    let candidate = path;
    for (let n = 2; taken.has(candidate); n += 1) candidate = path.replace(/(\.[^./]*)?$/, (ext) => `-${n}${ext}`);
    taken.add(candidate);
    return candidate;
  };
  for (const { subject, data } of parts) {
    const root = `${pathSegment(subject.type)}-${pathSegment(subject.id)}`;
    data.records.forEach((r, i) => {
      const path = unique(
        `${root}/records/${pathSegment(r.store)}/${String(i + 1).padStart(4, '0')}-${pathSegment(r.classId)}-${pathSegment(r.kind)}.json`,
      );
      const meta = { store: r.store, classId: r.classId, instanceId: r.instanceId, kind: r.kind };
      entries.push({ path, content: Buffer.from(`${JSON.stringify({ ...meta, data: r.data }, null, 2)}\n`, 'utf8') });
      records.push({ path, subject, ...meta });
    });
    for (const f of data.files) {
      const path = unique(
        `${root}/files/${pathSegment(f.classId)}/${pathSegment(f.instanceId)}/${pathSegment(f.name)}`,
      );
      const content = Buffer.from(f.contentBase64, 'base64');
      entries.push({ path, content });
      files.push({
        path,
        subject,
        classId: f.classId,
        instanceId: f.instanceId,
        name: f.name,
        kind: f.kind,
        contentType: f.contentType,
        size: content.length,
        sha256: sha256(content),
      });
    }
  }
  const manifest: ExportManifest = {
    format: 'membership-subject-export/1',
    exportId: head.exportId,
    generatedAt: head.generatedAt,
    subject: head.subject,
    includeDependants: head.includeDependants,
    subjects: parts.map((p) => p.subject),
    requestedBy: head.requestedBy,
    records,
    files,
  };
  const manifestEntry = { path: 'manifest.json', content: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) };
  return { manifest, entries: [manifestEntry, ...entries] };
}

/** The export as the instance and the audit log keep it: counts and the archive's digest, no personal values. */
export function exportRecord(
  head: ArchiveHead,
  manifest: ExportManifest,
  companyId: string | null,
  archive: Buffer,
): ExportRecord {
  return {
    id: head.exportId,
    subject: head.subject,
    includeDependants: head.includeDependants,
    subjects: manifest.subjects,
    companyId,
    requestedBy: head.requestedBy,
    requestedAt: head.generatedAt,
    recordCount: manifest.records.length,
    fileCount: manifest.files.length,
    archiveSha256: sha256(archive),
  };
}

/** The archive's download name: the export id only (no personal value in a header). */
export function archiveFilename(exportId: string): string {
  return `subject-export-${pathSegment(exportId)}.zip`;
}

/** the workflow event of an erasure (workflow-configs/DataSubject.json): it waits for an approver */
export const ERASURE_EVENT = 'subject_erasure';

/**
 * The shortest value searched for in the records outside the classes: a
 * shorter one (an initial, a two-letter name) would match records of many
 * other people.
 */
export const MIN_TRACE_LENGTH = 3;

/** The subjects' values to search traces for: trimmed, each once, none shorter than MIN_TRACE_LENGTH. */
export function traceValues(values: readonly (readonly string[] | undefined)[]): string[] {
  const out = new Set<string>();
  for (const list of values)
    for (const v of list ?? []) {
      const value = typeof v === 'string' ? v.trim() : '';
      if (value.length >= MIN_TRACE_LENGTH) out.add(value);
    }
  return [...out];
}

/** What the erasure did, per class, summed over its subjects (classes in the order first seen). */
export function sumErased(
  counts: readonly { classId: string; records: number; files: number }[],
): { classId: string; records: number; files: number }[] {
  const by = new Map<string, { classId: string; records: number; files: number }>();
  for (const c of counts) {
    const held = by.get(c.classId) ?? { classId: c.classId, records: 0, files: 0 };
    held.records += c.records;
    held.files += c.files;
    by.set(c.classId, held);
  }
  return [...by.values()];
}

/**
 * The order in which classes erase a subject: the subject's own class last,
 * so that until the end it still says the subject exists and what its
 * company is (a retried erasure finds it).
 */
export function erasureOrder(type: SubjectType): string[] {
  const owner = subjectOwnerClass(type);
  return [...SUBJECT_DATA_CLASSES.filter((c) => c !== owner), owner];
}
