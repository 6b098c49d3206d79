/**
 * Partner (spec 2.5, 3.3, 4.5, 6, 7.1, 8): one actor instance per partner
 * (instance id = partner id); private state holds `partner` and `locations`
 * (the venues), with the partner's documents and the approvals they wait for
 * (types.ts PartnerState).
 *
 * Every partner change is an approval-gated change with its own workflow
 * event (partner_create, update_partner_details, update_partner_brand_logo,
 * update_partner_contact, update_partner_contract, update_partner_status;
 * workflow-configs/Partner.json), every venue change one of the `Venue` rules
 * (venue_create, venue_update, venue_status_update; workflow-configs/Venue.json);
 * approvePartner settles both. Changes are audit-logged and streamed: the
 * partner to `partners` (listPartners), each venue to `venues` (listVenues).
 * The brand logo is a public file of FileManager instance `partner_<id>`, where
 * the partner's documents are kept too.
 *
 * This file declares the methods (access, kind, schema) and delegates: each
 * body lives in use-cases/<use case>.ts, the rules in rules.ts. README.md has
 * the operations, choices and error codes.
 */
import type {
  CreateVenueInput,
  DocumentRefInput,
  GetLogEntriesInput,
  InitInput,
  ListDocumentsInput,
  ListPartnersInput,
  ListVenuesInput,
  LogRefInput,
  UpdatePartnerBrandLogoInput,
  UpdatePartnerContactInput,
  UpdatePartnerContractInput,
  UpdatePartnerDetailsInput,
  UpdatePartnerStatusInput,
  UpdateVenueInput,
  UpdateVenueStatusInput,
  UploadDocumentInput,
  VenueRefInput,
} from '../../schemas/Partner/inputs';
import { ActorClass, Init, QueuedWrite, Read, Static, Write } from '../../runtime';
import { SHARED_DATA } from '../_platform/scope';
import type { ApprovalCallbackBody } from '../_platform/workflow';
import { partnerDocument, PARTNERS_COLLECTION, venueDocument, VENUES_COLLECTION } from './rules';
import type { PartnerClassState } from './types';
import { invalidListing, invalidLogQuery } from './errors';
import * as approval from './use-cases/approval';
import * as audit from './use-cases/audit';
import type { PartnerCtx, PartnerReadCtx, PartnerStaticCtx } from './use-cases/common';
import * as create from './use-cases/create';
import * as documents from './use-cases/documents';
import * as listing from './use-cases/listing';
import * as reading from './use-cases/read';
import * as update from './use-cases/update';
import * as venues from './use-cases/venues';

/** the types other classes see of this one (they import this file's types only) */
export type { PartnerErrorName } from './errors';

const PM = 'program_management_user';

@ActorClass<PartnerClassState>({
  id: 'Partner',
  description: 'Partners of the programme, their venues and documents (spec 2.5)',
  // partners are the programme's, not a company's: company users read them, never change them
  tenancy: SHARED_DATA,
  stream: {
    collections: {
      // the orders and filters of partnerListQuery and venueListQuery (rules.ts)
      [PARTNERS_COLLECTION]: {
        listings: [
          {
            name: 'listPartners',
            sort: { brandName: 1, id: 1 },
            filterSets: [[], ['status'], ['partnerTypeId'], ['partnerSubtypeIds']],
          },
        ],
      },
      [VENUES_COLLECTION]: {
        listings: [
          { name: 'listVenues', sort: { venueName: 1, id: 1 }, filterSets: [['partnerId'], ['partnerId', 'status']] },
        ],
      },
    },
    toDocuments: (state, id) => {
      const s = state.private;
      if (!s.partner) return [];
      const locations = Object.values(s.locations ?? {});
      return [
        {
          collection: PARTNERS_COLLECTION,
          id,
          doc: partnerDocument(s.partner, s.pendingApproval ?? null, locations.length),
        },
        ...locations.map((v) => ({
          collection: VENUES_COLLECTION,
          id: v.id,
          doc: venueDocument(v, s.venueApprovals?.[v.id] ?? null),
        })),
      ];
    },
  },
})
export class Partner {
  // ---------------------------------------------------------------- the partner

  /**
   * Creates a partner (event partner_create), `inactive` until approved; the
   * brand logo, when given, is stored as a public file. Answers 201.
   */
  @Init({ access: [PM], timeoutSeconds: 30 })
  init(ctx: PartnerCtx<InitInput>) {
    return create.createPartner(ctx);
  }

  /** From the streamed `partners` collection (POST body or GET query): status, type, subtypes (any), search; paged. */
  // a GET query or a POST body, checked by its schema alike (400 17010 naming the field)
  @Static({ access: [PM, 'class'], onValidationError: invalidListing, answer: 'listPartners.answer' })
  listPartners(ctx: PartnerStaticCtx<ListPartnersInput>) {
    return listing.listPartners(ctx);
  }

  /** The partner and the approval it waits for; also for other classes (PartnerUser checks its partners). */
  @Read({ access: [PM, 'class'], schema: 'empty', answer: 'getPartnerDetails.answer' })
  getPartnerDetails(ctx: PartnerReadCtx) {
    return reading.getPartnerDetails(ctx);
  }

  @Read({ access: [PM], schema: 'empty', answer: 'getPartnerContact.answer' })
  getPartnerContact(ctx: PartnerReadCtx) {
    return reading.getPartnerContact(ctx);
  }

