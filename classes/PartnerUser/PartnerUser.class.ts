/**
 * PartnerUser (spec 2.6, 3.3, 4.5, 6; codes 17100-17199): the users of the
 * partners' own staff, each belonging to one or more partners with a role
 * there (`admin`, `manager`, `staff`) and assigned to venues of those
 * partners. One actor instance per user (instance id = user id); the email
 * is unique among partner users through the `email` lookup key (lower-cased).
 * Every change runs the workflow (user_create, user_update,
 * user_status_update; rules in workflow-configs/PartnerUser.json) as an
 * approval-gated change, is audit-logged, and is streamed to the
 * `partnerUsers` collection, which listPartnerUsers reads. Partners and
 * venues are Partner's: every partner and venue a change adds is asked from
 * it (use-cases/partners.ts).
 *
 * This file declares the methods and delegates: each body lives in
 * use-cases/<use case>.ts, the rules in rules.ts. README.md has the choices.
 */
import { ActorClass, client, Init, Internal, QueuedWrite, Read, Static, Write, type StaticCtx } from '../../runtime';
import { SUBJECT_DATA_ACCESS, type SubjectData, type SubjectErasure } from '../_platform/personal-data';
import { SHARED_DATA } from '../_platform/scope';
import type { ApprovalCallbackBody } from '../_platform/workflow';
import { LIST_PARTNER_USERS, partnerUserDocument, PARTNER_USERS_COLLECTION } from './rules';
import type { PartnerUserClassState } from './types';
import { invalidListing } from './errors';
import type {
  AddVenuesInput,
  EraseSubjectDataInput,
  EraseUserInput,
  ExportSubjectDataInput,
  InitInput,
  ListPartnerUsersInput,
  RemoveVenuesInput,
  UpdateStatusInput,
  UpdateUserInput,
} from '../../schemas/PartnerUser/inputs';
import * as approval from './use-cases/approval';
import * as change from './use-cases/change';
import type { PartnerUserCtx, PartnerUserReadCtx, PartnerUserStaticCtx } from './use-cases/common';
import * as create from './use-cases/create';
import * as listing from './use-cases/listing';
import * as read from './use-cases/read';
import * as subjectData from './use-cases/subject-data';
import * as venues from './use-cases/venues';

const PM = 'program_management_user';

@ActorClass<PartnerUserClassState>({
  id: 'PartnerUser',
  description: 'Users of the partners, their partners, roles and venues (spec 2.6)',
  // partner users are the programme's, not a company's: company users may read them, never change them
  tenancy: SHARED_DATA,
  stream: {
    collections: {
      [PARTNER_USERS_COLLECTION]: {
        listings: [LIST_PARTNER_USERS],
      },
    },
    toDocuments: (state, id) =>
      state.private.user
        ? [
            {
              collection: PARTNER_USERS_COLLECTION,
              id,
              doc: partnerUserDocument(state.private.user, state.private.pendingApproval ?? null),
            },
          ]
        : [],
  },
})
export class PartnerUser {
  /** A new user (`pending`) in a new instance (the path's id, else a UUID); user_create → `active` once approved (201). */
  @Init({ access: [PM] })
  init(ctx: PartnerUserCtx<InitInput>) {
    return create.init(ctx);
  }

  @Read({ access: [PM] })
  getUser(ctx: PartnerUserReadCtx) {
    return read.getUser(ctx);
  }

  /** fullName, email, partners and venues, all of them (no partial update); user_update. */
  @Write({ access: [PM] })
  updateUser(ctx: PartnerUserCtx<UpdateUserInput>) {
    return change.updateUser(ctx);
  }

  /** pending, active or inactive, with an optional statusReason; user_status_update. */
  @Write({ access: [PM] })
  updateStatus(ctx: PartnerUserCtx<UpdateStatusInput>) {
    return change.updateStatus(ctx);
  }

  /** From the document store: status, partnerId, search (name, email); page, limit 1-100 (default 20). */
  @Static({ access: [PM], onValidationError: invalidListing })
  listPartnerUsers(ctx: PartnerUserStaticCtx<ListPartnerUsersInput>) {
    return listing.listPartnerUsers(ctx);
  }

  /** [{partnerId, venueId}]: venues of the user's partners; duplicates prevented; user_update. */
  @Write({ access: [PM] })
  addVenues(ctx: PartnerUserCtx<AddVenuesInput>) {
    return venues.addVenues(ctx);
  }

  /** [venueId]; user_update. */
  @Write({ access: [PM] })
  removeVenues(ctx: PartnerUserCtx<RemoveVenuesInput>) {
    return venues.removeVenues(ctx);
  }

  @Read({ access: [PM] })
  listVenues(ctx: PartnerUserReadCtx) {
    return venues.listVenues(ctx);
  }

  /** key, value and label of admin, manager and staff. */
  @Static({ access: [PM] })
  getRoles() {
    return listing.getRoles();
  }

  /** Approval callback (approve and reject) of user_create, user_update and user_status_update. */
  @QueuedWrite({ access: ['class:ApprovalManager'] })
  approveUser(ctx: PartnerUserCtx<ApprovalCallbackBody>) {
    return approval.approveUser(ctx);
  }

  /**
   * {subject} → a partner user's state and listing document, `companyId: null`, for DataSubject's export;
   * nothing for other subjects; 404 17110 for an unknown user. Read through readUserState: a STATIC has no
   * instance state.
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS] })
  exportSubjectData(ctx: StaticCtx<ExportSubjectDataInput>): Promise<SubjectData> {
    return subjectData.exportSubjectData(ctx, client<typeof PartnerUser>(ctx, 'PartnerUser'));
  }

  /** The user's state as stored, for exportSubjectData only (its input is getUser's: none). */
  @Read({ access: ['class:PartnerUser'], schema: 'getUser' })
  readUserState(ctx: PartnerUserReadCtx) {
    return subjectData.readUserState(ctx);
  }

  /**
   * {subject, erasureId} → {records, files: 0}: a partner user erased for DataSubject's erasure (personal values
   * ERASED, waiting change gone, `inactive`, email released, marked erased); zeros for other subjects or a user
   * erased before; 404 17110 for an unknown user; 403 1023 for a caller limited to a company. Written through
   * eraseUser: a STATIC has no instance state.
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS] })
  eraseSubjectData(ctx: StaticCtx<EraseSubjectDataInput>): Promise<SubjectErasure> {
    return subjectData.eraseSubjectData(ctx, client<typeof PartnerUser>(ctx, 'PartnerUser'));
  }

  /** {erasureId} → {erased}: the user's state erased, for eraseSubjectData only. */
  @Internal({ access: ['class:PartnerUser'] })
  eraseUser(ctx: PartnerUserCtx<EraseUserInput>) {
    return subjectData.eraseUser(ctx);
  }
}
