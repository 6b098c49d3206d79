/** Company's pure rules: new companies, updates, bgId uniqueness, references, status moves, company users, lists, projection. */
import { ActorError, type Identity } from '../../runtime';
import type { Actor } from '../../classes/_platform/actor';
import {
  afterRejection,
  applyCompanyUpdate,
  assertInternal,
  assertMayReach,
  checkCompanyStatusMove,
  checkCompanyUnique,
  checkReferences,
  companyDocuments,
  companyListQuery,
  companyScope,
  EMPTY_CONFIG,
  findByBgId,
  fromEntity,
  invalidCompanyQuery,
  newCompany,
  referencedFields,
  referenceProblems,
  toEntity,
} from '../../classes/Company/rules';
import type { Company, CompanyStatus } from '../../classes/Company/types';
import type { CreateCompanyInput } from '../../schemas/Company/inputs';
import { schemaRefusal } from './support';
import type { ProgramManagementConfig } from '../../classes/Setting/types';

const actor: Actor = { id: 'u1', type: 'program_management_user', roles: ['super'] };
const NOW = '2024-05-01T00:00:00.000Z';
const LATER = '2024-05-02T00:00:00.000Z';

function refusal(fn: () => unknown): ActorError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ActorError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const input: CreateCompanyInput = {
  name: '  Acme ',
  companyGroupId: 'g1',
  hrContact: { name: ' Hana ', email: 'hana@acme.test ' },
  eligibleMemberTypes: ['mt1'],
  memberSubTypes: [{ memberSubTypeId: 's1', maxDependants: 2 }],
  maxFreeDependants: 1,
  bgId: ' BG-1 ',
};
const acme = newCompany(input, actor, NOW, 'c1');

const config = {
  ...EMPTY_CONFIG,
  companyGroups: [{ id: 'g1' }, { id: 'g2' }],
  memberTypes: [{ id: 'mt1' }, { id: 'mt2' }],
  memberSubTypes: [{ id: 's1' }],
} as unknown as ProgramManagementConfig;

describe('new companies and updates', () => {
  test('a new company is pending, trimmed, with its creator and times', () => {
    expect(acme).toEqual({
      id: 'c1',
      name: 'Acme',
      companyGroupId: 'g1',
      hrContact: { name: 'Hana', email: 'hana@acme.test' },
      status: 'pending',
      createdBy: actor,
      createdAt: NOW,
      updatedAt: NOW,
      eligibleMemberTypes: ['mt1'],
      memberSubTypes: [{ memberSubTypeId: 's1', maxDependants: 2 }],
      maxFreeDependants: 1,
      bgId: 'BG-1',
      pendingApprovalId: null,
    });
    expect(newCompany({ ...input, description: ' d ' }, actor, NOW, 'c2').description).toBe('d');
  });

  test('an update changes the given fields and updatedAt; null removes the description; status stays', () => {
    const next = applyCompanyUpdate(
      { ...acme, description: 'x' },
      { name: 'Acme Ltd', description: null, maxFreeDependants: 3, memberSubTypes: [] },
      LATER,
    );
    expect(next).toEqual({ ...acme, name: 'Acme Ltd', maxFreeDependants: 3, memberSubTypes: [], updatedAt: LATER });
    const err = refusal(() => applyCompanyUpdate(acme, {}, LATER));
    expect([err.status, err.code]).toEqual([400, 6022]);
  });

  test('the reference fields checked are the ones given (all of them on creation)', () => {
    expect(referencedFields(input)).toEqual(['companyGroupId', 'eligibleMemberTypes', 'memberSubTypes']);
    expect(referencedFields({ name: 'x', eligibleMemberTypes: [] })).toEqual(['eligibleMemberTypes']);
    expect(referencedFields({ name: 'x' })).toEqual([]);
  });
});

