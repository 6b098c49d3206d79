/**
 * Company (spec 2.2, 3.3, 4.5, 6): the singleton (instance `default`) whose
 * private state holds `companies` (a map by id).
 *
 * Every create, update and status change runs the workflow (events
 * `company_create`, `update_company`, `update_company_status`; rules in
 * workflow-configs/Company.json), is written to the audit log, and is
 * streamed: each company is a document of collection `companies`, which
 * listCompanies reads. approveCompany is the approval callback. References
 * to settings (companyGroupId, eligibleMemberTypes, memberSubTypes) must be
 * active settings (asked from Setting.getProgramManagementConfig).
 *
 * Company users (program management users limited to a company: identity
 * tenant, see classes/_platform/scope.ts) reach only their own company.
 *
 * Handlers are thin: the rules are in rules.ts.
 */
import { randomUUID } from 'node:crypto';
import { ActorClass, ActorError, Init, isUnknownInstance, QueuedWrite, Read, Write, type Ctx } from '../../runtime';
import { actorFromIdentity } from '../_platform/actor';
import { openRecord, ownEntry } from '../_platform/records';
import { applyApprovalCallback, approvalSummary, PatchConflictError, runWorkflow, type ApprovalCallbackBody } from '../_platform/workflow';
import { logChange } from '../_platform/audit-log';
import { COMPANY_RECORDS } from '../_platform/scope';
import type { ProgramManagementConfig } from '../Setting/types';
import { COMPANY_PATCH_CONFLICT, companyError } from './errors';
import {
  afterRejection,
  applyCompanyUpdate,
  assertInternal,
  assertMayReach,
  checkCompanyStatusMove,
  checkCompanyUnique,
  checkReferences,
  COMPANIES_COLLECTION,
  companyDocuments,
  companyScope,
  EMPTY_CONFIG,
  findByBgId,
  fromEntity,
  listedCompany,
  newCompany,
  parseCompanyListQuery,
  referencedFields,
  toEntity,
} from './rules';
import type { Company as CompanyRecord, CompanyInput, CompanyState } from './types';

export const COMPANY_INSTANCE = 'default';
export const COMPANY_EVENTS = { create: 'company_create', update: 'update_company', status: 'update_company_status' } as const;

const PM = ['program_management_user'] as const;
const PM_AND_CLASSES = ['program_management_user', 'class'] as const;

function guardSingleton(ctx: Ctx): void {
  if (ctx.instanceId !== COMPANY_INSTANCE) {
    throw companyError('COMPANY_SINGLETON_ONLY', `Company is a singleton: call instance '${COMPANY_INSTANCE}', not '${ctx.instanceId}'`);
  }
}

function writable(ctx: Ctx): CompanyState {
  guardSingleton(ctx);
  const s = ctx.state.private as CompanyState;
  // keyed by caller-given ids: a null-prototype record, so '__proto__' or 'constructor' are ordinary ids
  s.companies = openRecord(s.companies);
  return s;
}

function readable(ctx: Ctx): CompanyState {
  guardSingleton(ctx);
  const s = ctx.state.private as Partial<CompanyState>;
  return { companies: s.companies ?? {} };
}

function param(ctx: Ctx, name: string): unknown {
  const body = (ctx.request.body ?? {}) as Record<string, unknown>;
  return body[name] ?? (ctx.request.query ?? {})[name];
}

function requireCompany(state: CompanyState, id: string): CompanyRecord {
  const company = ownEntry(state.companies, id);
  if (!company) throw companyError('COMPANY_NOT_FOUND', `No company with id '${id}'`, { id });
  return company;
}

function refuseWhilePending(company: CompanyRecord): void {
  if (company.pendingApprovalId) {
    throw companyError('COMPANY_APPROVAL_PENDING', `Company '${company.id}' waits for approval ${company.pendingApprovalId}`, { id: company.id, approvalId: company.pendingApprovalId });
  }
}


/** The active settings the references must name (none while Setting has no instance yet). */
async function activeSettings(ctx: Ctx): Promise<ProgramManagementConfig> {
  try {
    return (await ctx.call('Setting', 'getProgramManagementConfig', 'default', {})).body as ProgramManagementConfig;
  } catch (err) {
    if (isUnknownInstance(err)) return EMPTY_CONFIG;
    throw err;
  }
}

async function logCompany(ctx: Ctx, id: string, before: CompanyRecord | null, after: CompanyRecord, extra: Record<string, unknown>) {
  await logChange(ctx, {
    entityType: 'company',
    entityId: id,
    before: before ? { ...toEntity(before) } : null,
    after: { ...toEntity(after) },
    additionalData: extra,
    // the entry belongs to the company it logs: that company's users see it
    companyId: id,
  });
}

