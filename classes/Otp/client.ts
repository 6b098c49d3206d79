/**
 * How ProgramManagementUser and Member call Otp. Otp answers a refused issue
 * or check with 429 without throwing (so the refusal stays in the history),
 * and a class-to-class call hands a 429 back as a result, not as an error:
 * these helpers turn it into Otp's error (6001, 6002 with `details.retryAfterSeconds`),
 * which the caller lets through to its own caller or replaces with its own
 * answer. For the queued createOtpRecord, make the token with
 * generateOtpToken and `ctx.enqueue('Otp', 'createOtpRecord', otpInstanceId(...), {...})`.
 *
 *   const otps = otpClient(ctx);
 *   const { token } = await otps.issue(otpInstanceId('Member', memberId), { otpType: 'login', tokenType: 'numeric', requestedBy, requesterDetails });
 *   ...
 *   const check = await otps.verify(otpInstanceId('Member', memberId), { otpType: 'login', token: typed, requestedBy, requesterDetails });
 *   if (!check.isSuccessful) ... check.validationResult
 */
import { isUnknownInstance, type BaseCtx, type CallResult } from '../../runtime';
import { otpError } from './errors';
import type { CheckAnswer } from './use-cases/checking';
import type { IssuedOtp } from './use-cases/issuing';
import type { OtpRecordsAnswer } from './use-cases/reading';
import type { OtpRefusal } from './use-cases/common';
import type { CheckOtpInput, IssueOtpInput } from './types';

export { generateOtpToken } from './token';
export { otpInstanceId } from './rules';

const CLASS_ID = 'Otp';

function refused(r: CallResult): never {
  const body = r.body as OtpRefusal;
  const name = body.validationResult === 'otp_limit_exceed' ? 'OTP_LIMIT_EXCEEDED' : 'OTP_RETRY_LIMIT_EXCEEDED';
  throw otpError(name, body.message, { retryAfterSeconds: body.retryAfterSeconds });
}

export function otpClient(ctx: Pick<BaseCtx, 'call'>) {
  return {
    /** a new OTP and its token (the only time it is seen); throws 429 6001 past otpLimit */
    async issue(instanceId: string, body: IssueOtpInput): Promise<IssuedOtp & { token: string }> {
      const r = await ctx.call(CLASS_ID, 'issueOtp', instanceId, body);
      if (r.status === 429) refused(r);
      return r.body as IssuedOtp & { token: string };
    },
    /** checks a typed token (a match spends the OTP); throws 429 6002 past retryLimit */
    async verify(instanceId: string, body: CheckOtpInput): Promise<Exclude<CheckAnswer, OtpRefusal>> {
      const r = await ctx.call(CLASS_ID, 'verifyOtp', instanceId, body);
      if (r.status === 429) refused(r);
      return r.body as Exclude<CheckAnswer, OtpRefusal>;
    },
    /** the entity's records (newest first); an entity that never had an OTP has none */
    async records(instanceId: string, otpType?: string): Promise<Pick<OtpRecordsAnswer, 'records'>> {
      try {
        return (await ctx.call(CLASS_ID, 'getOtpRecords', instanceId, otpType === undefined ? {} : { otpType }))
          .body as OtpRecordsAnswer;
      } catch (err) {
        if (isUnknownInstance(err)) return { records: [] };
        throw err;
      }
    },
  };
}
