/**
 * Offers of the benefit catalogue (spec 2.9 "Offer sheet": id, partnerId,
 * status, keywords, offerType, startDate, endDate, images, shortDescription,
 * title, description, categoryIds, createdAt, updatedAt). The spec shows no
 * other field (2.8: "Offer ... records (beyond the migration columns in 2.9):
 * not shown"): the record holds these and nothing else. One actor instance
 * per offer (instance id = id).
 */
import type { StateOf } from '../../runtime';

export const OFFER_STATUSES = ['published', 'unpublished', 'expired'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

/** An offer as it is stored, answered, streamed and audit-logged. */
export interface OfferRecord {
  id: string;
  /** a partner of the Partner class (spec 2.9: "must match the CRM partner id") */
  partnerId: string;
  status: OfferStatus;
  /** the sheet's keywords as a list: each once (case-insensitively), none with a comma */
  keywords: string[];
  /** the spec shows no values of OfferType (2.8): a short text */
  offerType: string;
  /** ISO 8601 instants, startDate before endDate */
  startDate: string;
  endDate: string;
  /** the sheet's comma-separated image URLs as a list (http or https) */
  images: string[];
  shortDescription: string;
  title: string;
  description: string;
  /** BenefitCategory ids, each once */
  categoryIds: string[];
  /** ISO 8601 instants */
  createdAt: string;
  updatedAt: string;
}

/** ctx.state.private of one offer's instance. */
export interface OfferState {
  offer: OfferRecord;
}

export type OfferClassState = StateOf<OfferState>;
