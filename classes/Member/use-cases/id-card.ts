/**
 * The ID card lookup of the HR registration (spec 4.4): the employee's card,
 * looked up by staff id once the member exists; when the card carries a
 * photo, it is submitted as the member's ID photo through the same approval
 * as any other upload (MEMBER_ID_PHOTO_UPLOAD, submitIdPhoto), so a rule
 * that wants a person to look at it still does. Without a photo (no card, no
 * photo on it, a card system that fails or is not configured) the member
 * uploads one, as before.
 *
 * The card is a nicety: nothing about it fails a registration. A lookup or a
 * submission that fails is a warning in registerFromHr's answer.
 *
 * The card number and validity are answered, not kept: the member profile
 * has no field for a card, and one added for this alone would be a second
 * copy of the card system's data with nothing to keep it current.
 */
import { ActorError } from '../../../runtime';
import type { IdCard, IdCardLookup } from '../id-card-client';
import { IdCardClientError } from '../id-card-client';
import { memberState, profileOf, type MemberCtx, type MemberStaticCtx } from '../member-state';
import type { MemberProfile } from '../types';
import { fileError, storeMemberFile } from './files';
import { submitIdPhoto } from './id-photo';
import { members } from './self-client';

/** submitIdCardPhoto's time-out (Member.class.ts declares it); registration calls it only with this much time left */
export const SUBMIT_CARD_PHOTO_TIMEOUT_SECONDS = 5;

/** No ID card system: the registration does not ask one. */
export const NO_ID_CARDS: IdCardLookup = {
  configured: false,
  lookupCard: () => Promise.reject(new IdCardClientError('not_configured', 'ID_CARD_BASE_URL is not set')),
};

/** submitIdCardPhoto's body: the card's photo and the card it is printed on */
export interface IdCardPhotoBody {
  cardNumber: string;
  /** `photo` is one of the class's sensitive fields: never logged */
  photo: { contentBase64: string; mimeType: 'image/png' | 'image/jpeg' };
}

export interface IdCardPhotoAnswer {
  submitted: boolean;
  approvalId?: string;
  approved?: boolean;
  idPhoto?: string;
}

/**
 * On the member (INTERNAL, class:Member): the card's photo becomes its ID
 * photo, through MEMBER_ID_PHOTO_UPLOAD. A member that has an ID photo, or one
 * waiting for approval, keeps it: the card never replaces a photo someone
 * chose (a resumed registration asks again, and must not submit twice).
 */
export async function submitIdCardPhoto(ctx: MemberCtx<IdCardPhotoBody>): Promise<IdCardPhotoAnswer> {
  const state = memberState(ctx);
  const profile = profileOf(ctx);
  if (profile.idPhoto || state.pendingPhoto) return { submitted: false };
  const { cardNumber, photo } = ctx.request.body;
  const ext = photo.mimeType === 'image/png' ? 'png' : 'jpg';
  let filename: string;
  try {
    filename = await storeMemberFile(ctx, profile.id, {
      content: photo.contentBase64,
      mimeType: photo.mimeType,
      originalFilename: `${profile.staffId ?? profile.id}-id-card-${cardNumber}.${ext}`.replace(/[^\w.-]/g, '_'),
    });
  } catch (err) {
    throw fileError(err, { content: 'photo', type: 'photo' });
  }
  const r = await submitIdPhoto(ctx, filename, 'id_card');
  return { submitted: true, idPhoto: filename, ...r };
}

/** registerFromHr's answer about the card (absent when no ID card system is configured) */
export interface IdCardOutcome {
  /** found: a card; not_found: the card system has none; failed: it could not be asked; skipped: no time was left */
  lookup: 'found' | 'not_found' | 'failed' | 'skipped';
  cardNumber?: string;
  validFrom?: string;
  validUntil?: string;
  /**
   * pending_approval / approved: the card's photo was submitted; kept: the member had a photo (or one waiting);
   * none: no photo from the card (the member uploads one); failed: the card had one that could not be submitted
   */
  photo: 'pending_approval' | 'approved' | 'kept' | 'none' | 'failed';
  approvalId?: string;
}