describe('uniqueness', () => {
  const companies: Record<string, Company> = { c1: acme };
  test('bgId is unique across companies (409 6011); ids too (409 6020); a company keeps its own', () => {
    const clash = refusal(() => checkCompanyUnique(companies, { ...acme, id: 'c2' }, { isNew: true }));
    expect([clash.status, clash.code, clash.details]).toEqual([409, 6011, { bgId: 'BG-1', id: 'c1' }]);
    const sameId = refusal(() => checkCompanyUnique(companies, { ...acme, bgId: 'BG-2' }, { isNew: true }));
    expect([sameId.status, sameId.code]).toEqual([409, 6020]);
    expect(() => checkCompanyUnique(companies, { ...acme, name: 'renamed' }, { isNew: false })).not.toThrow();
    expect(() => checkCompanyUnique(companies, { ...acme, id: 'c2', bgId: 'bg-1' }, { isNew: true })).not.toThrow(); // exact match only
    expect(findByBgId(companies, 'BG-1')?.id).toBe('c1');
    expect(findByBgId(companies, 'BG-9')).toBeUndefined();
  });
});

describe('references to active settings', () => {
  test('all active: no problem', () => {
    expect(referenceProblems(acme, referencedFields(input), config)).toEqual([]);
  });

  test('each field names its unknown (or inactive) and repeated ids', () => {
    const bad = {
      ...acme,
      companyGroupId: 'gX',
      eligibleMemberTypes: ['mt1', 'mtX', 'mtX', 'mt2', 'mt2'],
      memberSubTypes: [{ memberSubTypeId: 'sX', maxDependants: 1 }],
    };
    expect(referenceProblems(bad, referencedFields(input), config)).toEqual([
      { field: 'companyGroupId', reason: 'not active company groups: gX', ids: ['gX'] },
      { field: 'eligibleMemberTypes', reason: 'not active member types: mtX', ids: ['mtX'] },
      { field: 'eligibleMemberTypes', reason: 'repeated: mtX, mt2', ids: ['mtX', 'mt2'] },
      { field: 'memberSubTypes', reason: 'not active member sub types: sX', ids: ['sX'] },
    ]);
    // only the fields asked for are checked
    expect(referenceProblems(bad, ['memberSubTypes'], config).map((p) => p.field)).toEqual(['memberSubTypes']);
    const err = refusal(() => checkReferences(bad, ['companyGroupId'], config));
    expect([err.status, err.code]).toEqual([400, 6012]);
    expect(err.details).toEqual({
      errors: [{ field: 'companyGroupId', reason: 'not active company groups: gX', ids: ['gX'] }],
    });
  });

  test('without settings every reference is unknown', () => {
    expect(referenceProblems(acme, referencedFields(input), EMPTY_CONFIG).map((p) => p.ids)).toEqual([
      ['g1'],
      ['mt1'],
      ['s1'],
    ]);
  });
});

describe('company status moves (spec 3.3)', () => {
  const cases: [CompanyStatus, unknown, CompanyStatus | [number, number]][] = [
    ['pending', 'active', 'active'],
    ['pending', 'inactive', 'inactive'],
    ['pending', 'pending', [400, 6013]],
    ['active', 'inactive', 'inactive'],
    ['active', 'active', [409, 6014]],
    ['active', 'pending', [400, 6013]],
    ['inactive', 'active', 'active'],
    ['inactive', 'inactive', [409, 6014]],
    ['inactive', 'pending', [400, 6013]],
    ['active', 'closed', [400, 6013]],
    ['active', null, [400, 6013]],
  ];
  test.each(cases)('%s → %j: %j', (from, to, expected) => {
    if (typeof expected === 'string') expect(checkCompanyStatusMove('c1', from, to)).toBe(expected);
    else {
      const err = refusal(() => checkCompanyStatusMove('c1', from, to));
      expect([err.status, err.code]).toEqual(expected);
    }
  });

  test.each([
    ['company_create', 'pending', 'inactive'],
    ['company_create', 'active', 'active'],
    ['update_company_status', 'active', 'active'],
    ['update_company', 'pending', 'pending'],
  ] as const)('a rejected %s leaves a %s company %s', (event, status, expected) => {
    const after = afterRejection({ ...acme, status }, event, LATER);
    expect(after.status).toBe(expected);
    expect(after.updatedAt).toBe(expected === status ? NOW : LATER);
  });
});

