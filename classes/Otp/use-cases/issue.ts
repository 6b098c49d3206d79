/**
 * Issuing an OTP: issueOtp (WRITE: Otp makes the token and answers it once)
 * and createOtpRecord (QUEUED_WRITE: the caller made the token with
 * generateOtpToken and sends it in the same commit as its own change). Both
 * refuse past otpLimit with 429 6001, writing the refusal to the newest
 * record's history.
 */
import { randomUUID } from 'node:crypto';
import { otpError } from '../errors';
import { additionalDataProblem, appendCheck, issueDecision, pruneRecords, recordViews } from '../rules';
import { generateOtpToken, hashToken, tokenFormatProblem } from '../token';
import type { CreateOtpRecordInput, IssueOtpInput } from '../../../schemas/Otp/inputs';
import type { OtpRecord, OtpView } from '../types';
import { bad, entityOf, openState, refuse, type OtpCtx, type OtpRefusal, type OtpSettings } from './common';

export interface IssuedOtp {
  otp: OtpView;
}

function issue(ctx: OtpCtx<IssueOtpInput>, settings: OtpSettings, token: string): IssuedOtp | OtpRefusal {
  const entity = entityOf(ctx);
  const body = ctx.request.body;
  const tooLarge = additionalDataProblem(body.additionalData);
  if (tooLarge) throw bad(tooLarge.field, tooLarge.reason);
  const state = openState(ctx, entity);
  const now = Date.now();
  const { config, key } = settings;
  const decision = issueDecision(state.records, body.otpType, now, config);
  if (!decision.allowed) {
    appendCheck(
      decision.newest,
      {
        timestamp: new Date(now).toISOString(),
        isSuccessful: false,
        validationResult: 'otp_limit_exceed',
        requestedBy: body.requestedBy,
        requesterDetails: body.requesterDetails,
      },
      now,
      config,
    );
    state.records = pruneRecords(state.records, now, config);
    const err = otpError(
      'OTP_LIMIT_EXCEEDED',
      `At most ${config.otpLimit} OTPs of type '${body.otpType}' per ${config.retryExpireTimeInSeconds} s for ${ctx.instanceId}`,
    );
    return refuse(ctx, err, 'otp_limit_exceed', decision.retryAfterSeconds);
  }
  const id = randomUUID();
  const record: OtpRecord = {
    id,
    otpType: body.otpType,
    token: hashToken(key, id, body.tokenType, token),
    tokenType: body.tokenType,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + (body.expireTimeInSeconds ?? config.otpExpireTimeInSeconds) * 1000).toISOString(),
    ...(body.additionalData !== undefined ? { additionalData: body.additionalData } : {}),
    history: [],
  };
  state.records.push(record);
  state.records = pruneRecords(state.records, now, config);
  return { otp: recordViews([record], undefined, now)[0] };
}

/** → {otp, token}: the only place the token is ever seen, besides the mail the caller sends. */
export function issueOtp(
  ctx: OtpCtx<IssueOtpInput>,
  settings: OtpSettings,
): (IssuedOtp & { token: string }) | OtpRefusal {
  const token = generateOtpToken(ctx.request.body.tokenType);
  const out = issue(ctx, settings, token);
  return 'otp' in out ? { ...out, token } : out;
}

/** → {otp}; the token is the caller's (its format checked against tokenType: 400 15002). */
export function createOtpRecord(ctx: OtpCtx<CreateOtpRecordInput>, settings: OtpSettings): IssuedOtp | OtpRefusal {
  const problem = tokenFormatProblem(ctx.request.body.tokenType, ctx.request.body.token);
  if (problem) throw bad('token', problem);
  return issue(ctx, settings, ctx.request.body.token);
}
