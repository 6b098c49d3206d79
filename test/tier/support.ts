/**
 * Shared helpers of the Tier integration tests. The runtime serves Tier and the
 * platform classes it uses, plus a stand-in Setting class
 * (test/tier/fixtures/Setting) instead of classes/Setting.
 */
import { startTestRuntime, waitFor, type TestRuntime } from '../support/harness';

/** waitFor for checks that answer a value or nothing: resolves to the value. */
export async function until<T>(check: () => Promise<T | undefined | null | false>, what: string, timeoutMs?: number): Promise<T> {
  return (await waitFor(check, { what, ...(timeoutMs ? { timeoutMs } : {}) })) as T;
}

export const TIER_ENV = {
  CLASS_DIRS: 'classes/Tier,classes/Workflow,classes/ApprovalManager,classes/LogManager,classes/FileManager,test/tier/fixtures',
  SCHEMA_DIRS: 'schemas',
};

export async function startTierRuntime(extra: Record<string, string> = {}): Promise<TestRuntime> {
  return startTestRuntime({ env: { ...TIER_ENV, ...extra } });
}

export const TIER_METHODS = [
  'createTier',
  'updateTier',
  'updateStatus',
  'addEligibilityRule',
  'updateEligibilityRule',
  'deactivateEligibilityRule',
  'getTier',
  'listTiers',
  'getTierGroups',
  'getPaymentTypes',
  'getEligibilityRuleDefinitions',
  'streamTier',
];

/**
 * Roles: super (level 1); approver (level 10, reviews approvals); reader
 * (level 10, getTier and listTiers only); editor (level 10, every Tier
 * method); clerk (level 10, no Tier method).
 */
export async function writeTierRoles(t: TestRuntime): Promise<void> {
  const roles = [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    { id: 'r-approver', name: 'approver', level: 10, permissions: { ApprovalManager: ['getApproval', 'listApprovals'] } },
    { id: 'r-reader', name: 'reader', level: 10, permissions: { Tier: ['getTier', 'listTiers'] } },
    { id: 'r-editor', name: 'editor', level: 10, permissions: { Tier: TIER_METHODS } },
    { id: 'r-clerk', name: 'clerk', level: 10, permissions: { ApprovalManager: ['getApproval'] } },
  ];
  await t.rt.redis.set(t.rt.store.keys.roles, JSON.stringify({ version: 1, roles }));
  t.rt.roleSource.invalidate();
}

export function bearer(t: TestRuntime, userId: string, roles: string[], identity: 'program_management_user' | 'enduser' = 'program_management_user') {
  return { authorization: `Bearer ${t.token(identity, userId, roles)}` };
}

export interface TierTypeSeed {
  id: string;
  name?: string;
  tierGroup?: string;
  status?: string;
}

export const PAYMENT_PERIODS = [
  { key: 'monthly', label: 'Monthly' },
  { key: 'yearly', label: 'Yearly' },
];

/** Fills the Setting stand-in (system identity). */
export async function seedSettings(t: TestRuntime, tierTypes: TierTypeSeed[], paymentPeriods = PAYMENT_PERIODS): Promise<void> {
  await t.rt.call('Setting', 'seed', 'default', {
    tierTypes: tierTypes.map((tt) => ({ name: tt.id, tierGroup: 'base', status: 'active', ...tt })),
    paymentPeriods,
  });
}

let seq = 0;
/** A tier type id of its own per test (the overlap rule is per tier type). */
export function freshTypeId(prefix = 'tt'): string {
  seq += 1;
  return `${prefix}-${process.pid}-${seq}`;
}

export function isoIn(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

export const DAY = 24 * 3600 * 1000;

export function tierBody(tierTypeId: string, extra: Record<string, unknown> = {}) {
  return {
    name: 'Gold',
    description: 'The gold tier',
    tierType: { id: tierTypeId },
    fee: 100,
    startDate: '2030-01-01',
    endDate: '2031-01-01',
    ...extra,
  };
}

export function ruleBody(extra: Record<string, unknown> = {}) {
  return {
    name: 'Employees',
    paymentTypes: ['salary_deduction'],
    paymentPeriod: 'monthly',
    conditions: [{ key: 'member.memberType', logicalOperator: 'equal', value: 'employee' }],
    ...extra,
  };
}

/** The streamed document of a tier once `check` holds. */
export async function tierDocWhen(t: TestRuntime, id: string, check: (doc: Record<string, any>) => boolean, what?: string) {
  return waitFor(async () => {
    const d = await t.rt.documents.get('tiers', id);
    return d && check(d as Record<string, any>) ? (d as Record<string, any>) : undefined;
  }, { what: what ?? `tier ${id} document` });
}

/** Audit entries of a tier, newest first. */
export async function auditEntries(t: TestRuntime, tierId: string): Promise<Record<string, any>[]> {
  const r = await t.rt.call('LogManager', 'getLogEntries', undefined, { classId: 'Tier', entityId: tierId, limit: 100 });
  return (r.body as { entries: Record<string, any>[] }).entries;
}
