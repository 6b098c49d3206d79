/**
 * The platform's tenant rule (runtime/auth/tenancy.ts), pure: who may call
 * what, instance ownership before and after a write, and the filtered
 * document reader. The rule end to end, on the real classes, is in
 * test/access/company-scope.test.ts.
 */
import {
  assertOwnedBy,
  assertTenantMayCall,
  scopedFilter,
  tenancyApi,
  tenantDocuments,
} from '../../runtime/auth/tenancy';
import { ActorError } from '../../runtime/errors';
import type { TenancyOptions } from '../../runtime/types/classes';
import type { Identity } from '../../runtime/types/identity';
import type { MethodKind } from '../../runtime/types/kinds';
import type { InstanceState } from '../../runtime/types/state';
import { EmbeddedDocumentStore } from '../../runtime/stream/embedded-document-store';

const user = (tenant?: string): Identity => ({
  type: 'program_management_user',
  userId: 'u',
  roles: [],
  ...(tenant ? { tenant } : {}),
});
const cls = (tenant?: string): Identity => ({
  type: 'class',
  classId: 'Other',
  instanceId: 'i',
  ...(tenant ? { tenant } : {}),
});
const owned: TenancyOptions = { kind: 'owned', owner: (s) => s.private.company };
const state = (company?: string): InstanceState => ({
  public: {},
  private: company ? { company } : {},
  user: {},
  role: {},
});

function code(fn: () => unknown): number | string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof ActorError) return err.code;
    throw err;
  }
}

describe('assertTenantMayCall', () => {
  const kinds: MethodKind[] = ['INIT', 'READ', 'WRITE', 'QUEUED_WRITE', 'STATIC', 'INTERNAL'];

  test('callers without a tenant pass every class, declared or not', () => {
    for (const kind of kinds) {
      for (const t of [undefined, owned, { kind: 'shared' } as const, { kind: 'records' } as const]) {
        expect(code(() => assertTenantMayCall(user(), 'C', 'm', kind, t))).toBeUndefined();
      }
    }
  });

  test('a class without a tenancy declaration is closed to tenant-bound callers, users and classes alike', () => {
    for (const kind of kinds) {
      expect(code(() => assertTenantMayCall(user('c1'), 'C', 'm', kind, undefined))).toBe(1023);
      expect(code(() => assertTenantMayCall(cls('c1'), 'C', 'm', kind, undefined))).toBe(1023);
    }
  });

  test('shared data: tenant-bound users read it and never change it; a class acting for them may', () => {
    const shared: TenancyOptions = { kind: 'shared' };
    for (const kind of kinds) {
      const readOnly = kind === 'READ' || kind === 'STATIC';
      expect(code(() => assertTenantMayCall(user('c1'), 'C', 'm', kind, shared))).toBe(readOnly ? undefined : 1023);
      expect(code(() => assertTenantMayCall(cls('c1'), 'C', 'm', kind, shared))).toBeUndefined();
    }
  });

  test('owned and records classes admit tenant-bound callers (the instance or handler decides)', () => {
    for (const kind of kinds) {
      expect(code(() => assertTenantMayCall(user('c1'), 'C', 'm', kind, owned))).toBeUndefined();
      expect(code(() => assertTenantMayCall(user('c1'), 'C', 'm', kind, { kind: 'records' }))).toBeUndefined();
    }
  });
});

describe('assertOwnedBy', () => {
  test("a tenant-bound caller reaches only its own tenant's instances, before and after a write", () => {
    for (const phase of ['before', 'after'] as const) {
      expect(code(() => assertOwnedBy(user('c1'), 'C', 'i', owned, state('c1'), phase))).toBeUndefined();
      expect(code(() => assertOwnedBy(user('c1'), 'C', 'i', owned, state('c2'), phase))).toBe(1023);
      // an instance that names no owner belongs to no tenant: internal only
      expect(code(() => assertOwnedBy(user('c1'), 'C', 'i', owned, state(), phase))).toBe(1023);
      expect(code(() => assertOwnedBy(cls('c1'), 'C', 'i', owned, state('c2'), phase))).toBe(1023);
    }
  });

  test('callers without a tenant, and classes that are not owned, are not checked here', () => {
    expect(code(() => assertOwnedBy(user(), 'C', 'i', owned, state('c2'), 'before'))).toBeUndefined();
    expect(code(() => assertOwnedBy(user('c1'), 'C', 'i', { kind: 'records' }, state('c2'), 'after'))).toBeUndefined();
    expect(code(() => assertOwnedBy(user('c1'), 'C', 'i', { kind: 'shared' }, state('c2'), 'after'))).toBeUndefined();
  });

  test('an owner that is not a non-empty string counts as none', () => {
    const odd: TenancyOptions = { kind: 'owned', owner: (s) => s.private.company };
    const s = state();
    s.private.company = '';
    expect(code(() => assertOwnedBy(user('c1'), 'C', 'i', odd, s, 'before'))).toBe(1023);
  });
});

