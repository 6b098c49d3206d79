/**
 * The migration import of members (spec 2.9 member sheet and "the service
 * member sheet", `npm run cli -- import members|dependants`): one row, one
 * call of importMember (STATIC, the system only), which
 *
 *  1. finds the member: a primary row by its staff id (the `staffId` lookup of
 *     employeeId), else by oldEmployeeId (a staff-id migration, as the HR
 *     employee update does), else it is new, under an id derived from
 *     employeeId (a name-based UUID: a run stopped half-way and started again
 *     creates no second member); a dependant row under its dependant id, its
 *     primary member found by employeeId (hrPrimaryInfo, as the HR dependant
 *     upsert does);
 *  2. reads what the row would change on an existing member
 *     (checkImportMember, READ): `unchanged` ends there, and so does a dry
 *     run (for a new member the same rules run in the STATIC itself);
 *  3. writes a new or changed member (applyImportMember, INTERNAL upsert):
 *     no workflow and no approval (the system's import), an audit entry
 *     naming the import's actor, a dependant listed on its primary member by
 *     a committed effect (linkFamilyMember), as the seed and the HR upsert do.
 *
 * The rules are Member's own: company and member type checks (common.ts),
 * memberships through newMembership (memberships.ts: tier active, an
 * eligibility rule of the tier accepting the payment type, company-paid for
 * base tiers and free dependants, the period within the tier, the payment
 * schedule), family fields through applyFamilyChanges, the staff-id
 * migration of hr-sync.ts, the status machine for a new member.
 *
 * The references (company, member type, sub type, tier) come resolved from
 * the import run, which reads each once per run; they are Company's,
 * Setting's and Tier's own records.
 */
import { createHash } from 'node:crypto';
import { isUnknownInstance, type DeepReadonly, type ReadCtx } from '../../../runtime';
import { actorFromIdentity, type Actor } from '../../_platform/actor';
import {
  getCompany,
  type CompanyRecord,
  type MemberSubTypeRecord,
  type MemberTypeRecord,
  type TierRecord,
} from '../clients';
import { isErased, type ErasureSettings } from '../erasure-rules';
import { fieldError, memberError } from '../errors';
import { applyFamilyChanges, freeFamilyMemberIds } from '../family';
import { DEPENDANT_ID } from '../hr-contract';
import { same, staffIdMigration } from '../hr-sync';
import {
  emailKey,
  erasedMemberError,
  logMemberChange,
  memberIdByLookup,
  memberState,
  rawMemberState,
  syncEmailLookup,
  syncStaffIdLookup,
  type MemberCtx,
  type MemberReadCtx,
  type MemberStaticCtx,
} from '../member-state';
import { newMembership, paymentSchedule, refusalError } from '../memberships';
import { nextMemberStatus } from '../status-machine';
import type { Address, FamilyMember, Membership, MembershipStatus, MemberProfile, PaymentType } from '../types';
import { checkMemberTypes, refuseWhilePending, sameCompanyGroupType, takingMembers } from './common';
import type { hrPrimaryInfo, PrimaryInfo } from './hr-dependant';
import { erasedPersonError, refuseErasedPerson, takeBackErased } from './erased-person';
import { members } from './self-client';

/** The member's own fields a row gives (null: the cell is empty). */
export interface ImportedFields {
  name: string;
  middleName: string | null;
  surname: string;
  email: string | null;
  phone: string | null;
  /** primary rows only */
  grade?: string | null;
  isCabinCrew?: boolean | null;
  address?: Address | null;
}

export interface ImportedMembership {
  tier: TierRecord | null;
  tierId: string;
  paymentType: PaymentType;
  status: MembershipStatus;
  paymentPeriod?: string;
  startDate?: string;
  endDate?: string;
  lastRenewal?: string;
}

/** importMember's body: one sheet row with its references resolved */
export interface ImportMemberBody {
  /** answer what the row would do; write nothing */
  dryRun?: boolean;
  employeeId: string;
  oldEmployeeId?: string | null;
  fields: ImportedFields;
  /** a primary row: its company (by HR business group id) and member type (by system identifier) */
  company?: CompanyRecord;
  memberType?: MemberTypeRecord;
  /** a dependant row: its own id and what it is to the employee */
  dependant?: {
    id: string;
    relation: string;
    memberSubType: MemberSubTypeRecord | null;
    /** a dry run: the employee an earlier row of the same file would create (absent from the service yet) */
    plannedPrimary?: { companyId: string; memberTypeId: string };
  };
  membership?: ImportedMembership;
}