/** Runs an update/status event: auto approvals apply at once, manual ones wait for approveCompany. */
async function changeCompany(ctx: Ctx, state: CompanyState, event: string, old: CompanyRecord, requested: CompanyRecord) {
  const wf = await runWorkflow(ctx, {
    event,
    entityId: old.id,
    oldEntity: toEntity(old),
    newEntity: toEntity(requested),
    approveCallback: 'approveCompany',
    rejectCallback: 'approveCompany',
    // the record belongs to the company it changes: that company's users see it
    companyId: old.id,
  });
  if (wf.isApproved) {
    const applied = fromEntity(wf.simulatedApprovedState, null);
    state.companies[old.id] = applied;
    await logCompany(ctx, old.id, old, applied, { event, approvalId: wf.approvalRecord.id });
  } else {
    state.companies[old.id] = { ...old, pendingApprovalId: wf.approvalRecord.id };
  }
  return { company: state.companies[old.id], approval: approvalSummary(wf.approvalRecord), newStatus: wf.newStatus ?? null };
}

@ActorClass({
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
        indexes: [{ keys: { status: 1, nameKey: 1 } }, { keys: { companyGroupId: 1, nameKey: 1 } }, { keys: { bgId: 1 } }, { keys: { nameKey: 1 } }],
      },
    },
    toDocuments: (state) => companyDocuments(state.private as Partial<CompanyState>),
  },
})
export class Company {
  /** Creates the singleton (instance `default`) without companies. */
  @Init({ access: [...PM_AND_CLASSES], instanceId: () => COMPANY_INSTANCE })
  init(ctx: Ctx) {
    (ctx.state.private as CompanyState).companies = {};
    return { id: ctx.instanceId, companies: 0 };
  }

  /**
   * Creates a company in status `pending` (spec 3.3); `company_create`
   * moves it to `active` once approved. Body: spec 2.2 fields + bgId, id optional.
   */
  @Write({ access: [...PM], upsert: true })
  async createCompany(ctx: Ctx) {
    const state = writable(ctx);
    assertInternal(companyScope(ctx.identity), 'create companies');
    const input = ctx.request.body as CompanyInput;
    const company = newCompany(input, actorFromIdentity(ctx.identity), new Date().toISOString(), input.id ?? randomUUID());
    checkCompanyUnique(state.companies, company, { isNew: true });
    checkReferences(company, referencedFields(input), await activeSettings(ctx));
    const wf = await runWorkflow(ctx, {
      event: COMPANY_EVENTS.create,
      entityId: company.id,
      oldEntity: null,
      newEntity: toEntity(company),
      approveCallback: 'approveCompany',
      rejectCallback: 'approveCompany',
      companyId: company.id,
    });
    const stored = wf.isApproved ? fromEntity(wf.simulatedApprovedState, null) : { ...company, pendingApprovalId: wf.approvalRecord.id };
    state.companies[company.id] = stored;
    await logCompany(ctx, company.id, null, stored, { event: COMPANY_EVENTS.create, approvalId: wf.approvalRecord.id });
    ctx.response.status = 201;
    return { company: stored, approval: approvalSummary(wf.approvalRecord), newStatus: wf.newStatus ?? null };
  }

  /** Changes any spec 2.2 field but status (body {id, ...fields}); `update_company`. */
  @Write({ access: [...PM] })
  async updateCompany(ctx: Ctx) {
    const state = writable(ctx);
    const input = ctx.request.body as CompanyInput & { id: string };
    assertMayReach(companyScope(ctx.identity), input.id);
    const old = requireCompany(state, input.id);
    refuseWhilePending(old);
    const requested = applyCompanyUpdate(old, input, new Date().toISOString());
    checkCompanyUnique(state.companies, requested, { isNew: false });
    const fields = referencedFields(input);
    if (fields.length) checkReferences(requested, fields, await activeSettings(ctx));
    return changeCompany(ctx, state, COMPANY_EVENTS.update, old, requested);
  }

  /** Body {id, status: active|inactive}; `update_company_status` (approval by an approver). */
  @Write({ access: [...PM] })
  async updateCompanyStatus(ctx: Ctx) {
    const state = writable(ctx);
    const { id, status } = ctx.request.body as { id: string; status: unknown };
    assertMayReach(companyScope(ctx.identity), id);
    const old = requireCompany(state, id);
    refuseWhilePending(old);
    const target = checkCompanyStatusMove(id, old.status, status);
    return changeCompany(ctx, state, COMPANY_EVENTS.status, old, { ...old, status: target, updatedAt: new Date().toISOString() });
  }

