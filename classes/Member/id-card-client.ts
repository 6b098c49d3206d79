/**
 * The ID card system as the registration flows call it (spec 4.4: "the ID
 * card lookup"; its shape is "not shown"). The smallest port that serves the
 * flow: staff id → the employee's card (number, validity and, when the card
 * system has one, the photo printed on it), or null when there is no card.
 * The photo becomes the member's ID photo through MEMBER_ID_PHOTO_UPLOAD
 * (use-cases/id-card.ts); without one the member uploads a photo.
 *
 * The HTTP adapter imitates hr-client.ts: a time-out per attempt, retries
 * with backoff on network errors, time-outs, 429 and 5xx only, and the same
 * failure kinds (unavailable: timeout / network / http 5xx; refused: http 4xx;
 * not found: null). All from the environment the class is built with:
 *
 *   ID_CARD_BASE_URL        base address (unset: no ID card lookup; registration goes on without it)
 *   ID_CARD_API_KEY         sent as `x-api-key` when set (never logged, never in an error message)
 *   ID_CARD_TIMEOUT_MS      time-out of one attempt (default 3000)
 *   ID_CARD_RETRIES         extra attempts after a retryable failure (default 1)
 *   ID_CARD_RETRY_BASE_MS   first back-off delay, doubled each retry, with jitter (default 200)
 *
 *   GET {base}/cards/{staffId} → 200 {cardNumber, validFrom?, validUntil?, photo?: {contentBase64, mimeType}}
 *                                404 = the employee has no card
 *
 * Defaults are shorter than the HR client's: the card is a nicety of the
 * registration (a member without one uploads a photo), and its time comes
 * out of registration's budget.
 */
import { intSetting } from '../_platform/settings';
import { requestJson, unavailable, type JsonAnswer } from '../_platform/json-http';

export interface IdCardPhoto {
  /** the image, Base64 (standard alphabet, padding optional) */
  contentBase64: string;
  mimeType: 'image/png' | 'image/jpeg';
}

/** The card the ID card system holds for a staff id. */
export interface IdCard {
  cardNumber: string;
  /** dates as the card system sends them (YYYY-MM-DD or an ISO date-time) */
  validFrom?: string;
  validUntil?: string;
  photo?: IdCardPhoto;
}

/** The port: the registration flow asks only this. */
export interface IdCardLookup {
  /** false when no ID card system is configured: the flow does not ask */
  readonly configured: boolean;
  /** the employee's card; null when the card system has none for this staff id */
  lookupCard(staffId: string, signal?: AbortSignal): Promise<IdCard | null>;
}

export interface IdCardClientConfig {
  baseUrl?: string;
  apiKey?: string;
  timeoutMs: number;
  retries: number;
  retryBaseMs: number;
}

/** the FileManager's limit for images: a bigger photo could not be stored as the ID photo anyway */
export const MAX_CARD_PHOTO_BYTES = 5 * 1024 * 1024;
/** an answer longer than the biggest photo in Base64 plus room for the other fields is refused unread */
const MAX_ANSWER_CHARS = Math.ceil(MAX_CARD_PHOTO_BYTES / 3) * 4 + 64 * 1024;