describe('company users', () => {
  const pm = (claims: Record<string, unknown>): Identity => ({
    type: 'program_management_user',
    userId: 'u',
    roles: [],
    claims,
  });
  test.each([
    ['an internal user', pm({}), { kind: 'all' }],
    // the company comes from the identity's tenant (the token's `tenant` claim), never from other claims
    ['a user claiming a company without a tenant', pm({ userType: 'company', companyId: 'c1' }), { kind: 'all' }],
    ['a company user', { ...pm({ userType: 'company' }), tenant: 'c1' } as Identity, { kind: 'own', companyId: 'c1' }],
    ['a class', { type: 'class', classId: 'Member' } as Identity, { kind: 'all' }],
    [
      'a class acting for a company user',
      { type: 'class', classId: 'Member', tenant: 'c1' } as Identity,
      { kind: 'own', companyId: 'c1' },
    ],
  ])('%s', (_what, identity, scope) => {
    expect(companyScope(identity)).toEqual(scope);
  });

  test('a company user reaches its own company only, and creates none', () => {
    expect(() => assertMayReach({ kind: 'own', companyId: 'c1' }, 'c1')).not.toThrow();
    expect(refusal(() => assertMayReach({ kind: 'own', companyId: 'c1' }, 'c2')).code).toBe(6018);
    expect(refusal(() => assertMayReach({ kind: 'own', companyId: null }, 'c1')).status).toBe(403);
    expect(() => assertMayReach({ kind: 'all' }, 'c2')).not.toThrow();
    expect(refusal(() => assertInternal({ kind: 'own', companyId: 'c1' }, 'create companies')).code).toBe(6018);
    expect(() => assertInternal({ kind: 'all' }, 'create companies')).not.toThrow();
  });
});

describe('lists and projection', () => {
  test('filters, escaped search over name, description, bgId and HR contact, paging; a company user sees its own only', () => {
    const q = companyListQuery(
      { status: 'active', companyGroupId: 'g1', search: ' a+b ', page: 3, limit: 10 },
      { kind: 'all' },
    );
    expect(q).toEqual({
      filter: {
        status: 'active',
        companyGroupId: 'g1',
        $or: ['name', 'description', 'bgId', 'hrContact.name', 'hrContact.email'].map((f) => ({
          [f]: { $regex: 'a\\+b', $options: 'i' },
        })),
      },
      sort: { nameKey: 1, id: 1 },
      page: 3,
      limit: 10,
      skip: 20,
    });
    expect(companyListQuery({}, { kind: 'all' })).toEqual({
      filter: {},
      sort: { nameKey: 1, id: 1 },
      page: 1,
      limit: 20,
      skip: 0,
    });
    expect(companyListQuery({ search: '  ' }, { kind: 'all' }).filter).toEqual({});
    expect(companyListQuery({}, { kind: 'own', companyId: 'c1' }).filter).toEqual({ id: 'c1' });
    expect(companyListQuery({}, { kind: 'own', companyId: null }).filter).toEqual({ id: { $in: [] } });
  });

  test('a GET query is coerced by the schema: numbers from strings, blank values not given', () => {
    expect(schemaRefusal('Company', 'listCompanies', { page: '3', limit: '10', status: '' })).toEqual({
      input: { page: 3, limit: 10 },
      fields: [],
    });
  });

  test.each([
    ['page', { page: '0' }],
    ['limit', { limit: '500' }],
    ['status', { status: 'closed' }],
    ['companyGroupId', { companyGroupId: 'x'.repeat(201) }],
    ['search', { search: 'x'.repeat(201) }],
    ['bgid', { bgid: 'x' }],
  ])('the schema refuses a bad %s', (field, query) => {
    expect(schemaRefusal('Company', 'listCompanies', query).fields).toEqual([field]);
  });

  test('a refused input is 400 6019 naming each field', () => {
    const err = invalidCompanyQuery([{ field: 'page', reason: 'must be >= 1' }]);
    expect([err.status, err.code, err.message]).toEqual([400, 6019, 'Invalid list parameters: page must be >= 1']);
    expect(err.details).toEqual({ errors: [{ field: 'page', reason: 'must be >= 1' }] });
  });

  test('each company is a document with a sort key; the workflow entity has no bookkeeping', () => {
    expect(companyDocuments({ companies: { c1: acme } })).toEqual([
      { collection: 'companies', id: 'c1', doc: { ...acme, nameKey: 'acme' } },
    ]);
    expect(companyDocuments(undefined)).toEqual([]);
    const entity = toEntity({ ...acme, pendingApprovalId: 'a1' });
    expect('pendingApprovalId' in entity).toBe(false);
    expect(fromEntity(entity, 'a2')).toEqual({ ...acme, pendingApprovalId: 'a2' });
  });
});