  /** One company by {id} or {bgId} (body or query); 404 when absent. */
  @Read({ access: [...PM_AND_CLASSES] })
  getCompany(ctx: Ctx) {
    const state = readable(ctx);
    const id = param(ctx, 'id');
    const bgId = param(ctx, 'bgId');
    let company: CompanyRecord | undefined;
    if (typeof id === 'string' && id) company = ownEntry(state.companies, id);
    else if (typeof bgId === 'string' && bgId) company = findByBgId(state.companies, bgId);
    else throw companyError('COMPANY_INVALID_QUERY', 'Give the company id or bgId', { errors: [{ field: 'id', reason: 'id or bgId is required' }] });
    const scope = companyScope(ctx.identity);
    if (!company) {
      // a company user learns nothing about other companies: 403 whether or not they exist
      if (scope.kind === 'own') assertMayReach(scope, typeof id === 'string' ? id : '');
      throw companyError('COMPANY_NOT_FOUND', id ? `No company with id '${id}'` : `No company with bgId '${bgId}'`, id ? { id } : { bgId });
    }
    assertMayReach(scope, company.id);
    return company;
  }

  /** Companies from the document store: filters status, companyGroupId, search; page/limit. */
  @Read({ access: [...PM_AND_CLASSES] })
  async listCompanies(ctx: Ctx) {
    guardSingleton(ctx);
    const q = parseCompanyListQuery((ctx.request.query ?? {}) as Record<string, unknown>, (ctx.request.body ?? {}) as Record<string, unknown>, companyScope(ctx.identity));
    const { items, total } = await ctx.documents.find(COMPANIES_COLLECTION, q.filter, { sort: q.sort, skip: q.skip, limit: q.limit });
    return { items: items.map((d) => listedCompany(d as Record<string, unknown>)), totalCount: total, page: q.page, limit: q.limit, totalPages: Math.ceil(total / q.limit) };
  }

  /**
   * Manual stream of one company (spec 4.5: READ, by company id). A READ
   * cannot commit, so it queues restreamCompany, whose commit re-projects
   * the companies; answers {id, jobId}.
   */
  @Read({ access: [...PM] })
  async streamCompany(ctx: Ctx) {
    const state = readable(ctx);
    const id = param(ctx, 'id');
    if (typeof id !== 'string' || !id) throw companyError('COMPANY_INVALID_QUERY', 'id is required', { errors: [{ field: 'id', reason: 'is required' }] });
    assertMayReach(companyScope(ctx.identity), id);
    requireCompany(state, id);
    const queued = await ctx.call('Company', 'restreamCompany', COMPANY_INSTANCE, { id });
    ctx.response.status = 202;
    return { id, queued: true, jobId: (queued.body as { jobId: string }).jobId, collection: COMPANIES_COLLECTION };
  }

  /** streamCompany's write: records the request, so that the commit re-projects the companies. */
  @QueuedWrite({ access: ['class:Company'], schema: 'streamCompany' })
  restreamCompany(ctx: Ctx) {
    const state = writable(ctx);
    const { id } = ctx.request.body as { id: string };
    requireCompany(state, id);
    state.lastStreamed = { id, at: new Date().toISOString() };
    return { streamed: true, id };
  }

  /**
   * Approval callback (approve and reject) of every Company event. Approve:
   * the approved patch is applied. Reject: nothing changes, except that a
   * company whose creation is rejected becomes `inactive`. An approved change
   * that no longer fits (patch conflict, bgId taken meanwhile) is not
   * applied; the company stops waiting and the result says why.
   */
  @QueuedWrite({ access: ['class:ApprovalManager'] })
  async approveCompany(ctx: Ctx) {
    const state = writable(ctx);
    const body = ctx.request.body as ApprovalCallbackBody;
    const current = ownEntry(state.companies, body.entityId);
    if (!current || current.pendingApprovalId !== body.approvalId) {
      throw companyError('COMPANY_APPROVAL_MISMATCH', `Approval ${body.approvalId} is not the one company '${body.entityId}' waits for`, {
        id: body.entityId,
        waiting: current?.pendingApprovalId ?? null,
      });
    }
    const released: CompanyRecord = { ...current, pendingApprovalId: null };
    state.companies[current.id] = released;
    const conflict = (reason: string) => {
      ctx.log.warn({ approvalId: body.approvalId, companyId: current.id, reason }, 'approved company change not applied');
      return { applied: false, action: body.action, code: COMPANY_PATCH_CONFLICT, reason, company: released };
    };
    let next: CompanyRecord;
    if (body.action === 'approve') {
      try {
        next = fromEntity(applyApprovalCallback(toEntity(current), body), null);
      } catch (err) {
        if (err instanceof PatchConflictError) return conflict(err.message);
        throw err;
      }
      try {
        checkCompanyUnique(state.companies, next, { isNew: false });
      } catch (err) {
        if (err instanceof ActorError) return conflict(err.message);
        throw err;
      }
    } else {
      next = afterRejection(released, body.event, new Date().toISOString());
      if (next === released) return { applied: false, action: body.action, company: released };
    }
    state.companies[current.id] = next;
    await logCompany(ctx, current.id, current, next, { event: body.event, approvalId: body.approvalId, action: body.action });
    return { applied: true, action: body.action, company: next };
  }
}
