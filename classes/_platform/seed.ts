/**
 * Loads a program from one JSON document (`npm run cli -- seed <file>`):
 *
 *   { "paymentPeriods": [...], "companyGroups": [...], "memberTypes": [...], "memberSubTypes": [...],
 *     "tierTypes": [...], "companies": [...], "tiers": [...], "members": [...],
 *     "partners": [...], "venues": [...], "partnerUsers": [...], "benefitCategories": [...], "offers": [...] }
 *
 * Each list holds records in the spec's field names (a company carries `bgId`,
 * a member sub type `hrmsMapping`, a member `staffId`, `company: {id}` and
 * `memberType`; a dependant also `primaryMemberId` and `relation`, and is
 * listed in its primary member's family). Everything is applied as
 * the system actor, so every workflow rule approves at once: nothing is left
 * pending. A record whose id exists already is skipped, so a seed can be run
 * again after a partial failure; any other refusal (a staff id or email of
 * another member, a name taken) fails that record and the rest still goes in.
 *
 * Settings, companies and tiers may carry a `status` (for example a retired
 * member type that is `inactive`): their create operations take none (a new
 * record becomes `active` once its creation is approved), so the record is
 * created and then moved to that status through the class's own status
 * operation. A record that was created but could not take its status is
 * reported as failed (with the reason); a record skipped because it exists
 * keeps the status it has. Members take `status` in seedMember itself.
 *
 * Partners are Partner.init's body with the partner's `id` (and an optional
 * `status`); venues are createVenue's body with the `partnerId` of their
 * partner (in this file or already there), an optional `id` and `status`.
 * Partner users are PartnerUser.init's body (`fullName`, `email`, `partners`
 * with roles, `venues`) with an optional `id` and `status`; their partners
 * and venues must exist (in this file or already there).
 *
 * Benefit categories are BenefitCategory.createCategory's body and offers
 * Offer.createOffer's, each with its `id` (the instance); both take their
 * `status` in the create body. An offer's partner and categories must exist
 * (in this file or already there).
 */
import { randomUUID } from 'node:crypto';
import { classErrorCode, RuntimeCodes, type CallResult } from '../../runtime';

export interface SeedDocument {
  paymentPeriods?: { key: string; label: string }[];
  companyGroups?: Record<string, unknown>[];
  memberTypes?: Record<string, unknown>[];
  memberSubTypes?: Record<string, unknown>[];
  tierTypes?: Record<string, unknown>[];
  companies?: Record<string, unknown>[];
  tiers?: Record<string, unknown>[];
  members?: Record<string, unknown>[];
  partners?: Record<string, unknown>[];
  venues?: Record<string, unknown>[];
  partnerUsers?: Record<string, unknown>[];
  benefitCategories?: Record<string, unknown>[];
  offers?: Record<string, unknown>[];
}

export type SystemCall = (
  classId: string,
  method: string,
  instanceId: string | undefined,
  body: unknown,
) => Promise<CallResult>;

export interface SeedOutcome {
  kind: string;
  id?: string;
  result: 'created' | 'skipped' | 'failed';
  error?: { code?: unknown; message: string };
}

/**
 * The answers that mean "this record's id exists already" (skipped); any other
 * error fails the record. The classes' own codes are named, not imported: the
 * runtime holds every loaded class's error table.
 */
const EXISTS_ERRORS: readonly [classId: string, name: string][] = [
  ['Setting', 'SETTING_ID_TAKEN'],
  ['Company', 'COMPANY_ID_TAKEN'],
  ['Member', 'ALREADY_REGISTERED'],
  ['Partner', 'VENUE_ID_TAKEN'],
];

function meansExists(e: { code?: unknown }): boolean {
  if (e.code === RuntimeCodes.INSTANCE_EXISTS.code) return true;
  return EXISTS_ERRORS.some(([classId, name]) => classErrorCode(classId, name) === e.code);
}

const KNOWN_KEYS = [
  'paymentPeriods',
  'companyGroups',
  'memberTypes',
  'memberSubTypes',
  'tierTypes',
  'companies',
  'tiers',
  'members',
  'partners',
  'venues',
  'partnerUsers',
  'benefitCategories',
  'offers',
];

/** How each list is created: class, method, and the instance the record goes to. */
type RecordList = Exclude<keyof SeedDocument, 'paymentPeriods'>;

/**
 * How a created record takes the `status` of the seed file: the status
 * operation, its instance and body (`id`: the created record's id), and where
 * the create answer holds the record.
 */
interface StatusStep {
  method: string;
  /** the instance of the status operation (`record`: the seed file's record) */
  instance: (id: string, record: Record<string, unknown>) => string;
  body: (id: string, status: string) => unknown;
  /** the key of the create answer that holds the created record */
  answerKey: string;
}

