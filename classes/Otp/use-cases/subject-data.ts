/**
 * A data subject's OTPs for DataSubject's export: exportSubjectData (STATIC,
 * DataSubject only) and readOtpRecords, the READ it reads the entity's
 * records with (a STATIC has no instance state of its own). The records leave
 * the instance without their token HMACs (subject-data-rules.ts).
 *
 * Company scope: Otp keeps an entity's class and id, not its company. A
 * caller limited to a company is checked against the subject's company as
 * DataSubject hands it over (`subjectCompanyId`, which the subject's own class
 * answered within the caller's scope): another company's subject, or a call
 * that names no company, is 403 1023. readOtpRecords is open to this class
 * alone and reached only after that check.
 */
import type { StaticCtx } from '../../../runtime';
import { noSubjectData, type SubjectData } from '../../_platform/personal-data';
import type { ExportSubjectDataInput, ReadOtpRecordsInput } from '../../../schemas/Otp/inputs';
import { otpError } from '../errors';
import { parseInstanceId } from '../rules';
import {
  exportedOtpRecord,
  otpSubjectRecords,
  subjectOtpInstanceId,
  type ExportedOtpRecord,
} from '../subject-data-rules';
import type { OtpRecord } from '../types';
import type { OtpReadCtx } from './common';

/** readOtpRecords' answer: the entity's records as stored (oldest first), their secrets left out */
export interface OtpRecordsExport {
  records: ExportedOtpRecord[];
}

/** The class's own READ, as the class file hands it over (its typed client). */
export interface OtpRecordsReader {
  readOtpRecords(instanceId: string): Promise<OtpRecordsExport>;
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

/** readOtpRecords (this class only; an entity never written has no records): the records without their secrets. */
export function readOtpRecords(ctx: OtpReadCtx<ReadOtpRecordsInput>): OtpRecordsExport {
  if (!parseInstanceId(ctx.instanceId)) {
    throw otpError('OTP_INVALID_INSTANCE_ID', `'${ctx.instanceId}' is not an Otp instance id: {classKey}_{entityId}`, {
      errors: [{ field: 'instanceId', reason: 'must be {classKey}_{entityId}' }],
    });
  }
  const records = (ctx.state.private.records ?? []) as readonly OtpRecord[];
  return { records: records.map(exportedOtpRecord) };
}
