/**
 * ApprovalManager (spec 2.8, 3.2, 4.5).
 *
 * Deviation from the spec's "singleton" wording, on purpose: one actor
 * instance per approval record (instance id = approval id, a UUID). A
 * singleton would serialise every approval of the service through one
 * instance lock and keep all records in one state blob; per-record instances
 * review in parallel, and listings read the streamed `approvals` collection.
 *
 * This file declares the methods and delegates: the bodies are in
 * use-cases/{create,read,review,listing,company-move,subject-data,erasure}.ts
 * (what they share in use-cases/common.ts), the rules in rules.ts, changes.ts,
 * subject-data-rules.ts and erasure-rules.ts.
 */
import { randomUUID } from 'node:crypto';
import {
  ActorClass,
  client,
  Init,
  Internal,
  Read,
  Static,
  Write,
  type BaseCtx,
  type Ctx,
  type ReadCtx,
  type StaticCtx,
} from '../../runtime';
import { ownedByCompany } from '../_platform/scope';
import { SUBJECT_DATA_ACCESS } from '../_platform/personal-data';
import { approvalDocument, LIST_APPROVALS } from './rules';
import { LIST_SUBJECT_APPROVALS } from './subject-data-rules';
import type {
  EraseRecordInput,
  EraseSubjectDataInput,
  ExportSubjectDataInput,
  GetApprovalInput,
  ListApprovalsInput,
  MoveApprovalCompanyInput,
  ReviewApprovalInput,
} from '../../schemas/ApprovalManager/inputs';
import { invalidListing } from './errors';
import type { ApprovalManagerState, CreateApprovalInput } from './types';
import * as creation from './use-cases/create';
import * as reading from './use-cases/read';
import * as review from './use-cases/review';
import * as listing from './use-cases/listing';
import * as companyMove from './use-cases/company-move';
import * as subjectData from './use-cases/subject-data';
import * as erasure from './use-cases/erasure';

/**
 * ApprovalManager's typed client, as exportSubjectData and eraseSubjectData
 * need it (they read each record from its instance, the erasure has each
 * record rewritten by its instance): the compiler checks that the client
 * derived from this class fits their interfaces.
 */
const records = (ctx: Pick<BaseCtx, 'call'>): subjectData.RecordReader & erasure.RecordEraser =>
  client<typeof ApprovalManager>(ctx, 'ApprovalManager');

@ActorClass<ApprovalManagerState>({
  id: 'ApprovalManager',
  description: 'Approval records and their review (spec 2.8, 3.2)',
  // company scope: a record belongs to the company of the entity it changes; records of programme data are internal
  tenancy: ownedByCompany((state) => state.public.approval?.companyId),
  stream: {
    collections: {
      approvals: {
        tenantField: 'companyId',
        listings: [LIST_APPROVALS, LIST_SUBJECT_APPROVALS],
      },
    },
    toDocuments: (state, id) =>
      state.public.approval ? [{ collection: 'approvals', id, doc: approvalDocument(state.public.approval) }] : [],
  },
})
export class ApprovalManager {
  /**
   * The record one workflow event will be stored as (id, status, dates, the
   * before/after view), without storing anything: runWorkflow answers its
   * caller with it and commits createApproval with the change, as an effect
   * (runtime/actor/effects.ts) whose instance id is this record's id and whose
   * body carries this `createdAt`, so the stored record is this one.
   */
  @Static({ access: ['class'], schema: 'createApproval' })
  prepareApproval(ctx: StaticCtx<CreateApprovalInput>) {
    return creation.prepareApproval(ctx);
  }

  /**
   * Stores the record of one workflow event (runWorkflow commits it with the
   * change, see prepareApproval). Auto-approved (type auto, approvedBy
   * auto_approve) when the rule has no approvers or the actor is a developer
   * or the system. A patch over 10 KB is stored as blob
   * LARGE_APPROVAL_{entityId}_{approvalId}.json (blob writes are idempotent by
   * name, so a redelivered effect writes the same files).
   */
  // the id is a UUID chosen up front (or a fresh one), so the instance is created at commit without a lease
  @Init({ access: ['class'], instanceId: (req) => req.path.instanceId ?? randomUUID(), lease: false })
  async createApproval(ctx: Ctx<ApprovalManagerState, CreateApprovalInput>) {
    return creation.createApproval(ctx);
  }

