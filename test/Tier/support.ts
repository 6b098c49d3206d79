/**
 * Shared helpers of the Tier integration tests. The runtime serves Tier, the
 * real Setting class and the platform classes they use (Workflow,
 * ApprovalManager, LogManager, FileManager), plus the test-only caller class
 * TierProbe (test/Tier/fixtures). The settings Tier reads (tier types, payment
 * periods) are created through Setting's own operations by the program seed
 * (classes/_platform/seed.ts, as the system actor: approved at once).
 */
import { randomUUID } from 'node:crypto';
import { applySeed, type SeedDocument, type SeedOutcome } from '../../classes/_platform/seed';
import { parseState, serializeState } from '../../runtime/actor/state-store';
import { startTestRuntime, waitFor, type TestRuntime, seedRoles } from '../support/harness';

/** waitFor for checks that answer a value or nothing: resolves to the value. */
export async function until<T>(
  check: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs?: number,
): Promise<T> {
  return (await waitFor(check, { what, ...(timeoutMs ? { timeoutMs } : {}) })) as T;
}

export const TIER_ENV = {
  CLASS_DIRS:
    'classes/Tier,classes/Setting,classes/Workflow,classes/ApprovalManager,classes/LogManager,classes/FileManager,classes/RoleManager,test/Tier/fixtures',
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
    {
      id: 'r-approver',
      name: 'approver',
      level: 10,
      permissions: { ApprovalManager: ['getApproval', 'listApprovals'] },
    },
    { id: 'r-reader', name: 'reader', level: 10, permissions: { Tier: ['getTier', 'listTiers'] } },
    { id: 'r-editor', name: 'editor', level: 10, permissions: { Tier: TIER_METHODS } },
    { id: 'r-clerk', name: 'clerk', level: 10, permissions: { ApprovalManager: ['getApproval'] } },
  ];
  await seedRoles(t, roles);
}

export function bearer(
  t: TestRuntime,
  userId: string,
  roles: string[],
  identity: 'program_management_user' | 'enduser' = 'program_management_user',
) {
  return { authorization: `Bearer ${t.token(identity, userId, roles)}` };
}

export interface TierTypeSeed {
  id: string;
  name?: string;
  /** default `base` */
  tierGroup?: 'base' | 'upgrade' | 'add_on';
  /** set after creation through Setting.updateTierTypeStatus (a new tier type is `active`) */
  status?: 'active' | 'inactive';
}

/** The payment periods of the Tier tests' program (Setting's own default adds `quarterly`). */
export const PAYMENT_PERIODS = [
  { key: 'monthly', label: 'Monthly' },
  { key: 'yearly', label: 'Yearly' },
];

/**
 * Applies a seed document through the real classes (applySeed, as the system
 * actor); throws when a record fails, so a test never runs on half its data.
 */
export async function seed(t: TestRuntime, doc: SeedDocument): Promise<SeedOutcome[]> {
  const outcomes = await applySeed(doc, (classId, method, instanceId, body) =>
    t.rt.call(classId, method, instanceId, body),
  );
  const failed = outcomes.filter((o) => o.result === 'failed');
  if (failed.length) throw new Error(`seeding failed: ${JSON.stringify(failed)}`);
  return outcomes;
}

/** seed records of tier types: named after their id, group `base` unless given */
const tierTypeRecords = (tierTypes: TierTypeSeed[]) =>
  tierTypes.map((tt) => ({ name: tt.id, tierGroup: 'base', ...tt }));

/** The program of the Tier tests: the Setting singleton with PAYMENT_PERIODS, and the tier types given. */
export async function seedProgram(t: TestRuntime, tierTypes: TierTypeSeed[] = []): Promise<void> {
  await seed(t, { paymentPeriods: PAYMENT_PERIODS, tierTypes: tierTypeRecords(tierTypes) });
}

/** More tier types, created through Setting.createTierType (the program is seeded already). */
export async function seedTierTypes(t: TestRuntime, tierTypes: TierTypeSeed[]): Promise<void> {
  await seed(t, { tierTypes: tierTypeRecords(tierTypes) });
}

/**
 * Gives a stored tier type a tierGroup that Setting's operations refuse (their
 * schemas admit base, upgrade, add_on only): the settings an older release or
 * a hand-made migration may have left behind, which Tier must not trust.
 * Written to the Setting singleton's stored state the way any runtime process
 * commits (under the instance's lease, version-checked, streamed).
 */
export async function storeTierTypeGroup(t: TestRuntime, tierTypeId: string, tierGroup: string): Promise<void> {
  const store = t.rt.store;
  const token = randomUUID();
  const acquired = await until(async () => {
    const r = await store.acquire('Setting', 'default', token, 5000, 'write');
    return r.kind === 'busy' ? undefined : r;
  }, 'the lease on Setting default');
  if (acquired.kind !== 'acquired' || !acquired.instance)
    throw new Error(`Setting default is not there (${acquired.kind})`);
  const { version, stateJson, lookups } = acquired.instance;
  const state = parseState(stateJson);
  const tierTypes = (state.private as { groups: { tierTypes: { value: { id: string; tierGroup: string }[] } } }).groups
    .tierTypes.value;
  const record = tierTypes.find((v) => v.id === tierTypeId);
  if (!record) {
    await store.release('Setting', 'default', token);
    throw new Error(`no tier type ${tierTypeId} in Setting`);
  }
  record.tierGroup = tierGroup;
  const commit = await store.commit({
    classId: 'Setting',
    instanceId: 'default',
    token,
    expectedVersion: version,
    changed: true,
    stateJson: serializeState(state),
    lookups,
    lookupAdds: [],
    lookupRemoves: [],
  });
  if (commit.kind !== 'committed') throw new Error(`could not store tier type ${tierTypeId}: ${commit.kind}`);
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
export async function tierDocWhen(
  t: TestRuntime,
  id: string,
  check: (doc: Record<string, any>) => boolean,
  what?: string,
) {
  return waitFor(
    async () => {
      const d = await t.rt.documents.get('tiers', id);
      return d && check(d as Record<string, any>) ? (d as Record<string, any>) : undefined;
    },
    { what: what ?? `tier ${id} document` },
  );
}

/** Audit entries of a tier, newest first. */
export async function auditEntries(t: TestRuntime, tierId: string): Promise<Record<string, any>[]> {
  const r = await t.rt.call('LogManager', 'getLogEntries', undefined, {
    classId: 'Tier',
    entityId: tierId,
    limit: 100,
  });
  return (r.body as { entries: Record<string, any>[] }).entries;
}

/**
 * A method's input as the runtime makes it from a GET query (`asQuery`; a
 * POST body is checked as sent) and the fields its schema refuses.
 */
export { schemaRefusal } from '../support/schema-check';
