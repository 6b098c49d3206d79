/**
 * Otp (spec 2.8, 4.5, 7.1): one instance per entity, id `{classKey}_{entityId}`
 * (`Member_<memberId>`, `ProgramManagementUser_<userId>`), created by its first
 * write. Private state: the entity's OTP records with their check histories
 * (types.ts), bounded (rules.ts). Only ProgramManagementUser and Member call
 * it, each for its own entities; tokens are stored as HMACs (token.ts).
 *
 * This file declares the methods and delegates to use-cases/; README.md has
 * the operations, the limits and their defaults, and the error codes.
 */
import { ActorClass, client, Internal, QueuedWrite, Read, Static, Write, type StaticCtx } from '../../runtime';
import { SUBJECT_DATA_ACCESS, type SubjectData, type SubjectErasure } from '../_platform/personal-data';
import { SHARED_DATA } from '../_platform/scope';
import { otpConfigFrom } from './rules';
import { otpKeyFrom } from './token';
import type {
  ClearRecordsInput,
  CreateOtpCheckRecordInput,
  CreateOtpRecordInput,
  EraseSubjectDataInput,
  ExportSubjectDataInput,
  GetOtpRecordsInput,
  IssueOtpInput,
  ReadOtpRecordsInput,
  VerifyOtpInput,
} from '../../schemas/Otp/inputs';
import type { OtpClassState } from './types';
import { refusedInput, type OtpCtx, type OtpReadCtx, type OtpSettings } from './use-cases/common';
import * as issuing from './use-cases/issue';
import * as checking from './use-cases/check';
import * as reading from './use-cases/read';
import * as subjectData from './use-cases/subject-data';

/** the types other classes see of this one (they import this file's types only) */
export type { RequesterDetails } from './types';

/** spec 4.5: "Only the ProgramManagementUser and Member classes may call them" (and the system identity: CLI, tests) */
const CALLERS = ['class:ProgramManagementUser', 'class:Member'] as const;

@ActorClass<OtpClassState>({
  id: 'Otp',
  description: 'One-time passwords of members and back-office users (spec 4.5)',
  // No company user reaches Otp itself (its methods admit the two classes only). `shared` lets those classes
  // act for a company user (a member's invitation sent by its company's back office): each checks the company
  // of its own entity before it gets here, and Otp holds nothing a company could list.
  tenancy: SHARED_DATA,
})
export class Otp {
  readonly settings: OtpSettings;

  constructor(env: NodeJS.ProcessEnv = {}) {
    this.settings = { config: otpConfigFrom(env), key: otpKeyFrom(env).key };
  }

  /**
   * {otpType, tokenType, expireTimeInSeconds?, additionalData?, requestedBy, requesterDetails} → {otp, token}:
   * Otp makes the token and answers it this once, for the caller to send; 429 6001 past otpLimit.
   */
  @Write({ access: [...CALLERS], upsert: true })
  issueOtp(ctx: OtpCtx<IssueOtpInput>) {
    return issuing.issueOtp(ctx, this.settings);
  }

  /**
   * Spec 4.5 (QUEUED_WRITE): the same with the caller's token (made with generateOtpToken), for an OTP sent
   * in the same commit as the caller's change (an invitation): → job result {otp}, or 429 6001.
   */
  @QueuedWrite({ access: [...CALLERS], upsert: true })
  createOtpRecord(ctx: OtpCtx<CreateOtpRecordInput>) {
    return issuing.createOtpRecord(ctx, this.settings);
  }

  /**
   * {otpType, token, requestedBy, requesterDetails, additionalData?} → {isSuccessful: true, otp} or
   * {isSuccessful: false, validationResult: no_active_otp | invalid_token (remainingAttempts)}; 429 6002 past
   * retryLimit. Written to the history; a match spends the OTP.
   */
  @Write({ access: [...CALLERS], upsert: true })
  verifyOtp(ctx: OtpCtx<VerifyOtpInput>) {
    return checking.checkOtp(ctx, this.settings);
  }

  /** Spec 4.5 (QUEUED_WRITE): the same check, queued; its outcome is the job's result. */
  @QueuedWrite({ access: [...CALLERS], upsert: true })
  createOtpCheckRecord(ctx: OtpCtx<CreateOtpCheckRecordInput>) {
    return checking.checkOtp(ctx, this.settings);
  }

  /** Spec 4.5: {otpType?} (POST body or GET query) → {classKey, entityId, records (newest first, with history), config}. */
  @Read({ access: [...CALLERS], onValidationError: refusedInput })
  getOtpRecords(ctx: OtpReadCtx<GetOtpRecordsInput>) {
    return reading.getOtpRecords(ctx, this.settings);
  }

  /**
   * {subject} → the subject's OTP records with their checks for DataSubject's export (store `otp`), without the
   * token HMACs; nothing for a partner user. Read through readOtpRecords: a STATIC has no instance state.
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS] })
  exportSubjectData(ctx: StaticCtx<ExportSubjectDataInput>): Promise<SubjectData> {
    return subjectData.exportSubjectData(ctx, client<typeof Otp>(ctx, 'Otp'));
  }

  /** → {records}: the entity's records as stored but for their secrets, for exportSubjectData only. */
  @Read({ access: ['class:Otp'], emptyWhenMissing: true })
  readOtpRecords(ctx: OtpReadCtx<ReadOtpRecordsInput>) {
    return subjectData.readOtpRecords(ctx);
  }

  /**
   * {subject, subjectCompanyId?, erasureId} → {records: OTP records removed with their checks, files: 0}, for
   * DataSubject's erasure; zeros for a partner user, an entity never issued one, or one cleared already. Written
   * through clearRecords: a STATIC has no instance state.
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS] })
  eraseSubjectData(ctx: StaticCtx<EraseSubjectDataInput>): Promise<SubjectErasure> {
    return subjectData.eraseSubjectData(ctx, client<typeof Otp>(ctx, 'Otp'));
  }

  /**
   * → {removed}: every OTP record of the entity and its checks removed. For this class's eraseSubjectData, and
   * for the entity's own class (Member clears a member's self-registration codes, `Member_reg-<hash>`, in its
   * own erasure); each class its own entities only (403 15001).
   */
  @Internal({ access: ['class:Otp', ...CALLERS] })
  clearRecords(ctx: OtpCtx<ClearRecordsInput>) {
    return subjectData.clearRecords(ctx);
  }
}
