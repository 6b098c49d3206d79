/**
 * Partner records (spec 2.5): the partner, its locations (exposed to clients
 * as venues) and its documents, the state of one partner's instance, and the
 * bodies of the class's methods.
 */
import type { StateOf } from '../../runtime';
import type { Actor } from '../_platform/actor';
import type { EntityDocument } from '../_platform/entity-documents';

export const PARTNER_STATUSES = ['active', 'inactive'] as const;
export type PartnerStatus = (typeof PARTNER_STATUSES)[number];

export const VENUE_STATUSES = ['active', 'inactive'] as const;
export type VenueStatus = (typeof VENUE_STATUSES)[number];

/** spec 2.5: the platforms a social media account may be on */
export const SOCIAL_MEDIA_PLATFORMS = ['facebook', 'instagram', 'linkedin', 'x', 'youtube', 'tiktok'] as const;
export type SocialMediaPlatform = (typeof SOCIAL_MEDIA_PLATFORMS)[number];

/** the one venue type (spec 2.5: system-managed, never set by clients) */
export const VENUE_TYPE = 'venue';

/** Workflow events of spec 6 (rules: workflow-configs/Partner.json). */
export const PARTNER_EVENTS = {
  create: 'partner_create',
  details: 'update_partner_details',
  brandLogo: 'update_partner_brand_logo',
  contact: 'update_partner_contact',
  contract: 'update_partner_contract',
  status: 'update_partner_status',
} as const;
export type PartnerEvent = (typeof PARTNER_EVENTS)[keyof typeof PARTNER_EVENTS];

/** Workflow events of spec 6 for venues (rules: workflow-configs/Venue.json, run with workflowClassId 'Venue'). */
export const VENUE_EVENTS = { create: 'venue_create', update: 'venue_update', status: 'venue_status_update' } as const;
export type VenueEvent = (typeof VENUE_EVENTS)[keyof typeof VENUE_EVENTS];

/** the rule set the venue events run under */
export const VENUE_WORKFLOW_CLASS = 'Venue';

export interface SocialMediaAccount {
  platform: SocialMediaPlatform;
  url: string;
}

export interface PrimaryContact {
  name: string;
  email: string;
  phone: string;
}

/** A partner (spec 2.5). Optional fields are absent when not given; dates are ISO 8601 instants. */
export interface PartnerRecord {
  id: string;
  legalName: string;
  brandName: string;
  /** public URL path of the logo (FileManager getPublicFile of `partner_<id>`) */
  brandLogoPath?: string;
  partnerTier?: string;
  socialMediaAccounts?: SocialMediaAccount[];
  businessAddress: string;
  city: string;
  country: string;
  website?: string;
  primaryContact: PrimaryContact;
  partnerTypeId?: string;
  partnerSubtypeIds?: string[];
  tradeLicenseNumber?: string;
  contractId: string;
  contractStartDate: string;
  contractEndDate: string;
  accountAgent?: string;
  status: PartnerStatus;
  statusReason?: string;
  createdBy: Actor;
  createdAt: string;
  updatedAt: string;
}

export interface MapCoordinates {
  latitude: number;
  longitude: number;
}

/** A PartnerLocation (spec 2.5), exposed to clients as a venue. */
export interface Venue {
  id: string;
  partnerId: string;
  venueName: string;
  address: string;
  contactName: string;
  contactEmail: string;
  contactPhone: string;
  mapCoordinates: MapCoordinates;
  /** always `venue` */
  type: typeof VENUE_TYPE;
  status: VenueStatus;
  createdBy: Actor;
  createdAt: string;
  updatedAt: string;
}

/** The approval an entity (the partner, or one venue) waits for; its other changes are refused meanwhile. */
export interface PendingApproval {
  id: string;
  event: PartnerEvent | VenueEvent;
  /** the status the entity has once approved */
  requestedStatus: string;
}

/** The last approval callback settled (a redelivery of it changes nothing). */
export interface LastReview {
  approvalId: string;
  event: string;
  entityId: string;
  action: string;
  outcome: 'applied' | 'rejected' | 'conflict';
  reason?: string;
  by: string | null;
  at: string;
}

/** ctx.state.private of one partner's instance (instance id = partner id; spec 2.5 "state holds partner and locations"). */
export interface PartnerState {
  partner: PartnerRecord;
  /** the partner's venues by id (a null-prototype record: ids come from input) */
  locations: Record<string, Venue>;
  /** partner documents (classes/_platform/entity-documents.ts), files in FileManager `partner_<id>` */
  documents: EntityDocument[];
  /** the partner's own pending approval */
  pendingApproval: PendingApproval | null;
  /** pending approvals of venues, by venue id */
  venueApprovals: Record<string, PendingApproval>;
  lastReview: LastReview | null;
}

export type PartnerClassState = StateOf<PartnerState>;

// ---------------------------------------------------------------- bodies

/** A logo as a client sends it (Base64 content of an image). */
export interface LogoInput {
  content: string;
  mimeType: string;
  originalFilename?: string;
}
