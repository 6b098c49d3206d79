/**
 * The rules of the Company singleton as pure functions: new companies,
 * updates, bgId uniqueness, references to active settings, status moves,
 * what a company user may reach, the list query and the streamed documents.
 * Rules that refuse throw a Company ActorError (companyError).
 */
import type { DeepReadonly, FieldError, Identity, ListingSpec } from '../../runtime';
import type { Actor } from '../_platform/actor';
import { hasEntry } from '../_platform/records';
import type { ProgramManagementConfig } from '../Setting/Setting.class';
import type { CreateCompanyInput, ListCompaniesInput, UpdateCompanyInput } from '../../schemas/Company/inputs';
import { escapeRegex, listedDocument, problemsText, type ListingQuery } from '../_platform/paging';
import { companyError } from './errors';
import type { Company, CompanyEntity, CompanyState, CompanyStatus } from './types';

export const COMPANIES_COLLECTION = 'companies';

// ---------------------------------------------------------------- new companies and updates

export function newCompany(input: CreateCompanyInput, actor: Actor, now: string, id: string): Company {
  const company: Company = {
    id,
    name: input.name.trim(),
    companyGroupId: input.companyGroupId,
    hrContact: { name: input.hrContact.name.trim(), email: input.hrContact.email.trim() },
    status: 'pending',
    createdBy: actor,
    createdAt: now,
    updatedAt: now,
    eligibleMemberTypes: [...input.eligibleMemberTypes],
    memberSubTypes: input.memberSubTypes.map((m) => ({
      memberSubTypeId: m.memberSubTypeId,
      maxDependants: m.maxDependants,
    })),
    maxFreeDependants: input.maxFreeDependants,
    bgId: input.bgId.trim(),
    pendingApprovalId: null,
  };
  if (typeof input.description === 'string') company.description = input.description.trim();
  if (input.membershipAutoRenewal?.length) company.membershipAutoRenewal = [...input.membershipAutoRenewal];
  return company;
}

/** the fields of a company's input (updateCompany's names every one, createCompany's as well) */
export type CompanyField = keyof UpdateCompanyInput;

const UPDATABLE: Exclude<CompanyField, 'id'>[] = [
  'name',
  'description',
  'companyGroupId',
  'hrContact',
  'eligibleMemberTypes',
  'memberSubTypes',
  'maxFreeDependants',
  'bgId',
  'membershipAutoRenewal',
];

/** The company after an update body ({id, any of the spec 2.2 fields but status}). */
export function applyCompanyUpdate(current: Company, input: Omit<UpdateCompanyInput, 'id'>, now: string): Company {
  const next: Company = { ...current };
  let touched = false;
  for (const field of UPDATABLE) {
    const value = input[field];
    if (value === undefined) continue;
    touched = true;
    if (field === 'description') {
      if (value === null) delete next.description;
      else next.description = (value as string).trim();
    } else if (field === 'name' || field === 'bgId') {
      next[field] = (value as string).trim();
    } else if (field === 'hrContact') {
      const c = value as Company['hrContact'];
      next.hrContact = { name: c.name.trim(), email: c.email.trim() };
    } else {
      (next as unknown as Record<string, unknown>)[field] = JSON.parse(JSON.stringify(value));
    }
  }
  if (!touched)
    throw companyError('COMPANY_EMPTY_UPDATE', `The update of company '${current.id}' names no field to change`, {
      id: current.id,
    });
  next.updatedAt = now;
  return next;
}

/** The reference fields an input sets (all of them on creation). */
export function referencedFields(input: Partial<CreateCompanyInput | UpdateCompanyInput>): CompanyField[] {
  return (['companyGroupId', 'eligibleMemberTypes', 'memberSubTypes'] as const).filter((f) => input[f] !== undefined);
}

// ---------------------------------------------------------------- uniqueness

/** The company with this bgId (a READ passes its read-only state, a write its draft: the answer is of the same kind). */
export function findByBgId<C extends DeepReadonly<Company>>(
  companies: Readonly<Record<string, C>>,
  bgId: string,
): C | undefined {
  return Object.values(companies).find((c) => c.bgId === bgId);
}