export function idCardClientConfig(env: NodeJS.ProcessEnv): IdCardClientConfig {
  const baseUrl = env.ID_CARD_BASE_URL?.trim() || undefined;
  if (baseUrl && !/^https?:\/\//i.test(baseUrl))
    throw new Error(`ID_CARD_BASE_URL must be an http(s) URL, got '${baseUrl}'`);
  return {
    baseUrl: baseUrl?.replace(/\/+$/, ''),
    apiKey: env.ID_CARD_API_KEY || undefined,
    timeoutMs: intSetting(env, 'ID_CARD_TIMEOUT_MS', 3000, 1, 120_000),
    retries: intSetting(env, 'ID_CARD_RETRIES', 1, 0, 10),
    retryBaseMs: intSetting(env, 'ID_CARD_RETRY_BASE_MS', 200, 0, 60_000),
  };
}

export type IdCardFailureKind = 'not_configured' | 'timeout' | 'network' | 'http' | 'bad_response' | 'aborted';

export class IdCardClientError extends Error {
  constructor(
    readonly kind: IdCardFailureKind,
    message: string,
    readonly status?: number,
    readonly attempts = 1,
  ) {
    super(message);
    this.name = 'IdCardClientError';
  }

  /** the card system could not answer (worth trying later) rather than refused the request or answered nonsense */
  get unavailable(): boolean {
    return unavailable(this);
  }
}

const DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const SIGNATURES: Record<IdCardPhoto['mimeType'], number[]> = {
  'image/png': [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  'image/jpeg': [0xff, 0xd8, 0xff],
};

/** a date of the calendar (Date.parse takes 2026-02-30 as March 2nd) */
function validDate(v: string): boolean {
  if (!DATE.test(v) || Number.isNaN(Date.parse(v))) return false;
  const [y, m, d] = v.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/** the photo's problems (none: a PNG or JPEG of at most MAX_CARD_PHOTO_BYTES whose bytes are what its type says) */
function photoProblems(p: unknown): string[] {
  if (!p || typeof p !== 'object' || Array.isArray(p)) return ['photo must be an object {contentBase64, mimeType}'];
  const { contentBase64, mimeType } = p as Record<string, unknown>;
  const problems: string[] = [];
  const mime = typeof mimeType === 'string' ? mimeType.trim().toLowerCase() : mimeType;
  if (mime !== 'image/png' && mime !== 'image/jpeg')
    problems.push(`photo.mimeType must be image/png or image/jpeg, got ${JSON.stringify(mimeType)?.slice(0, 60)}`);
  if (typeof contentBase64 !== 'string' || contentBase64.length === 0)
    problems.push('photo.contentBase64 must be a non-empty string');
  else if (contentBase64.length % 4 === 1 || !BASE64.test(contentBase64))
    problems.push('photo.contentBase64 is not Base64');
  else if (Math.floor((contentBase64.length * 3) / 4) > MAX_CARD_PHOTO_BYTES + 2)
    problems.push(`photo is larger than ${MAX_CARD_PHOTO_BYTES} bytes`);
  else if (!problems.length) {
    const bytes = Buffer.from(contentBase64, 'base64');
    if (bytes.length > MAX_CARD_PHOTO_BYTES) problems.push(`photo is larger than ${MAX_CARD_PHOTO_BYTES} bytes`);
    const sig = SIGNATURES[mime as IdCardPhoto['mimeType']];
    if (!sig.every((b, i) => bytes[i] === b))
      problems.push(`photo's content is not ${mime === 'image/png' ? 'a PNG' : 'a JPEG'} image`);
  }
  return problems;
}

/**
 * Checks and normalises a card lookup's answer; the list of problems when it
 * is not one. `staffId`, when given, must match a `staffId` the answer carries
 * (a card of someone else is refused, not attached to this member).
 */
export function parseIdCard(
  body: unknown,
  staffId?: string,
): { ok: true; card: IdCard } | { ok: false; problems: string[] } {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return { ok: false, problems: ['body is not an object'] };
  const b = body as Record<string, unknown>;
  const problems: string[] = [];
  const cardNumber =
    typeof b.cardNumber === 'number' && Number.isSafeInteger(b.cardNumber) ? String(b.cardNumber) : b.cardNumber;
  if (typeof cardNumber !== 'string' || cardNumber.trim() === '' || cardNumber.length > 64)
    problems.push('cardNumber must be a non-empty string of at most 64 characters');
  const dates: { validFrom?: string; validUntil?: string } = {};
  for (const f of ['validFrom', 'validUntil'] as const) {
    const v = b[f];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v !== 'string' || !validDate(v.trim()))
      problems.push(`${f} must be a date (YYYY-MM-DD or an ISO date-time)`);
    else dates[f] = v.trim();
  }
  if (dates.validFrom && dates.validUntil && Date.parse(dates.validUntil) < Date.parse(dates.validFrom))
    problems.push('validUntil is before validFrom');
  const cardStaffId = typeof b.staffId === 'string' ? b.staffId : JSON.stringify(b.staffId);
  if (staffId !== undefined && b.staffId !== undefined && b.staffId !== null && cardStaffId !== staffId) {
    problems.push(`the card is for staff id '${cardStaffId.slice(0, 64)}', not '${staffId}'`);
  }
  let photo: IdCardPhoto | undefined;
  if (b.photo !== undefined && b.photo !== null) {
    const pp = photoProblems(b.photo);
    problems.push(...pp);
    if (!pp.length) {
      const p = b.photo as { contentBase64: string; mimeType: string };
      photo = { contentBase64: p.contentBase64, mimeType: p.mimeType.trim().toLowerCase() as IdCardPhoto['mimeType'] };
    }
  }
  if (problems.length) return { ok: false, problems };
  return { ok: true, card: { cardNumber: String(cardNumber).trim(), ...dates, ...(photo ? { photo } : {}) } };
}

type FetchLike = typeof fetch;

/** The production adapter: the ID card system over HTTP. */
export class IdCardClient implements IdCardLookup {
  constructor(
    readonly config: IdCardClientConfig,
    private readonly fetchImpl: FetchLike = (...args) => fetch(...args),
  ) {}

  get configured(): boolean {
    return Boolean(this.config.baseUrl);
  }

  async lookupCard(staffId: string, signal?: AbortSignal): Promise<IdCard | null> {
    if (!this.config.baseUrl) throw new IdCardClientError('not_configured', 'ID_CARD_BASE_URL is not set');
    if (typeof staffId !== 'string' || staffId.trim() === '')
      throw new IdCardClientError('bad_response', 'a staff id is needed to look a card up');
    const res = await this.get(`${this.config.baseUrl}/cards/${encodeURIComponent(staffId)}`, signal);
    if (res.status === 404) return null;
    const parsed = parseIdCard(res.body, staffId);
    if (!parsed.ok)
      throw new IdCardClientError(
        'bad_response',
        `ID card lookup answered an unusable card: ${parsed.problems.join('; ')}`,
        res.status,
        res.attempts,
      );
    return parsed.card;
  }

  private get(url: string, signal: AbortSignal | undefined): Promise<JsonAnswer> {
    const c = this.config;
    const settings = {
      system: 'ID card system',
      timeoutMs: c.timeoutMs,
      retries: c.retries,
      retryBaseMs: c.retryBaseMs,
      apiKey: c.apiKey,
      maxAnswerChars: MAX_ANSWER_CHARS,
      fetchImpl: this.fetchImpl,
    };
    return requestJson(
      settings,
      { method: 'GET', url, accept: [404] },
      signal,
      (kind, message, status, attempts) => new IdCardClientError(kind, message, status, attempts),
    );
  }
}