type CardCalls = { submitIdCardPhoto: typeof submitIdCardPhoto };

const UPLOAD_HINT = 'the member uploads an ID photo';

function reason(err: unknown): string {
  if (err instanceof IdCardClientError)
    return `${err.message} (${err.kind}${err.status !== undefined ? ` ${err.status}` : ''}, ${err.attempts} attempt${err.attempts === 1 ? '' : 's'})`;
  if (err instanceof ActorError) return `${err.message} (${err.code})`;
  return String((err as Error)?.message ?? err);
}

/**
 * The card step of a registration, for `member` (just created, or created by
 * a registration stopped half-way). Never throws: what goes wrong is a
 * warning. Time: the lookup gets what `left()` leaves after `reserveMs` (the
 * answer's reserve) and the submission's own time-out, and is skipped under
 * `minMs`; the submission runs only while its whole time-out still fits, so
 * the step always ends within the registration's budget.
 */
export async function idCardStep(
  ctx: MemberStaticCtx<unknown>,
  idCards: IdCardLookup,
  member: MemberProfile,
  left: () => number,
  limits: {
    reserveMs: number;
    minMs: number;
    within: <T>(ms: number, fn: (signal: AbortSignal) => Promise<T>) => Promise<T>;
  },
): Promise<{ outcome?: IdCardOutcome; warnings: string[] }> {
  if (!idCards.configured || !member.staffId) return { warnings: [] };
  const submitMs = SUBMIT_CARD_PHOTO_TIMEOUT_SECONDS * 1000;
  const lookupMs = left() - limits.reserveMs - submitMs;
  if (lookupMs < limits.minMs) {
    return {
      outcome: { lookup: 'skipped', photo: 'none' },
      warnings: [`The ID card was not looked up: too little of this call's time was left; ${UPLOAD_HINT}`],
    };
  }
  let card: IdCard | null;
  try {
    card = await limits.within(lookupMs, (signal) => idCards.lookupCard(member.staffId!, signal));
  } catch (err) {
    ctx.log.warn(
      { kind: (err as IdCardClientError)?.kind, status: (err as IdCardClientError)?.status },
      'ID card lookup failed',
    );
    return {
      outcome: { lookup: 'failed', photo: 'none' },
      warnings: [`The ID card could not be looked up: ${reason(err)}; ${UPLOAD_HINT}`],
    };
  }
  if (!card) return { outcome: { lookup: 'not_found', photo: 'none' }, warnings: [] };
  const found: IdCardOutcome = {
    lookup: 'found',
    cardNumber: card.cardNumber,
    ...(card.validFrom ? { validFrom: card.validFrom } : {}),
    ...(card.validUntil ? { validUntil: card.validUntil } : {}),
    photo: 'none',
  };
  if (!card.photo) return { outcome: found, warnings: [] };
  if (left() - limits.reserveMs < submitMs) {
    return {
      outcome: { ...found, photo: 'failed' },
      warnings: [`The ID card's photo was not submitted: too little of this call's time was left; ${UPLOAD_HINT}`],
    };
  }
  try {
    const r = await members<CardCalls>(ctx).submitIdCardPhoto(member.id, {
      cardNumber: card.cardNumber,
      photo: card.photo,
    });
    if (!r.submitted) return { outcome: { ...found, photo: 'kept' }, warnings: [] };
    return {
      outcome: { ...found, photo: r.approved ? 'approved' : 'pending_approval', approvalId: r.approvalId! },
      warnings: [],
    };
  } catch (err) {
    ctx.log.warn({ code: (err as ActorError)?.code }, "ID card's photo submission failed");
    return {
      outcome: { ...found, photo: 'failed' },
      warnings: [`The ID card's photo could not be submitted: ${reason(err)}; ${UPLOAD_HINT}`],
    };
  }
}