const settingStatus = (method: string): StatusStep => ({
  method,
  instance: () => 'default',
  body: (id, status) => ({ id, status }),
  answerKey: 'item',
});

/** how each list is created; `idInPath` records carry their id in the call path, not the body */
const STEPS: {
  key: RecordList;
  kind: string;
  classId: string;
  method: string;
  instance: (r: Record<string, unknown>) => string | undefined;
  idInPath?: boolean;
  /** each record is its own instance, so records can be created side by side */
  parallel?: boolean;
  /** the record's `status` is set after creation with this operation (the create operation takes none) */
  status?: StatusStep;
  /** the create body when it is not the record (less its id, for idInPath) */
  body?: (r: Record<string, unknown>) => Record<string, unknown>;
}[] = [
  {
    key: 'companyGroups',
    kind: 'companyGroup',
    classId: 'Setting',
    method: 'createCompanyGroup',
    instance: () => 'default',
    status: settingStatus('updateCompanyGroupStatus'),
  },
  {
    key: 'memberTypes',
    kind: 'memberType',
    classId: 'Setting',
    method: 'createMemberType',
    instance: () => 'default',
    status: settingStatus('updateMemberTypeStatus'),
  },
  {
    key: 'memberSubTypes',
    kind: 'memberSubType',
    classId: 'Setting',
    method: 'createMemberSubType',
    instance: () => 'default',
    status: settingStatus('updateMemberSubTypeStatus'),
  },
  {
    key: 'tierTypes',
    kind: 'tierType',
    classId: 'Setting',
    method: 'createTierType',
    instance: () => 'default',
    status: settingStatus('updateTierTypeStatus'),
  },
  {
    key: 'companies',
    kind: 'company',
    classId: 'Company',
    method: 'createCompany',
    instance: () => 'default',
    status: {
      method: 'updateCompanyStatus',
      instance: () => 'default',
      body: (id, status) => ({ id, status }),
      answerKey: 'company',
    },
  },
  {
    key: 'tiers',
    kind: 'tier',
    classId: 'Tier',
    method: 'createTier',
    instance: (r) => (typeof r.id === 'string' ? r.id : undefined),
    idInPath: true,
    parallel: true,
    status: { method: 'updateStatus', instance: (id) => id, body: (_id, status) => ({ status }), answerKey: 'tier' },
  },
  {
    key: 'members',
    kind: 'member',
    classId: 'Member',
    method: 'seedMember',
    instance: (r) => (typeof r.id === 'string' ? r.id : randomUUID()),
    idInPath: true,
    parallel: true,
  },
  {
    key: 'partners',
    kind: 'partner',
    classId: 'Partner',
    method: 'init',
    instance: (r) => (typeof r.id === 'string' ? r.id : randomUUID()),
    idInPath: true,
    parallel: true,
    status: {
      method: 'updatePartnerStatus',
      instance: (id) => id,
      body: (_id, status) => ({ status }),
      answerKey: 'partner',
    },
  },
  {
    // a venue goes to its partner's instance; the venue id stays in the body (createVenue takes it)
    key: 'venues',
    kind: 'venue',
    classId: 'Partner',
    method: 'createVenue',
    instance: (r) => (typeof r.partnerId === 'string' ? r.partnerId : undefined),
    body: ({ partnerId: _partnerId, ...venue }) => venue,
    status: {
      method: 'updateVenueStatus',
      instance: (_id, r) => String(r.partnerId),
      body: (venueId, status) => ({ venueId, status }),
      answerKey: 'venue',
    },
  },
  {
    key: 'partnerUsers',
    kind: 'partnerUser',
    classId: 'PartnerUser',
    method: 'init',
    instance: (r) => (typeof r.id === 'string' ? r.id : randomUUID()),
    idInPath: true,
    parallel: true,
    status: { method: 'updateStatus', instance: (id) => id, body: (_id, status) => ({ status }), answerKey: 'user' },
  },
  // the catalogue's create operations take the status themselves; offers after the partners and categories they name
  {
    key: 'benefitCategories',
    kind: 'benefitCategory',
    classId: 'BenefitCategory',
    method: 'createCategory',
    instance: (r) => (typeof r.id === 'string' ? r.id : randomUUID()),
    idInPath: true,
    parallel: true,
  },
  {
    key: 'offers',
    kind: 'offer',
    classId: 'Offer',
    method: 'createOffer',
    instance: (r) => (typeof r.id === 'string' ? r.id : randomUUID()),
    idInPath: true,
    parallel: true,
  },
];

