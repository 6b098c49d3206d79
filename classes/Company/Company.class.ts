/**
 * Company (spec 2.2, 3.3, 4.5, 6): the singleton (instance `default`) whose
 * private state holds `companies` (a map by id).
 *
 * Every create, update and status change runs the workflow (events
 * `company_create`, `update_company`, `update_company_status`; rules in
 * workflow-configs/Company.json) through the platform's approval-gated
 * change, is written to the audit log, and is streamed: each company is a
 * document of collection `companies`, which listCompanies reads.
 * approveCompany is the approval callback. References to settings
 * (companyGroupId, eligibleMemberTypes, memberSubTypes) must be active
 * settings (asked from Setting.getProgramManagementConfig).
 *
 * Company users (program management users limited to a company: identity
 * tenant, see classes/_platform/scope.ts) reach only their own company.
 *
 * This file declares the methods (access, kind, schema) and delegates: each
 * body lives in use-cases/<use case>.ts, the rules in rules.ts. README.md in
 * this folder has the operations, choices and error codes.
 */
import { ActorClass, Init, QueuedWrite, Read, Write } from '../../runtime';
import { COMPANY_RECORDS } from '../_platform/scope';
import type { ApprovalCallbackBody } from '../_platform/workflow';
import type {
  CreateCompanyInput,
  GetCompanyInput,
  ListCompaniesInput,
  StreamCompanyInput,
  UpdateCompanyInput,
  UpdateCompanyStatusInput,
} from '../../schemas/Company/inputs';
import { COMPANIES_COLLECTION, companyDocuments, invalidCompanyQuery, LIST_COMPANIES } from './rules';
import type { CompanyClassState } from './types';
import * as approval from './use-cases/approval';
import { COMPANY_INSTANCE, type CompanyCtx, type CompanyReadCtx } from './use-cases/common';
import * as create from './use-cases/create';
import * as listing from './use-cases/listing';
import * as read from './use-cases/read';
import * as status from './use-cases/status';
import * as stream from './use-cases/stream';
import * as update from './use-cases/update';

export { COMPANY_EVENTS, COMPANY_INSTANCE } from './use-cases/common';

/** the types other classes see of this one (they import this file's types only) */
export type { Company as CompanyRecord } from './types';

const PM = ['program_management_user'] as const;
const PM_AND_CLASSES = ['program_management_user', 'class'] as const;

@ActorClass<CompanyClassState>({
  id: 'Company',
  description: 'Companies of the program (spec 2.2)',
  // company scope: the singleton holds every company's record; each handler checks the record it reaches
  // (rules.ts assertMayReach on ctx.tenancy), and the companies listing is filtered on the record's own id
  tenancy: COMPANY_RECORDS,
  stream: {
    collections: {
      // bgId is unique in state (checked on every write); the projection's index is not unique on purpose:
      // documents are upserted one by one, so a projection that catches up over two commits moving a bgId
      // from one company to another could otherwise be refused and stall.
      [COMPANIES_COLLECTION]: {
        tenantField: 'id',
        indexes: [{ keys: { bgId: 1 } }],
        listings: [LIST_COMPANIES],
      },
    },
    toDocuments: (state) => companyDocuments(state.private),
  },
})
export class Company {
  /** Creates the singleton (instance `default`) without companies. */
  @Init({ access: [...PM_AND_CLASSES], instanceId: () => COMPANY_INSTANCE })
  init(ctx: CompanyCtx) {
    return create.init(ctx);
  }

  /**
   * Creates a company in status `pending` (spec 3.3); `company_create`
   * moves it to `active` once approved. Body: spec 2.2 fields + bgId, id optional.
   */
  @Write({ access: [...PM], upsert: true })
  createCompany(ctx: CompanyCtx<CreateCompanyInput>) {
    return create.createCompany(ctx);
  }

  /** Changes any spec 2.2 field but status (body {id, ...fields}); `update_company`. */
  @Write({ access: [...PM] })
  updateCompany(ctx: CompanyCtx<UpdateCompanyInput>) {
    return update.updateCompany(ctx);
  }

  /** Body {id, status: active|inactive}; `update_company_status` (approval by an approver). */
  @Write({ access: [...PM] })
  updateCompanyStatus(ctx: CompanyCtx<UpdateCompanyStatusInput>) {
    return status.updateCompanyStatus(ctx);
  }

  /** One company by {id} or {bgId} (body or query; a bad one is 400 6019); 404 when absent. */
  @Read({
    access: [...PM_AND_CLASSES],
    answer: 'getCompany.answer',
    onValidationError: (errors) => invalidCompanyQuery(errors, 'company lookup'),
  })
  getCompany(ctx: CompanyReadCtx<GetCompanyInput>) {
    return read.getCompany(ctx);
  }

  /** Companies from the document store: filters status, companyGroupId, search; page/limit. */
  @Read({
    access: [...PM_AND_CLASSES],
    answer: 'listCompanies.answer',
    onValidationError: (errors) => invalidCompanyQuery(errors),
  })
  listCompanies(ctx: CompanyReadCtx<ListCompaniesInput>) {
    return listing.listCompanies(ctx);
  }

  /** Manual stream of one company (spec 4.5: READ, by company id): queues restreamCompany; 202 {id, queued, jobId, collection}. */
  @Read({ access: [...PM], onValidationError: (errors) => invalidCompanyQuery(errors, 'stream request') })
  streamCompany(ctx: CompanyReadCtx<StreamCompanyInput>) {
    return stream.streamCompany(ctx);
  }

  /** streamCompany's write: its commit re-projects the companies. */
  @QueuedWrite({ access: ['class:Company'], schema: 'streamCompany' })
  restreamCompany(ctx: CompanyCtx<{ id: string }>) {
    return stream.restreamCompany(ctx);
  }

  /** Approval callback (approve and reject) of every Company event. */
  @QueuedWrite({ access: ['class:ApprovalManager'] })
  approveCompany(ctx: CompanyCtx<ApprovalCallbackBody>) {
    return approval.approveCompany(ctx);
  }
}
