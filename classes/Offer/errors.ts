/**
 * Offer error codes: 18070-18099 (the spec gives the benefit catalogue no
 * range; docs/error-ranges.md gives it 18050-18099, of which BenefitCategory
 * has 18050-18069). Each name has one code and one HTTP status; 400s name the
 * field and the reason (`details.errors: [{field, reason}]`).
 */
import { errorFactory } from '../../runtime';

export const OfferErrors = {
  /** what the schema cannot judge: an id that cannot name an offer, a list item twice or with a comma, a blank text */
  OFFER_INVALID_INPUT: { code: 18070, status: 400 },
  /** startDate is not before endDate, or a date is not an ISO 8601 date-time */
  OFFER_INVALID_DATES: { code: 18071, status: 400 },
  /** partnerId names no partner of the Partner class */
  OFFER_UNKNOWN_PARTNER: { code: 18072, status: 400 },
  /** a categoryIds entry names no benefit category */
  OFFER_UNKNOWN_CATEGORY: { code: 18073, status: 400 },
  /** updateOffer that changes nothing */
  OFFER_NO_CHANGES: { code: 18074, status: 400 },
  /** updateOfferStatus to the status the offer has */
  OFFER_STATUS_UNCHANGED: { code: 18075, status: 409 },
  /** listOffers: bad filter or page values */
  OFFER_INVALID_QUERY: { code: 18076, status: 400 },
} as const;

export type OfferErrorName = keyof typeof OfferErrors;

export const offerError = errorFactory('Offer', OfferErrors);