/** Problems with the document's shape, before anything is written. */
export function checkSeedDocument(doc: unknown): string[] {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return ['the seed file must hold a JSON object'];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (!KNOWN_KEYS.includes(key)) problems.push(`unknown key '${key}' (known: ${KNOWN_KEYS.join(', ')})`);
    else if (!Array.isArray(value)) problems.push(`'${key}' must be a list`);
    else
      value.forEach(
        (r, i) => (!r || typeof r !== 'object' || Array.isArray(r)) && problems.push(`${key}[${i}] must be an object`),
      );
  }
  return problems;
}

function errorOf(err: unknown): { status?: number; code?: unknown; message: string } {
  const e = err as { status?: number; code?: unknown; message?: string; body?: { message?: string } };
  return { status: e?.status, code: e?.code, message: e?.message ?? e?.body?.message ?? String(err) };
}

async function ensureSingleton(call: SystemCall, classId: string, body: unknown, optional = false): Promise<void> {
  try {
    await call(classId, 'init', 'default', body);
  } catch (err) {
    const { status, code } = errorOf(err);
    if (status === 409) return; // exists already
    if (optional && code === RuntimeCodes.UNKNOWN_CLASS.code) return; // a deployment without that class
    throw err;
  }
}

export interface SeedOptions {
  /** tiers and members created side by side (each is its own instance); default 1 */
  concurrency?: number;
  /** records handled so far (created, skipped or failed) out of all the file's records */
  onProgress?: (done: number, total: number) => void;
}

/** Runs `work` over `items` with at most `limit` in flight; results keep the items' order. */
async function pool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

export async function applySeed(
  doc: SeedDocument,
  call: SystemCall,
  options: SeedOptions = {},
): Promise<SeedOutcome[]> {
  const problems = checkSeedDocument(doc);
  if (problems.length) throw new Error(`invalid seed file: ${problems.join('; ')}`);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  await ensureSingleton(call, 'Setting', doc.paymentPeriods ? { paymentPeriods: doc.paymentPeriods } : {});
  if (doc.paymentPeriods) await call('Setting', 'setPaymentPeriods', 'default', { paymentPeriods: doc.paymentPeriods });
  if (doc.companies?.length) await ensureSingleton(call, 'Company', {});
  // the member app reads its screens from ContentManager's singleton: a seeded program has it, empty, so
  // getContents answers [] instead of the unknown-instance 500
  await ensureSingleton(call, 'ContentManager', {}, true);
  const outcomes: SeedOutcome[] = [];
  const total = STEPS.reduce((n, step) => n + (doc[step.key]?.length ?? 0), 0);
  let done = 0;
  options.onProgress?.(0, total);
  for (const step of STEPS) {
    const createRecord = async (record: Record<string, unknown>): Promise<SeedOutcome> => {
      let id = typeof record.id === 'string' ? record.id : undefined;
      const { id: _id, ...withoutId } = record;
      let body: Record<string, unknown> = step.body ? step.body(record) : step.idInPath ? withoutId : record;
      let status: unknown;
      if (step.status) ({ status, ...body } = body);
      let created: Record<string, unknown> | undefined;
      try {
        const res = await call(step.classId, step.method, step.instance(record), body);
        created = (res.body as Record<string, Record<string, unknown> | undefined> | null)?.[
          step.status?.answerKey ?? ''
        ];
      } catch (err) {
        const e = errorOf(err);
        return {
          kind: step.kind,
          id,
          result: meansExists(e) ? 'skipped' : 'failed',
          error: { code: e.code, message: e.message },
        };
      }
      id ??= typeof created?.id === 'string' ? created.id : undefined;
      if (step.status && status !== undefined && status !== created?.status) {
        try {
          if (typeof status !== 'string' || !id)
            throw new Error(`status must be a string, got ${JSON.stringify(status)}`);
          await call(step.classId, step.status.method, step.status.instance(id, record), step.status.body(id, status));
        } catch (err) {
          const e = errorOf(err);
          return {
            kind: step.kind,
            id,
            result: 'failed',
            error: {
              code: e.code,
              message: `created, but not ${typeof status === 'string' ? status : JSON.stringify(status)}: ${e.message}`,
            },
          };
        }
      }
      return { kind: step.kind, id, result: 'created' };
    };
    const create = async (record: Record<string, unknown>): Promise<SeedOutcome> => {
      const outcome = await createRecord(record);
      options.onProgress?.((done += 1), total);
      return outcome;
    };
    const records = doc[step.key] ?? [];
    // dependants after the primary members they name (in this file or already there)
    const waves =
      step.key === 'members'
        ? [records.filter((r) => !r.primaryMemberId), records.filter((r) => r.primaryMemberId)]
        : [records];
    for (const wave of waves) outcomes.push(...(await pool(wave, step.parallel ? concurrency : 1, create)));
  }
  return outcomes;
}
