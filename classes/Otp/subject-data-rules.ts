/**
 * What Otp gives a data subject's export and erasure
 * (classes/_platform/personal-data.ts), pure: which instance holds the
 * subject's OTPs, what of a record is a secret and left out, the records the
 * export gets, and the entity's records once cleared. Unit-tested in
 * test/Otp/subject-data-rules.test.ts.
 */
import type { DeepReadonly } from '../../runtime';
import type { Subject, SubjectRecord } from '../_platform/personal-data';
import { otpInstanceId, parseInstanceId } from './rules';
import type { OtpRecord } from './types';

export const CLASS_ID = 'Otp';
/** the kind of an OTP record (with its checks) in the export */
export const OTP_RECORD_KIND = 'otpRecord';

/** the class key of each subject type that is issued OTPs (partner users sign in nowhere here: none) */
const CLASS_KEYS: Readonly<Partial<Record<Subject['type'], string>>> = {
  member: 'Member',
  program_management_user: 'ProgramManagementUser',
};

/**
 * A record's fields that are never exported: `token`, the HMAC of the code
 * (token.ts). With the OTP key it would let one test guesses of a code
 * offline; everything else (when, the checks and their outcomes, who asked)
 * is the subject's history.
 */
export const OTP_SECRET_FIELDS = ['token'] as const;

/** A stored record as exported: its secrets left out. */
export type ExportedOtpRecord = Omit<OtpRecord, (typeof OTP_SECRET_FIELDS)[number]>;

/**
 * The instance holding the subject's OTPs: `Member_<id>`,
 * `ProgramManagementUser_<id>`; undefined for a partner user and for an id no
 * Otp instance can have (nothing to read then).
 */
export function subjectOtpInstanceId(subject: Subject): string | undefined {
  const classKey = CLASS_KEYS[subject.type];
  if (classKey === undefined) return undefined;
  const instanceId = otpInstanceId(classKey, subject.id);
  const parsed = parseInstanceId(instanceId);
  return parsed?.classKey === classKey && parsed.entityId === subject.id ? instanceId : undefined;
}

/** A stored record without its secrets (a copy: the stored one is not touched). */
export function exportedOtpRecord(record: DeepReadonly<OtpRecord>): ExportedOtpRecord {
  const copy = structuredClone(record) as Partial<OtpRecord>;
  for (const field of OTP_SECRET_FIELDS) delete copy[field];
  return copy as ExportedOtpRecord;
}

/** One record per OTP, oldest first, each with its history of checks. */
export function otpSubjectRecords(instanceId: string, records: DeepReadonly<ExportedOtpRecord[]>): SubjectRecord[] {
  return records.map((record) => ({
    store: 'otp',
    classId: CLASS_ID,
    instanceId,
    kind: OTP_RECORD_KIND,
    data: structuredClone(record) as ExportedOtpRecord,
  }));
}

/**
 * The entity's records once cleared (an erasure): every OTP record goes with
 * its whole history, since a check keeps who asked (`requestedBy`, an email
 * typed, and `requesterDetails`: an IP address, a user agent) and a record its
 * `additionalData`. `removed`: how many OTP records went, each with its checks
 * (what the export counts as one record). The entity's class key and id stay:
 * they are the instance's own id.
 */
export function clearedRecords(records: DeepReadonly<OtpRecord[]>): { records: OtpRecord[]; removed: number } {
  return { records: [], removed: records.length };
}