  @Read({ access: [PM], schema: 'empty', answer: 'getPartnerContract.answer' })
  getPartnerContract(ctx: PartnerReadCtx) {
    return reading.getPartnerContract(ctx);
  }

  /** Names, addresses, tier, social media, type and subtypes, trade licence, account agent (event update_partner_details). */
  @Write({ access: [PM] })
  updatePartnerDetails(ctx: PartnerCtx<UpdatePartnerDetailsInput>) {
    return update.updatePartnerDetails(ctx);
  }

  /** A new logo (a public file), or null to remove it (event update_partner_brand_logo). */
  @Write({ access: [PM], timeoutSeconds: 30 })
  updatePartnerBrandLogo(ctx: PartnerCtx<UpdatePartnerBrandLogoInput>) {
    return update.updatePartnerBrandLogo(ctx);
  }

  /** The primary contact (event update_partner_contact). */
  @Write({ access: [PM] })
  updatePartnerContact(ctx: PartnerCtx<UpdatePartnerContactInput>) {
    return update.updatePartnerContact(ctx);
  }

  /** Contract id and dates, start before end (event update_partner_contract). */
  @Write({ access: [PM] })
  updatePartnerContract(ctx: PartnerCtx<UpdatePartnerContractInput>) {
    return update.updatePartnerContract(ctx);
  }

  /** active or inactive, optional reason (event update_partner_status). */
  @Write({ access: [PM] })
  updatePartnerStatus(ctx: PartnerCtx<UpdatePartnerStatusInput>) {
    return update.updatePartnerStatus(ctx);
  }

  // ---------------------------------------------------------------- venues

  /** A venue of the partner (event venue_create), `inactive` until approved; its type is always `venue`. Answers 201. */
  @Write({ access: [PM] })
  createVenue(ctx: PartnerCtx<CreateVenueInput>) {
    return venues.createVenue(ctx);
  }

  /** The venue (`venueId`, body or query) and the approval it waits for; also for other classes (PartnerUser). */
  @Read({ access: [PM, 'class'], schema: 'venueRef', answer: 'getVenue.answer' })
  getVenue(ctx: PartnerReadCtx<VenueRefInput>) {
    return venues.getVenue(ctx);
  }

  /** The partner's venues from the streamed `venues` collection: status, search; paged. */
  // a GET query or a POST body, checked by its schema alike (400 17010 naming the field)
  @Read({ access: [PM, 'class'], onValidationError: invalidListing, answer: 'listVenues.answer' })
  listVenues(ctx: PartnerReadCtx<ListVenuesInput>) {
    return venues.listVenues(ctx);
  }

  /** Name, address, contact, map coordinates (event venue_update). */
  @Write({ access: [PM] })
  updateVenue(ctx: PartnerCtx<UpdateVenueInput>) {
    return venues.updateVenue(ctx);
  }

  /** active or inactive (event venue_status_update). */
  @Write({ access: [PM] })
  updateVenueStatus(ctx: PartnerCtx<UpdateVenueStatusInput>) {
    return venues.updateVenueStatus(ctx);
  }

  // ---------------------------------------------------------------- documents

  @Write({ access: [PM], timeoutSeconds: 30 })
  uploadDocument(ctx: PartnerCtx<UploadDocumentInput>) {
    return documents.uploadDocument(ctx);
  }

  // a GET query or a POST body, checked by its schema alike (400 17010 naming the field)
  @Read({ access: [PM], onValidationError: invalidListing })
  listDocuments(ctx: PartnerReadCtx<ListDocumentsInput>) {
    return documents.listDocuments(ctx);
  }

  /** Active documents only (an archived one: 14008); a 5-minute URL. */
  @Read({ access: [PM], schema: 'documentRef' })
  downloadDocument(ctx: PartnerReadCtx<DocumentRefInput>) {
    return documents.downloadDocument(ctx, false);
  }

  /** Archived (and active) documents; a permission of its own. */
  @Read({ access: [PM], schema: 'documentRef' })
  downloadArchivedDocument(ctx: PartnerReadCtx<DocumentRefInput>) {
    return documents.downloadDocument(ctx, true);
  }

  @Write({ access: [PM], schema: 'documentRef' })
  archiveDocument(ctx: PartnerCtx<DocumentRefInput>) {
    return documents.setDocumentStatus(ctx, 'archived');
  }

  @Write({ access: [PM], schema: 'documentRef' })
  unarchiveDocument(ctx: PartnerCtx<DocumentRefInput>) {
    return documents.setDocumentStatus(ctx, 'active');
  }

  // ---------------------------------------------------------------- approvals and the audit trail

  /** Approval callback (approve and reject) of every partner and venue event. */
  @QueuedWrite({ access: ['class:ApprovalManager'] })
  approvePartner(ctx: PartnerCtx<ApprovalCallbackBody>) {
    return approval.approvePartner(ctx);
  }

  /** The Partner class's audit entries (LogManager): partnerId or entityType/entityId, from/to, search; paged. */
  // a GET query or a POST body, checked by its schema alike (400 17010 naming the field)
  @Static({ access: [PM], onValidationError: invalidLogQuery })
  getLogEntries(ctx: PartnerStaticCtx<GetLogEntriesInput>) {
    return audit.getLogEntries(ctx);
  }

  /** One audit entry of the Partner class by its id (`logId`, body or query). */
  @Static({ access: [PM], schema: 'logRef', onValidationError: invalidLogQuery })
  getLog(ctx: PartnerStaticCtx<LogRefInput>) {
    return audit.getLog(ctx);
  }
}
