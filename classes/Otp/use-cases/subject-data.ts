/**
 * A data subject's OTPs for DataSubject's export and erasure:
 * exportSubjectData and eraseSubjectData (STATIC, DataSubject only), and
 * readOtpRecords and clearRecords, the READ and INTERNAL write they reach the
 * entity's records with (a STATIC has no instance state of its own). The
 * records leave the instance without their token HMACs (subject-data-rules.ts).
 *
 * Company scope: Otp keeps an entity's class and id, not its company. A
 * caller limited to a company is checked against the subject's company as
 * DataSubject hands it over (`subjectCompanyId`, which the subject's own class
 * answered within the caller's scope): another company's subject, or a call
 * that names no company, is 403 1023. readOtpRecords is open to this class
 * alone and reached only after that check; clearRecords to this class and to
 * the classes whose entities Otp serves, each for its own entities (Member
 * clears a member's self-registration codes, which a member id does not lead
 * to, in its own erasure).
 */
import { isUnknownInstance, type StaticCtx } from '../../../runtime';
import { noSubjectData, type SubjectData, type SubjectErasure } from '../../_platform/personal-data';
import type {
  ClearRecordsInput,
  EraseSubjectDataInput,
  ExportSubjectDataInput,
  ReadOtpRecordsInput,
} from '../../../schemas/Otp/inputs';
import { otpError } from '../errors';
import { parseInstanceId } from '../rules';
import {
  CLASS_ID,
  clearedRecords,
  exportedOtpRecord,
  otpSubjectRecords,
  subjectOtpInstanceId,
  type ExportedOtpRecord,
} from '../subject-data-rules';
import type { OtpRecord } from '../types';
import { entityOf, type OtpCtx, type OtpReadCtx } from './common';

/** readOtpRecords' answer: the entity's records as stored (oldest first), their secrets left out */
export interface OtpRecordsExport {
  records: ExportedOtpRecord[];
}

/** The class's own READ, as the class file hands it over (its typed client). */
export interface OtpRecordsReader {
  readOtpRecords(instanceId: string): Promise<OtpRecordsExport>;
}

/** clearRecords' answer: how many OTP records went (each with its checks) */
export interface OtpRecordsCleared {
  removed: number;
}

/** The class's own write, as the class file hands it over (its typed client). */
export interface OtpRecordsClearer {
  clearRecords(instanceId: string): Promise<OtpRecordsCleared>;
}

/** → {records: one per OTP of the subject, with its checks; files: []}; nothing for a partner user or an entity never issued one. */
export async function exportSubjectData(
  ctx: StaticCtx<ExportSubjectDataInput>,
  self: OtpRecordsReader,
): Promise<SubjectData> {
  const { subject, subjectCompanyId } = ctx.request.body;
  const instanceId = subjectOtpInstanceId(subject);
  if (instanceId === undefined) return noSubjectData();
  ctx.tenancy.check(subjectCompanyId, `The OTPs of ${subject.type} '${subject.id}'`);
  const { records } = await self.readOtpRecords(instanceId);
  return { records: otpSubjectRecords(instanceId, records), files: [] };
}

function checkInstanceId(ctx: OtpReadCtx<unknown> | OtpCtx<unknown>): void {
  if (!parseInstanceId(ctx.instanceId)) {
    throw otpError('OTP_INVALID_INSTANCE_ID', `'${ctx.instanceId}' is not an Otp instance id: {classKey}_{entityId}`, {
      errors: [{ field: 'instanceId', reason: 'must be {classKey}_{entityId}' }],
    });
  }
}

/** readOtpRecords (this class only; an entity never written has no records): the records without their secrets. */
export function readOtpRecords(ctx: OtpReadCtx<ReadOtpRecordsInput>): OtpRecordsExport {
  checkInstanceId(ctx);
  const records = (ctx.state.private.records ?? []) as readonly OtpRecord[];
  return { records: records.map(exportedOtpRecord) };
}

/**
 * → {records: the subject's OTP records removed (each with its checks), files: 0}; zeros for a partner user, an
 * entity never issued one (no instance is created), or one cleared already. Company scope as exportSubjectData's.
 */
export async function eraseSubjectData(
  ctx: StaticCtx<EraseSubjectDataInput>,
  self: OtpRecordsClearer,
): Promise<SubjectErasure> {
  const { subject, subjectCompanyId } = ctx.request.body;
  const instanceId = subjectOtpInstanceId(subject);
  if (instanceId === undefined) return { records: 0, files: 0 };
  ctx.tenancy.check(subjectCompanyId, `The OTPs of ${subject.type} '${subject.id}'`);
  try {
    const { removed } = await self.clearRecords(instanceId);
    return { records: removed, files: 0 };
  } catch (err) {
    if (isUnknownInstance(err)) return { records: 0, files: 0 };
    throw err;
  }
}

/**
 * clearRecords (INTERNAL): every OTP record of the entity removed with its checks; `removed` 0 when none is left
 * (nothing is then written). This class reaches every entity; Member and ProgramManagementUser their own only
 * (403 15001 otherwise), as on every Otp method. An instance never written is the runtime's unknown instance.
 */
export function clearRecords(ctx: OtpCtx<ClearRecordsInput>): OtpRecordsCleared {
  if (ctx.identity.type === 'class' && ctx.identity.classId === CLASS_ID) checkInstanceId(ctx);
  else entityOf(ctx);
  const s = ctx.state.private;
  const { records, removed } = clearedRecords(s.records ?? []);
  if (removed > 0) s.records = records;
  return { removed };
}