export type ImportVerdict = 'created' | 'updated' | 'unchanged';

/** checkImportMember's and applyImportMember's body: the row, how its member was found, who imports */
export interface ApplyImportBody {
  input: ImportMemberBody;
  /** the staff id the member was found by; `migrated` when that is oldEmployeeId */
  foundBy: string | null;
  migrated: boolean;
  /** a dependant row: the primary member, with its entry for this dependant (null when not listed) */
  primary?: PrimaryInfo & { listed: FamilyMember | null; familyMembers: FamilyMember[] };
  /** the member's company: a primary row's own, a dependant's primary member's */
  company: CompanyRecord;
  actor: Actor;
}

const NAMESPACE = Buffer.from('6f1c2a3e4b5d4c6e8f7a9b0c1d2e3f40', 'hex');

/** A name-based (version 5) UUID: the same name gives the same id in every run. */
export function nameUuid(name: string): string {
  const h = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** the id of a member a primary row creates */
export const importedMemberId = (employeeId: string) => nameUuid(`member:${employeeId}`);

/** the fields an import writes, in the order updatedFields names them */
const IMPORT_FIELDS: readonly (keyof MemberProfile)[] = [
  'staffId',
  'previousStaffIds',
  'name',
  'middleName',
  'surname',
  'email',
  'phone',
  'grade',
  'isCabinCrew',
  'address',
  'company',
  'memberType',
  'memberSubType',
  'relation',
  'primaryMemberId',
  'memberships',
];

function familyRef(p: DeepReadonly<MemberProfile>): FamilyMember {
  return {
    id: p.id,
    relation: p.relation,
    memberSubType: p.memberSubType,
    name: p.name,
    surname: p.surname,
    status: p.status,
    createdAt: p.createdAt,
  };
}

/** a membership as it compares between runs (not its times or who made it) */
function membershipView(m: DeepReadonly<Membership>) {
  const { createdAt: _c, updatedAt: _u, createdBy: _b, ...rest } = m;
  return rest;
}

/**
 * The schedules of the rows' periods: a sheet's members mostly share a few periods, and building a
 * schedule (a date computed per payment) is what a row's membership costs. Each caller gets its own
 * copy. Bounded: emptied when full.
 */
const schedules = new Map<string, Membership['paymentSchedule']>();
const SCHEDULES_MAX = 1000;

function rowSchedule(
  startDate: string,
  endDate: string,
  paymentPeriod: string,
  fee: number,
  paymentType: PaymentType,
): Membership['paymentSchedule'] {
  const key = `${startDate}\u0000${endDate}\u0000${paymentPeriod}\u0000${fee}\u0000${paymentType}`;
  let schedule = schedules.get(key);
  if (!schedule) {
    schedule = paymentSchedule(startDate, endDate, paymentPeriod, fee, paymentType);
    if (schedules.size >= SCHEDULES_MAX) schedules.clear();
    schedules.set(key, schedule);
  }
  return schedule.map((p) => ({ ...p }));
}

/** What a member the import creates, employee or dependant, starts with besides the row's fields: no family, notes, permissions or past staff ids, created by the import's actor. */
function newMemberRecord(
  actor: Actor,
): Pick<MemberProfile, 'familyMembers' | 'createdBy' | 'note' | 'permissions' | 'previousStaffIds' | 'statusReason'> {
  return {
    familyMembers: [],
    createdBy: actor,
    note: null,
    permissions: { sms: false, email: false },
    previousStaffIds: [],
    statusReason: null,
  };
}

/** The membership the row gives, through newMembership's rules, keeping an existing one of the tier (its id and creation). */
function importedMembership(
  profile: MemberProfile,
  m: ImportedMembership,
  company: CompanyRecord,
  dependantIsFree: boolean,
  actor: Actor,
  now: string,
): Membership[] {
  const held = profile.memberships ?? [];
  const existing = held.find((x) => x.tierId === m.tierId);
  const others = held.filter((x) => x !== existing);
  const startDate = m.startDate ?? existing?.startDate;
  const r = newMembership({
    profile: { ...profile, memberships: others },
    company,
    tier: m.tier,
    input: { tierId: m.tierId, paymentType: m.paymentType, ...(startDate ? { startDate } : {}) },
    dependantIsFree,
    actor,
    now,
    id: existing?.id ?? nameUuid(`membership:${profile.id}:${m.tierId}`),
  });
  if (!r.ok) throw refusalError(r);
  const made = r.membership;
  const endDate = m.endDate ?? made.endDate;
  if (endDate <= made.startDate)
    throw fieldError(
      'INVALID_MEMBERSHIP_PERIOD',
      'endDate',
      `The membership ends (${endDate}) before it starts (${made.startDate})`,
    );
  const paymentPeriod = m.paymentPeriod ?? made.paymentPeriod;
  const membership: Membership = {
    ...made,
    status: m.status,
    paymentPeriod,
    endDate,
    // newMembership's schedule holds for its own period; a period or end the row gives has its own
    paymentSchedule:
      endDate === made.endDate && paymentPeriod === made.paymentPeriod
        ? made.paymentSchedule
        : rowSchedule(made.startDate, endDate, paymentPeriod, m.tier?.fee ?? 0, m.paymentType),
    lastRenewal: m.lastRenewal ?? null,
    ...(existing
      ? { createdBy: existing.createdBy, createdAt: existing.createdAt, updatedAt: existing.updatedAt }
      : {}),
  };
  if (existing && same(membershipView(existing), membershipView(membership))) return held;
  if (existing) membership.updatedAt = now;
  return [...others, membership];
}

type Checker = Pick<ReadCtx, 'call' | 'lookup'>;

/**
 * What the row makes of the member (`before`, null for a new one), by
 * Member's rules; refusals are thrown as Member's errors naming their field.
 */
export async function planImport(
  ctx: Checker,
  before: DeepReadonly<MemberProfile> | null,
  id: string,
  body: ApplyImportBody,
  now: string,
  /** whether another member holds the email (a write leaves it to syncEmailLookup, which asks the same) */
  checkEmail = true,
): Promise<{ profile: MemberProfile; verdict: ImportVerdict; updatedFields: string[] }> {
  const { input, company, primary } = body;
  const f = input.fields;
  let next: MemberProfile;
  if (input.dependant) {
    if (!primary) throw memberError('MEMBER_NOT_FOUND', `No primary member for dependant '${id}'`);
    if (before && before.primaryMemberId !== primary.id) {
      throw fieldError(
        'ALREADY_REGISTERED',
        'dependantId',
        `Member '${id}' exists already and is not a dependant of employee '${input.employeeId}'`,
      );
    }
    const subType = input.dependant.memberSubType?.id ?? null;
    if (subType && (!before || before.memberSubType !== subType))
      await checkMemberTypes(ctx, company, null, subType, { memberSubType: input.dependant.memberSubType });
    const base: MemberProfile = before
      ? (JSON.parse(JSON.stringify(before)) as MemberProfile)
      : {
          id,
          // the HR dependant upsert's status for a dependant it creates (spec 3.1)
          status: (() => {
            const r = nextMemberStatus(null, { type: 'hrDependantUpdate', hrStatus: 'active' });
            return r.ok ? r.to : 'active';
          })(),
          name: f.name,
          middleName: null,
          surname: f.surname,
          staffId: null,
          email: null,
          phone: null,
          company: { id: primary.company.id },
          grade: null,
          idPhoto: null,
          loginMethod: primary.loginMethod,
          address: null,
          memberType: primary.memberType,
          memberSubType: null,
          memberships: [],
          primaryMemberId: primary.id,
          relation: null,
          ...newMemberRecord(body.actor),
          createdAt: now,
          updatedAt: now,
        };
    next = applyFamilyChanges(
      base,
      {
        name: f.name,
        middleName: f.middleName,
        surname: f.surname,
        email: f.email,
        phone: f.phone,
        relation: input.dependant.relation,
        memberSubType: subType,
      },
      now,
    ).after;
  } else {
    if (before?.primaryMemberId)
      throw fieldError('NOT_A_PRIMARY_MEMBER', 'employeeId', `Member '${id}' is a dependant, not an employee`);
    // the member an earlier import made for this staff id has moved to another one since (an HR migration): not this row's
    if (before && !body.foundBy && before.staffId !== input.employeeId) {
      throw fieldError(
        'ALREADY_REGISTERED',
        'employeeId',
        `Member '${id}', imported for staff id '${input.employeeId}', now holds staff id '${before.staffId}'`,
      );
    }
    const memberType = input.memberType!;
    if (!before || before.company.id !== company.id) takingMembers(company);
    if (before && before.company.id !== company.id && !(await sameCompanyGroupType(ctx, before.company.id, company))) {
      throw fieldError(
        'COMPANY_CHANGE_NOT_ALLOWED',
        'company.id',
        `Member '${id}' cannot move from company '${before.company.id}' to '${company.id}': another company group type`,
      );
    }
    if (!before || before.company.id !== company.id || before.memberType !== memberType.id) {
      await checkMemberTypes(ctx, company, memberType.id, null, { memberType });
    }
    const fields = {
      name: f.name,
      middleName: f.middleName,
      surname: f.surname,
      email: f.email,
      phone: f.phone,
      grade: f.grade ?? null,
      ...(f.isCabinCrew !== undefined ? { isCabinCrew: f.isCabinCrew } : {}),
      address: f.address ?? null,
      company: { id: company.id },
      memberType: memberType.id,
    };
    if (before) {
      next = { ...(JSON.parse(JSON.stringify(before)) as MemberProfile), ...fields };
      if (body.migrated && before.staffId !== input.employeeId)
        Object.assign(next, staffIdMigration(before, input.employeeId));
    } else {
      const r = nextMemberStatus(null, {
        type: 'creationApproved',
        loginMethod: 'email_password',
        hasIdPhoto: false,
        hasActiveMembership: false,
      });
      next = {
        id,
        status: r.ok ? r.to : 'pending_invite',
        staffId: input.employeeId,
        idPhoto: null,
        loginMethod: 'email_password',
        memberSubType: null,
        memberships: [],
        primaryMemberId: null,
        relation: null,
        ...newMemberRecord(body.actor),
        ...fields,
        createdAt: now,
        updatedAt: now,
      };
    }
  }
  if (checkEmail && next.email && (!before?.email || emailKey(before.email) !== emailKey(next.email))) {
    const owner = await memberIdByLookup(ctx, 'email', emailKey(next.email));
    if (owner && owner !== id)
      throw fieldError('EMAIL_TAKEN', 'email', `Email '${next.email}' belongs to another member`);
  }
  if (input.membership) {
    let dependantIsFree = false;
    if (primary && input.membership.paymentType === 'company_paid') {
      const family = primary.familyMembers.some((x) => x.id === id)
        ? primary.familyMembers
        : [...primary.familyMembers, familyRef(next)];
      dependantIsFree = freeFamilyMemberIds(company, family).includes(id);
    }
    const hadActive = (next.memberships ?? []).some((m) => m.status === 'active');
    next.memberships = importedMembership(next, input.membership, company, dependantIsFree, body.actor, now);
    if (!hadActive && next.memberships.some((m) => m.status === 'active')) {
      const moved = nextMemberStatus(next.status, { type: 'membershipAdded' });
      if (moved.ok) next.status = moved.to;
    }
  }
  const updatedFields = before ? IMPORT_FIELDS.filter((k) => !same(before[k], next[k])).map(String) : [];
  if (before && before.status !== next.status) updatedFields.push('status');
  if (before && !updatedFields.length) return { profile: before as MemberProfile, verdict: 'unchanged', updatedFields };
  if (before) next.updatedAt = now;
  return { profile: next, verdict: before ? 'updated' : 'created', updatedFields };
}

/** importMember (STATIC): one row; see the header. */
export async function importMember(
  ctx: MemberStaticCtx<ImportMemberBody>,
  erasure: ErasureSettings,
): Promise<{ result: ImportVerdict; memberId: string; updatedFields: string[] }> {
  const input = ctx.request.body;
  const actor = actorFromIdentity(ctx.identity);
  const self = members<{
    hrPrimaryInfo: typeof hrPrimaryInfo;
    checkImportMember: (ctx: MemberReadCtx<ApplyImportBody>) => ReturnType<typeof checkImportMember>;
    applyImportMember: (ctx: MemberCtx<ApplyImportBody>) => ReturnType<typeof applyImportMember>;
  }>(ctx);
  let id: string;
  let exists: boolean;
  let foundBy: string | null = null;
  let migrated = false;
  let primary: ApplyImportBody['primary'];
  let company: CompanyRecord;
  if (input.dependant) {
    const dep = input.dependant;
    if (!DEPENDANT_ID.test(dep.id))
      throw fieldError(
        'INVALID_INPUT',
        'dependantId',
        'must start with a letter or digit and contain only letters, digits, _ and - (at most 128)',
      );
    let info;
    try {
      info = await self.hrPrimaryInfo(`staffId!${input.employeeId}`);
    } catch (err) {
      if (!isUnknownInstance(err)) throw err;
      if (!input.dryRun || !dep.plannedPrimary)
        throw fieldError('MEMBER_NOT_FOUND', 'employeeId', `No member with staff id '${input.employeeId}'`);
      const planned = dep.plannedPrimary;
      info = {
        id: importedMemberId(input.employeeId),
        company: { id: planned.companyId },
        memberType: planned.memberTypeId,
        loginMethod: 'email_password' as const,
        familyMembers: [],
      };
    }
    if (info.id === dep.id)
      throw fieldError('ALREADY_REGISTERED', 'dependantId', `'${dep.id}' is the employee's own member id`);
    const found = await getCompany(ctx, info.company.id);
    if (!found) throw fieldError('COMPANY_NOT_FOUND', 'company.id', `Company '${info.company.id}' does not exist`);
    company = found;
    const familyMembers = info.familyMembers as FamilyMember[];
    primary = {
      id: info.id,
      company: info.company,
      memberType: info.memberType,
      loginMethod: info.loginMethod,
      familyMembers,
      listed: familyMembers.find((x) => x.id === dep.id) ?? null,
    };
    id = dep.id;
    // a listed dependant exists; one not listed (its link not applied yet, or listed by another employee) is
    // found by the upsert itself, and a dry run reads it, so that it predicts what the upsert then does
    exists = primary.listed !== null || !!input.dryRun;
  } else {
    if (!input.company || !input.memberType)
      throw fieldError('INVALID_INPUT', 'company.id', 'A primary row needs its company and member type');
    company = input.company;
    const byStaffId = await memberIdByLookup(ctx, 'staffId', input.employeeId);
    const byOld =
      !byStaffId && input.oldEmployeeId && input.oldEmployeeId !== input.employeeId
        ? await memberIdByLookup(ctx, 'staffId', input.oldEmployeeId)
        : null;
    foundBy = byStaffId ? input.employeeId : byOld ? input.oldEmployeeId! : null;
    migrated = !!byOld;
    // a new employee: not a person erased at their request, unless ERASED_MEMBERS_RETURN allows it
    if (!foundBy)
      await refuseErasedPerson(
        ctx,
        erasure,
        { staffIds: [input.employeeId], emails: [input.fields.email] },
        { staffId: 'employeeId', email: 'email' },
      );
    id = byStaffId ?? byOld ?? importedMemberId(input.employeeId);
    // a dry run also reads the derived id: a member imported for this staff id may hold another one since
    exists = !!(byStaffId ?? byOld) || !!input.dryRun;
  }
  const body: ApplyImportBody = { input, foundBy, migrated, ...(primary ? { primary } : {}), company, actor };
  const now = new Date().toISOString();
  let verdict: ImportVerdict | undefined;
  if (exists) {
    try {
      const read = await self.checkImportMember(id, body);
      if (read.result === 'unchanged' || input.dryRun)
        return { result: read.result, memberId: id, updatedFields: read.updatedFields };
      verdict = read.result;
    } catch (err) {
      if (!isUnknownInstance(err)) throw err;
    }
  }
  if (!verdict && input.dryRun) {
    if (input.dependant)
      await refuseErasedPerson(
        ctx,
        erasure,
        { emails: [input.fields.email], dependantIds: [id] },
        { email: 'email', dependantId: 'dependantId' },
      );
    const plan = await planImport(ctx, null, id, body, now);
    return { result: plan.verdict, memberId: id, updatedFields: [] };
  }
  const out = await self.applyImportMember(id, body);
  return { result: out.result, memberId: id, updatedFields: out.updatedFields };
}

/**
 * checkImportMember (READ): what the row would change on this member, written
 * nowhere. An erased member's id (a row for the person it was) is refused, or
 * planned as a new member, as ERASED_MEMBERS_RETURN says.
 */
export async function checkImportMember(
  ctx: MemberReadCtx<ApplyImportBody>,
  erasure: ErasureSettings,
): Promise<{ result: ImportVerdict; updatedFields: string[] }> {
  const state = memberState(ctx);
  const erased = isErased(state);
  if (erased && erasure.returnPolicy === 'refuse') throw erasedRow(ctx.request.body);
  const before = erased ? null : (state.profile ?? null);
  if (before) refuseWhilePending(state);
  const plan = await planImport(ctx, before, ctx.instanceId!, ctx.request.body, new Date().toISOString());
  return { result: plan.verdict, updatedFields: plan.updatedFields };
}

/** applyImportMember (INTERNAL, upsert): the row written, audited under the import's actor; a dependant linked to its primary member. */
export async function applyImportMember(
  ctx: MemberCtx<ApplyImportBody>,
  erasure: ErasureSettings,
): Promise<{ result: ImportVerdict; updatedFields: string[] }> {
  const body = ctx.request.body;
  // the id of a member erased at their request (a dependant's, one derived from a staff id): refused or taken back;
  // the id of an erased member of the other kind (an employee's for a dependant row) is no row's to take
  const tombstone = rawMemberState(ctx);
  if (tombstone.erasure && Boolean(tombstone.profile.primaryMemberId) !== Boolean(body.input?.dependant))
    throw erasedMemberError(ctx.instanceId);
  takeBackErased(ctx, erasure, () => erasedRow(body));
  const state = memberState(ctx);
  const before = ctx.version === 0 || !state.profile ? null : state.profile;
  if (!before) {
    const { input } = body;
    await refuseErasedPerson(
      ctx,
      erasure,
      input.dependant
        ? { emails: [input.fields.email] }
        : { staffIds: [input.employeeId], emails: [input.fields.email] },
      { staffId: 'employeeId', email: 'email' },
    );
  }
  if (before) {
    refuseWhilePending(state);
    // the lookup moved since importMember read it (another import or HR update): this is no longer the member it found
    if (body.foundBy && before.staffId !== body.foundBy && before.staffId !== body.input.employeeId) {
      throw fieldError(
        'MEMBER_NOT_FOUND',
        'employeeId',
        `Member '${ctx.instanceId}' no longer has staff id '${body.foundBy}'`,
      );
    }
  }
  const plan = await planImport(ctx, before, ctx.instanceId!, body, new Date().toISOString(), false);
  if (plan.verdict === 'unchanged') return { result: plan.verdict, updatedFields: [] };
  const profile = plan.profile;
  state.profile = profile;
  if (!before) state.documents = [];
  syncStaffIdLookup(ctx, profile);
  if ((await syncEmailLookup(ctx, profile)) === 'taken')
    throw fieldError('EMAIL_TAKEN', 'email', `Email '${profile.email}' belongs to another member`);
  await logMemberChange(
    ctx,
    before,
    profile,
    { source: 'import', ...(before ? { updatedFields: plan.updatedFields } : {}) },
    body.actor,
  );
  if (body.primary) {
    const ref = familyRef(profile);
    const listed = body.primary.listed;
    if (!listed || !same({ ...listed, createdAt: '' }, { ...ref, createdAt: '' })) {
      // committed with the dependant: the primary member lists it once it exists, never without it
      await ctx.effect({
        classId: 'Member',
        method: 'linkFamilyMember',
        instanceId: body.primary.id,
        body: { ref, actor: body.actor },
      });
    }
  }
  return { result: plan.verdict, updatedFields: plan.updatedFields };
}

/** 409 MEMBER_ERASED_PERSON for a row whose member id is an erased member's. */
function erasedRow(body: ApplyImportBody) {
  return body.input?.dependant
    ? erasedPersonError('dependantId', 'dependantId')
    : erasedPersonError('employeeId', 'staffId');
}
