/** Otp records and inputs (spec 2.8 "OTP record", "OTP config"). */
import type { StateOf } from '../../runtime';

export const TOKEN_TYPES = ['alphanumeric', 'numeric', 'uuid'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

/** Spec 2.8: why a check failed. */
export const VALIDATION_RESULTS = ['retry_limit_exceed', 'otp_limit_exceed', 'no_active_otp', 'invalid_token'] as const;
export type ValidationResult = (typeof VALIDATION_RESULTS)[number];

/** Spec 2.8 requesterDetails: who asked, as the calling class saw it. */
export interface RequesterDetails {
  /** the identity type of the person asking (`anonymous`, `member_otp`, `enduser`, `program_management_user`, ...) */
  identity: string;
  userAgent?: string;
  ipAddress?: string;
}

/** Spec 2.8: one entry of a record's history (a check, or a refused issue). */
export interface OtpCheck {
  timestamp: string;
  isSuccessful: boolean;
  validationResult?: ValidationResult;
  requestedBy: string;
  requesterDetails: RequesterDetails;
  additionalData?: Record<string, unknown>;
}

/**
 * Spec 2.8 OTP record. `token` is never the token: it is `hmac-sha256:<key>`,
 * the HMAC-SHA256 of the record id and the normalised token under the OTP
 * key (token.ts). `expiresAt` is ours (createdAt + the record's validity).
 */
export interface OtpRecord {
  id: string;
  otpType: string;
  token: string;
  tokenType: TokenType;
  createdAt: string;
  expiresAt: string;
  usedAt?: string;
  additionalData?: Record<string, unknown>;
  history: OtpCheck[];
}

export type { OtpConfig } from '../_platform/otp';

/** What an OTP record looks like to callers: no token hash, and its status now. */
export type OtpStatus = 'active' | 'used' | 'expired' | 'superseded';
export type OtpView = Omit<OtpRecord, 'token'> & { status: OtpStatus };

export interface OtpState {
  /** the class whose entity this is (`{classKey}_{entityId}`) */
  classKey: string;
  entityId: string;
  /** oldest first; pruned on every write (rules.ts pruneRecords) */
  records: OtpRecord[];
}

/** The class's state (`@ActorClass<OtpClassState>`); empty until its first write. */
export type OtpClassState = StateOf<Partial<OtpState>>;
