/** getOtpRecords (READ): an entity's records, of one type or all, newest first, with their histories. */
import type { GetOtpRecordsInput } from '../../../schemas/Otp/inputs';
import { recordViews } from '../rules';
import type { OtpConfig, OtpRecord, OtpView } from '../types';
import { entityOf, type OtpReadCtx, type OtpSettings } from './common';

export interface OtpRecordsAnswer {
  classKey: string;
  entityId: string;
  records: OtpView[];
  config: OtpConfig;
}

export function getOtpRecords(ctx: OtpReadCtx<GetOtpRecordsInput>, settings: OtpSettings): OtpRecordsAnswer {
  const entity = entityOf(ctx);
  const records = (ctx.state.private.records ?? []) as readonly OtpRecord[];
  return {
    ...entity,
    records: recordViews(records, ctx.request.body.otpType, Date.now()),
    config: { ...settings.config },
  };
}