describe('tenancyApi (ctx.tenancy)', () => {
  test("check and allows follow the caller's tenant; owner reads the current state", () => {
    let s = state('c1');
    const api = tenancyApi(user('c1'), owned, () => s);
    expect(api.tenant).toBe('c1');
    expect(api.allows('c1')).toBe(true);
    expect(api.allows('c2')).toBe(false);
    expect(api.allows(undefined)).toBe(false);
    expect(code(() => api.check('c2', 'Company c2'))).toBe(1023);
    expect(api.owner()).toBe('c1');
    s = state('c9');
    expect(api.owner()).toBe('c9');
    const free = tenancyApi(user(), { kind: 'records' }, () => s);
    expect(free.allows('anything')).toBe(true);
    expect(free.owner()).toBeUndefined();
  });
});

describe('tenantDocuments', () => {
  let store: EmbeddedDocumentStore;
  beforeAll(async () => {
    store = new EmbeddedDocumentStore();
    const put = (collection: string, id: string, doc: Record<string, unknown>) =>
      store.upsertIfNewer(collection, { _id: id, _v: 1, _instance: id, _class: 'X', ...doc });
    await put('members', 'm1', { company: { id: 'c1' }, name: 'a' });
    await put('members', 'm2', { company: { id: 'c2' }, name: 'a' });
    await put('members', 'm3', { name: 'a' });
    await put('tiers', 't1', { name: 'gold' });
    await put('secrets', 's1', { name: 'x' });
  });

  const scopes = (c: string) =>
    ({
      members: { classId: 'Member', tenancy: owned, tenantField: 'company.id' },
      tiers: { classId: 'Tier', tenancy: { kind: 'shared' } as TenancyOptions },
      secrets: { classId: 'Secret' },
    })[c];

  test("find, count and get see only the tenant's documents of a scoped collection", async () => {
    const docs = tenantDocuments(store, 'c1', scopes);
    expect((await docs.find('members', { name: 'a' })).items.map((d) => d._id)).toEqual(['m1']);
    expect((await docs.find('members', {})).total).toBe(1);
    expect(await docs.count('members', {})).toBe(1);
    expect((await docs.get('members', 'm1'))?._id).toBe('m1');
    expect(await docs.get('members', 'm2')).toBeNull();
    expect(await docs.get('members', 'm3')).toBeNull();
    // a filter that names another tenant cannot widen the scope
    expect((await docs.find('members', { 'company.id': 'c2' })).total).toBe(0);
    expect(
      (await docs.find('members', { $or: [{ 'company.id': 'c2' }, { name: 'a' }] })).items.map((d) => d._id),
    ).toEqual(['m1']);
  });

  test('shared collections are read as they are; collections of undeclared classes are refused', async () => {
    const docs = tenantDocuments(store, 'c1', scopes);
    expect((await docs.find('tiers', {})).total).toBe(1);
    await expect(docs.find('secrets', {})).rejects.toMatchObject({ code: 1023 });
    await expect(docs.count('secrets', {})).rejects.toMatchObject({ code: 1023 });
    await expect(docs.get('secrets', 's1')).rejects.toMatchObject({ code: 1023 });
    await expect(docs.find('unknown', {})).rejects.toMatchObject({ code: 1023 });
  });

  test("scopedFilter keeps the caller's filter and adds the tenant condition", () => {
    expect(scopedFilter({}, 'companyId', 'c1')).toEqual({ companyId: 'c1' });
    expect(scopedFilter({ a: 1 }, 'companyId', 'c1')).toEqual({ $and: [{ a: 1 }, { companyId: 'c1' }] });
  });
});
