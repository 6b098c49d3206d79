/** getOtpRecords (READ): an entity's records, of one type or all, newest first, with their histories. */
import { otpTypeFilter, recordViews } from '../rules';
import type { GetOtpRecordsInput, OtpConfig, OtpRecord, OtpView } from '../types';
import { bad, entityOf, type OtpReadCtx, type OtpSettings } from './common';

export interface OtpRecordsAnswer {
  classKey: string;
  entityId: string;
  records: OtpView[];
  config: OtpConfig;
}

export function getOtpRecords(ctx: OtpReadCtx<GetOtpRecordsInput>, settings: OtpSettings): OtpRecordsAnswer {
  const entity = entityOf(ctx);
  const filter = otpTypeFilter(ctx.request.body, ctx.request.query);
  if (filter.problems.length) throw bad(filter.problems[0].field, filter.problems[0].reason);
  const records = (ctx.state.private.records ?? []) as readonly OtpRecord[];
  return { ...entity, records: recordViews(records, filter.otpType, Date.now()), config: { ...settings.config } };
}