  /**
   * One record with its before/after view. Program management users need the
   * permission ApprovalManager.getApproval, or to be an eligible approver of
   * the record (an active role it names, or a developer): who may approve a
   * record may see it.
   */
  @Read({ access: ['program_management_user', 'class'], skipRoleCheck: true })
  async getApproval(ctx: ReadCtx<ApprovalManagerState, GetApprovalInput>) {
    return reading.getApproval(ctx);
  }

  /**
   * Approve or reject a pending record (body {action, note?}). Only eligible
   * approvers: a program management user holding, as an active role of the
   * deployed roles now (ctx.roles(), not the token's claims), a role the
   * record names (by name or id), or a developer (the approver check replaces
   * the role check). The maker of the change may not approve it unless its
   * rule allowed self-approval (403 8007); it may reject (withdraw) it. The
   * originating class's callback is queued (QUEUED_WRITE) with the full
   * patch; when queuing fails, nothing is committed.
   */
  @Write({ access: ['program_management_user'], skipRoleCheck: true })
  async reviewApproval(ctx: Ctx<ApprovalManagerState, ReviewApprovalInput>) {
    return review.reviewApproval(ctx);
  }

  /**
   * Listing from the streamed `approvals` collection, newest first. Filters:
   * approvalStatus, classId, event, entityId, actionable (pending records the
   * caller may approve now: an active role of the caller is named, and the
   * caller is not the maker unless self-approval is allowed), page (from 1),
   * limit (1-100, default 10). POST body or GET query (400 8004 naming each bad field). `actionable: true`
   * needs no permission (what an approver can act on); every other listing
   * needs ApprovalManager.listApprovals. Rows carry `changes` when their patch
   * and old values are inline (see README).
   */
  @Static({ access: ['program_management_user'], skipRoleCheck: true, onValidationError: invalidListing })
  async listApprovals(ctx: StaticCtx<ListApprovalsInput>) {
    return listing.listApprovals(ctx);
  }

  /**
   * The entity a pending record changes moved to another company (the HR
   * system moved a member): the record moves with it, so that company's
   * approvers see and review it. Only the record's own class, only while
   * pending (403 8005, 409 8000). Sent as a committed effect of the move.
   */
  @Write({ access: ['class'] })
  moveApprovalCompany(ctx: Ctx<ApprovalManagerState, MoveApprovalCompanyInput>) {
    return companyMove.moveApprovalCompany(ctx);
  }

  /**
   * The approval records about one data subject (changes of the subject,
   * changes it made, changes it reviewed), each as stored, with the blobs
   * they keep out of line: for DataSubject's export only
   * (classes/_platform/personal-data.ts). Found through the `approvals`
   * listing, read from the records' instances (readRecord).
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS], timeoutSeconds: 30 })
  async exportSubjectData(ctx: StaticCtx<ExportSubjectDataInput>) {
    return subjectData.exportSubjectData(ctx, records(ctx));
  }

  /**
   * The record as stored (blob names and inline old values included), for
   * exportSubjectData; getApproval answers the callers' view instead.
   */
  // no input: the record is the instance
  @Read({
    access: ['class:ApprovalManager'],
    schema: false,
    answer: {
      description:
        'ApprovalManager.readRecord: the record as stored (storage details included: largePatchFile, oldValues, oldValuesFile), for exportSubjectData.',
      $ref: 'records.answer.json#/$defs/approval',
    },
  })
  readRecord(ctx: ReadCtx<ApprovalManagerState, Record<string, never>>) {
    return subjectData.readRecord(ctx);
  }

  /**
   * DataSubject's approved erasure of one data subject
   * (classes/_platform/personal-data.ts): the records exportSubjectData gives
   * lose the subject's values (a record about it: patch values, old values,
   * additionalData and the review note read `[erased]`, in its blobs too,
   * marked erasedBy/erasedAt; a pending one stays pending) or its name (a
   * record it made or reviewed). → {records, files}; zeros on a second call.
   * Each record is rewritten by its own instance (eraseRecord).
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS], timeoutSeconds: 30 })
  async eraseSubjectData(ctx: StaticCtx<EraseSubjectDataInput>) {
    return erasure.eraseSubjectData(ctx, records(ctx));
  }

  /** One record's part of eraseSubjectData: the record decides on its own state what is left to erase (erasure-rules.ts). */
  @Internal({ access: ['class:ApprovalManager'] })
  async eraseRecord(ctx: Ctx<ApprovalManagerState, EraseRecordInput>) {
    return erasure.eraseRecord(ctx);
  }
}