/** Refuses a company whose id (new companies) or bgId another company has. */
export function checkCompanyUnique(
  companies: Record<string, Company>,
  candidate: Company,
  opts: { isNew: boolean },
): void {
  if (opts.isNew && hasEntry(companies, candidate.id)) {
    throw companyError('COMPANY_ID_TAKEN', `A company with id '${candidate.id}' already exists`, { id: candidate.id });
  }
  const other = Object.values(companies).find((c) => c.id !== candidate.id && c.bgId === candidate.bgId);
  if (other) {
    throw companyError(
      'COMPANY_BG_ID_TAKEN',
      `Company '${other.name}' (${other.id}) already has bgId '${candidate.bgId}'`,
      { bgId: candidate.bgId, id: other.id },
    );
  }
}

// ---------------------------------------------------------------- references to settings

export interface ReferenceError {
  field: string;
  reason: string;
  ids: string[];
}

/**
 * The references of `company` (only `fields`) that are not active settings
 * of the right group, and repeated ids. Empty when all is well.
 */
export function referenceProblems(
  company: Pick<Company, 'companyGroupId' | 'eligibleMemberTypes' | 'memberSubTypes'>,
  fields: CompanyField[],
  config: DeepReadonly<ProgramManagementConfig>,
): ReferenceError[] {
  const problems: ReferenceError[] = [];
  const active = (values: readonly { id: string }[]) => new Set(values.map((v) => v.id));
  const check = (field: string, ids: string[], known: Set<string>, label: string) => {
    const unknown = [...new Set(ids.filter((id) => !known.has(id)))];
    if (unknown.length) problems.push({ field, reason: `not active ${label}s: ${unknown.join(', ')}`, ids: unknown });
    const repeated = [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
    if (repeated.length) problems.push({ field, reason: `repeated: ${repeated.join(', ')}`, ids: repeated });
  };
  if (fields.includes('companyGroupId'))
    check('companyGroupId', [company.companyGroupId], active(config.companyGroups), 'company group');
  if (fields.includes('eligibleMemberTypes'))
    check('eligibleMemberTypes', company.eligibleMemberTypes, active(config.memberTypes), 'member type');
  if (fields.includes('memberSubTypes')) {
    check(
      'memberSubTypes',
      company.memberSubTypes.map((m) => m.memberSubTypeId),
      active(config.memberSubTypes),
      'member sub type',
    );
  }
  return problems;
}

export function checkReferences(
  company: Company,
  fields: CompanyField[],
  config: DeepReadonly<ProgramManagementConfig>,
): void {
  const problems = referenceProblems(company, fields, config);
  if (problems.length) {
    throw companyError(
      'COMPANY_INVALID_REFERENCES',
      `The company refers to settings that are not active: ${problemsText(problems)}`,
      {
        errors: problems,
      },
    );
  }
}

export const EMPTY_CONFIG: ProgramManagementConfig = {
  companyGroups: [],
  memberTypes: [],
  memberSubTypes: [],
  tierTypes: [],
  paymentPeriods: [],
  tierGroups: [],
};

// ---------------------------------------------------------------- status moves

/** Statuses updateCompanyStatus may ask for; `pending` is set by createCompany only (spec 3.3). */
export const COMPANY_STATUS_TARGETS: readonly CompanyStatus[] = ['active', 'inactive'];

/**
 *   from \ to   active    inactive   pending / other
 *   pending     ok        ok         400
 *   active      409       ok         400
 *   inactive    ok        409        400
 * The move itself happens once the workflow approves it (update_company_status).
 */
export function checkCompanyStatusMove(id: string, from: CompanyStatus, to: unknown): CompanyStatus {
  if (typeof to !== 'string' || !(COMPANY_STATUS_TARGETS as readonly string[]).includes(to)) {
    throw companyError(
      'COMPANY_INVALID_STATUS',
      `A company's status can only be set to ${COMPANY_STATUS_TARGETS.join(' or ')}`,
      {
        errors: [{ field: 'status', reason: `must be one of: ${COMPANY_STATUS_TARGETS.join(', ')}` }],
      },
    );
  }
  if (to === from)
    throw companyError('COMPANY_STATUS_UNCHANGED', `Company '${id}' is already ${from}`, { id, status: from });
  return to as CompanyStatus;
}

/** The company after its approval is rejected: a rejected creation leaves the company inactive (spec 3.3 "pending to active or inactive"). */
export function afterRejection(company: Company, event: string | number, now: string): Company {
  if (event === 'company_create' && company.status === 'pending')
    return { ...company, status: 'inactive', updatedAt: now };
  return company;
}

// ---------------------------------------------------------------- company users

/**
 * Which companies a caller may reach: a caller limited to a company (a
 * company user, or a class acting for one: identity.tenant, the platform's
 * company scope) reaches only that company; every other caller reaches all.
 */
export type CompanyScope = { kind: 'all' } | { kind: 'own'; companyId: string | null };

export function companyScope(identity: Identity): CompanyScope {
  return identity.tenant === undefined ? { kind: 'all' } : { kind: 'own', companyId: identity.tenant };
}

export function assertMayReach(scope: CompanyScope, companyId: string): void {
  if (scope.kind === 'own' && scope.companyId !== companyId) {
    throw companyError('COMPANY_ACCESS_DENIED', `A company user may only reach its own company`, { companyId });
  }
}

export function assertInternal(scope: CompanyScope, what: string): void {
  if (scope.kind === 'own') throw companyError('COMPANY_ACCESS_DENIED', `A company user may not ${what}`);
}

// ---------------------------------------------------------------- workflow entity and projection

export function toEntity(company: Company): CompanyEntity {
  const { pendingApprovalId: _pending, ...entity } = company;
  return entity;
}

export function fromEntity(entity: CompanyEntity, pendingApprovalId: string | null): Company {
  return { ...entity, pendingApprovalId };
}

export function normalise(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

export function companyDocuments(state: Partial<CompanyState> | undefined) {
  return Object.values(state?.companies ?? {}).map((c) => ({
    collection: COMPANIES_COLLECTION,
    id: c.id,
    doc: { ...c, nameKey: normalise(c.name) },
  }));
}

// ---------------------------------------------------------------- list query

export type CompanyListQuery = ListingQuery;

export const DEFAULT_PAGE_SIZE = 20;

/** listCompanies, by name then id: all, or by status or company group, off an index in that order */
export const LIST_COMPANIES: ListingSpec = {
  name: 'listCompanies',
  sort: { nameKey: 1, id: 1 },
  filterSets: [[], ['status'], ['companyGroupId']],
};
const SEARCH_FIELDS = ['name', 'description', 'bgId', 'hrContact.name', 'hrContact.email'];

/**
 * The refusal of a bad listCompanies (or getCompany, streamCompany) input,
 * whether its schema or a rule refuses it (400 6019, each field and reason).
 */
export function invalidCompanyQuery(errors: FieldError[], what = 'list parameters') {
  return companyError('COMPANY_INVALID_QUERY', `Invalid ${what}: ${problemsText(errors)}`, { errors });
}

/**
 * The listCompanies query from its validated input (schemas/Company/listCompanies.json
 * refuses unknown names, bad values and page sizes): status, companyGroupId,
 * search (name, description, bgId, HR contact; trimmed, blank: none), page
 * (default 1), limit (default 20). A company user's list holds its own company only.
 */
export function companyListQuery(input: ListCompaniesInput, scope: CompanyScope): CompanyListQuery {
  const filter: Record<string, unknown> = {};
  if (input.status !== undefined) filter.status = input.status;
  if (input.companyGroupId !== undefined) filter.companyGroupId = input.companyGroupId;
  const page = input.page ?? 1;
  const limit = input.limit ?? DEFAULT_PAGE_SIZE;
  const search = input.search?.trim();
  if (search) {
    const regex = { $regex: escapeRegex(search), $options: 'i' };
    filter.$or = SEARCH_FIELDS.map((field) => ({ [field]: regex }));
  }
  if (scope.kind === 'own') filter.id = scope.companyId ?? { $in: [] };
  return { filter, sort: { ...LIST_COMPANIES.sort }, page, limit, skip: (page - 1) * limit };
}

export function listedCompany(doc: Record<string, unknown>): Record<string, unknown> {
  return listedDocument(doc, ['nameKey']);
}
