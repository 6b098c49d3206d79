/**
 * HR-driven member registration (spec 4.4, 2.9 "members already in the HR
 * system may be migrated through the HR-driven member registration flow"):
 *
 *   1. look the employee up by email in the HR system (employee detail lookup)
 *   2. refuse when the employee is already a member (staff id) or cannot be
 *      one (no active member type for employmentType, no company for companyId,
 *      HR status not active)
 *   3. create the member (createMember with source `hr_registration`: the HR
 *      system is authoritative, so no approval) and its dependants (as the
 *      dependant upsert of 4.3 does; a dependant that cannot be created is
 *      reported as a warning)
 *   4. record the member id in the HR system (member-id update); when that
 *      fails after the client's retries, a QUEUED_WRITE (recordHrMemberId)
 *      keeps retrying with backoff, and the answer says so.
 *   5. mark the registration finished (markHrRegistrationFinished, always:
 *      hrRegistrationFinishedAt, and hrMemberIdRecordedAt when step 4 was
 *      inline). It is an effect, like the family links of step 3: a STATIC
 *      call's effects are written together, in one outbox entry, once the
 *      handler has returned and before the answer, so the member is marked
 *      finished exactly when its dependants' links are written. The queued
 *      retry of step 4 is dispatched before that entry: a crash between the
 *      two can leave the member id recorded by the retry and the registration
 *      not finished, which is why "member id recorded" does not decide it.
 *   6. the ID card (id-card.ts), when an ID card system is configured: looked
 *      up by staff id once the member exists, beside steps 3 and 4; a card
 *      with a photo submits it as the member's ID photo (MEMBER_ID_PHOTO_UPLOAD
 *      decides, as for any upload). Answered as `idCard`; a card system that
 *      fails, or no time left for it, is a warning, never a failed
 *      registration: the member then uploads a photo.
 *
 * One registration per employee at a time: once the lookup has named the
 * employee, the call holds REGISTRATION_LOCK for that employee id (ctx.limits,
 * shared by every process: one hit per REGISTER_FROM_HR_TIMEOUT_SECONDS) and
 * releases it when it ends, answered or refused. A second call meanwhile is
 * refused 409 5043 REGISTRATION_IN_PROGRESS with retryAfterSeconds; the hold
 * of a call that crashed lapses after that window. Released when the handler
 * returns, just before its effects are written: a call that slips into that
 * gap resumes the registration once more, which changes nothing (see
 * finishRegistration).
 *
 * Resuming: a process that stops after step 3's createMember (a crash, a
 * deploy) leaves a member without its dependants' links and not marked
 * finished. Running the registration again for the same email finishes it:
 * when the member holding the staff id was created by this registration
 * (creationSource) and is not marked finished, steps 3 to 5 run for that
 * member, answered 200 with `resumed: true`, provided the HR record still
 * admits it as step 2 would (HR status active; its company the member's own,
 * taking members: else 422 5031 on `status` / `companyId`) and the member is
 * not rejected or inactive (409 5026). Any other member is refused as
 * ALREADY_REGISTERED (registration-rules.ts decides which case is which).
 *
 * checkRegistrationFromHr runs steps 1 and 2 only (registrableEmployee), so a
 * dry run refuses what the registration would (the lock aside: it takes
 * none), and creates nothing; for a registration to resume it answers
 * `resumed: true`.
 *
 * Time budget: the method has REGISTER_FROM_HR_TIMEOUT_SECONDS. The HR
 * client's own time-outs and retries (HR_TIMEOUT_MS, HR_RETRIES) can take
 * longer than that, and once the member is created a call that runs out of
 * time would leave it without its member id in HR and without the background
 * retry. So the lookup gets the budget less LOOKUP_RESERVE_MS (time to create
 * the member and its dependants); the member-id update gets what is left less
 * ANSWER_RESERVE_MS, and is queued at once when too little is left. The ID
 * card lookup runs beside steps 3 and 4 (it takes no time from them) and gets
 * what is left less ANSWER_RESERVE_MS and the photo submission's own time-out
 * (SUBMIT_CARD_PHOTO_TIMEOUT_SECONDS), so a submission always ends in time;
 * under MIN_INLINE_MS it is skipped.
 */
import { ActorError, type DeepReadonly } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { findMemberSubTypeByHrmsMapping, findMemberTypeBySystemIdentifier, getCompanyByBgId } from '../clients';
import { companyTakesMembers } from '../company-rules';
import type { ErasureSettings } from '../erasure-rules';
import { fieldError, memberError } from '../errors';
import { HrClientError, type HrClient, type HrEmployee } from '../hr-client';
import type { IdCardLookup } from '../id-card-client';
import { DEPENDANT_ID, normalizeDependant } from '../hr-contract';
import { unmappedTypeWarning } from '../hr-sync';
import {
  memberIdByLookup,
  memberState,
  type MemberCtx,
  type MemberReadCtx,
  type MemberStaticCtx,
} from '../member-state';
import { claimable } from './sign-in-common';
import {
  hrRegistrationCase,
  resumeRefusedForStatus,
  type HeldRegistration,
  type HrRegistrationCase,
} from '../registration-rules';
import type { LoginMethod, MemberPrivateState, MemberProfile } from '../types';
import type { createMember } from './create';
import type { LinkFamilyBody } from './family';
import type { hrApplyDependant } from './hr-dependant';
import { refuseErasedPerson } from './erased-person';
import { idCardStep, NO_ID_CARDS, type IdCardOutcome } from './id-card';
import { members } from './self-client';
import type { CreateMemberInput, RegisterFromHrInput } from '../../../schemas/Member/inputs';

/** recordHrMemberId's body */
export interface RecordHrMemberIdBody {
  employeeId: string;
}

/** markHrRegistrationFinished's body: when the finishing step ended, and whether the member id reached HR inline */
export interface MarkHrRegistrationFinishedBody {
  at: string;
  memberIdRecorded: boolean;
}

/** Member's methods this module calls on other members, as the class declares them (the class's own settings bound) */
type RegistrationCalls = {
  createMember: (ctx: Parameters<typeof createMember>[0]) => ReturnType<typeof createMember>;
  hrApplyDependant: (ctx: Parameters<typeof hrApplyDependant>[0]) => ReturnType<typeof hrApplyDependant>;
  hrRegistrationOf: typeof hrRegistrationOf;
};

export function hrUnavailable(err: unknown): ActorError {
  if (err instanceof HrClientError) {
    return memberError('HR_UNAVAILABLE', `The HR system could not be used: ${err.message}`, {
      kind: err.kind,
      ...(err.status !== undefined ? { status: err.status } : {}),
      attempts: err.attempts,
    });
  }
  return memberError('HR_UNAVAILABLE', `The HR system could not be used: ${(err as Error)?.message ?? String(err)}`);
}

/** registerFromHr's time budget; Member.class.ts declares it as the method's timeoutSeconds */
export const REGISTER_FROM_HR_TIMEOUT_SECONDS = 30;
/** kept from the lookup for creating the member and its dependants */
export const LOOKUP_RESERVE_MS = 5_000;
/** kept from the member-id update for queuing the retry and answering */
export const ANSWER_RESERVE_MS = 2_000;
/** below this, the member-id update is not tried inline but queued */
const MIN_INLINE_MS = 500;
/** ctx.limits counter holding one registration per employee id (one hit per REGISTER_FROM_HR_TIMEOUT_SECONDS) */
export const REGISTRATION_LOCK = 'member-register-from-hr';

/** the refusal of a second registration of an employee while one runs */
function registrationInProgress(employeeId: string, retryAfterSeconds: number): ActorError {
  return memberError(
    'REGISTRATION_IN_PROGRESS',
    `A registration of employee '${employeeId}' is in progress; try again once it has ended (at the latest in ${retryAfterSeconds} s)`,
    { employeeId, retryAfterSeconds },
  );
}

/**
 * Runs `fn` with a signal that follows `outer` and also aborts (TimeoutError)
 * after `ms`. A timer of our own, not AbortSignal.timeout inside
 * AbortSignal.any: nothing would hold that timeout signal, and it may be
 * collected before it fires.
 */
async function within<T>(outer: AbortSignal, ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer.reason);
  if (outer.aborted) onAbort();
  else outer.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new DOMException('the time budget passed', 'TimeoutError')),
    Math.max(1, Math.floor(ms)),
  );
  try {
    return await fn(controller.signal);
  } finally {
    clearTimeout(timer);
    outer.removeEventListener('abort', onAbort);
  }
}

export interface RegistrationResult {
  member: MemberProfile;
  dependants: { id: string; created: boolean; warnings: string[] }[];
  memberIdRecorded: boolean;
  warnings: string[];
  /** present (true) when this call finished a registration stopped half-way, answered 200 */
  resumed?: true;
  /** the ID card step (id-card.ts); absent when no ID card system is configured */
  idCard?: IdCardOutcome;
}

/** hrRegistrationOf's answer: how the member came to be, and whether a registration from HR is left to finish */
export interface HeldRegistrationAnswer extends HeldRegistration {
  member: MemberProfile;
  /** hrRegistrationCase says `resume` */
  resumable: boolean;
  /** a member with no password yet who may choose one with a registration code (sign-in-rules mayClaimWithCode) */
  claimable: boolean;
}

/** What a member's state says about how it came to be (registration-rules.ts decides from it). */
export function heldRegistration(state: DeepReadonly<MemberPrivateState>): HeldRegistration {
  return {
    creationSource: state.creationSource ?? null,
    hrMemberIdRecordedAt: state.hrMemberIdRecordedAt ?? null,
    hrRegistrationFinishedAt: state.hrRegistrationFinishedAt ?? null,
    awaitingPassword: state.creationSource === 'self_registration' && !state.credentials?.passwordHash,
  };
}

/** What the member says about its registration from HR (READ, class:Member): registerFromHr's and register-from-hr's question. */
export function hrRegistrationOf(ctx: MemberReadCtx): HeldRegistrationAnswer {
  const state = memberState(ctx);
  if (!state.profile) throw memberError('MEMBER_NOT_FOUND', `Member '${ctx.instanceId}' does not exist`);
  const held = heldRegistration(state);
  return {
    member: structuredClone(state.profile) as MemberProfile,
    ...held,
    resumable: hrRegistrationCase(held) === 'resume',
    claimable: claimable(state.profile, state),
  };
}

/** createMember's field → the HR record's field (what the caller can look at in the HR system) */
const HR_FIELD_OF: Record<string, string> = {
  memberType: 'employmentType',
  memberSubType: 'employmentType',
  'company.id': 'companyId',
  'address.country': 'country',
  'address.address': 'address',
  staffId: 'employeeId',
};

/**
 * createMember with the HR record. The caller sent only an email, so when the
 * record itself cannot become a member (createMember's validation, a member
 * type the company does not admit) that is 422 5031 on the HR record's
 * fields, not a 400 about fields the caller never sent. Other refusals (409:
 * the email belongs to another member) are answered as they are.
 */
async function createFromHr(
  ctx: MemberStaticCtx<RegisterFromHrInput>,
  employee: HrEmployee,
  body: CreateMemberInput,
): Promise<MemberProfile> {
  try {
    return (await members<RegistrationCalls>(ctx).createMember(undefined, body)).member;
  } catch (err) {
    if (!(err instanceof ActorError) || (err.status !== 400 && err.status !== 404)) throw err;
    const inner = (err.details ?? {}) as { errors?: { field?: unknown; reason?: unknown }[] };
    const text = (v: unknown, absent: string): string =>
      v === undefined || v === null ? absent : typeof v === 'string' ? v : JSON.stringify(v);
    const errors = (Array.isArray(inner.errors) ? inner.errors : []).map((e) => {
      const field = text(e.field, '');
      return {
        field: (Object.hasOwn(HR_FIELD_OF, field) ? HR_FIELD_OF[field] : undefined) ?? field,
        reason: text(e.reason, err.message),
      };
    });
    throw memberError(
      'HR_RECORD_REJECTED',
      `Employee '${employee.employeeId}' cannot become a member: ${err.message}`,
      {
        ...(errors.length ? { errors, field: errors[0].field } : {}),
        cause: { code: err.code, message: err.message },
      },
    );
  }
}

/**
 * What the HR record registers as: the employee, its member type and its
 * company; or, for a registration to resume, the member it created.
 */
type Registrable =
  | { resume?: undefined; employee: HrEmployee; memberType: { id: string }; company: { id: string } }
  | { resume: MemberProfile; employee: HrEmployee };

function refuseInactiveEmployee(employee: HrEmployee): void {
  if (employee.status.toLowerCase() !== 'active') {
    throw fieldError(
      'HR_RECORD_REJECTED',
      'status',
      `Employee '${employee.employeeId}' has HR status '${employee.status}'; only active employees register`,
      {
        field: 'status',
      },
    );
  }
}

type RecordCompany = NonNullable<Awaited<ReturnType<typeof getCompanyByBgId>>>;

/** the HR record's company, once it exists and takes members; 422 5031 on companyId otherwise */
function companyOfRecord(employee: HrEmployee, company: RecordCompany | null): RecordCompany {
  if (!company)
    throw fieldError('HR_RECORD_REJECTED', 'companyId', `No company has BG_ID '${employee.companyId}'`, {
      field: 'companyId',
    });
  if (!companyTakesMembers(company)) {
    throw fieldError(
      'HR_RECORD_REJECTED',
      'companyId',
      `The company with BG_ID '${employee.companyId}' is ${company.status}; members join active companies only`,
      { field: 'companyId' },
    );
  }
  return company;
}

/**
 * Steps 1 and 2: the employee behind `email` in the HR system, once the rules
 * admit it (not a member yet, HR status active, an active member type for its
 * employmentType, an active company for its companyId); the refusal otherwise.
 * A member holding the staff id is refused unless hrRegistrationCase says
 * its registration is to be resumed: then that member, once the HR record
 * still admits it (HR status active, its company the member's own and taking
 * members) and the member is not rejected or inactive. The member type is
 * not asked again: the member has one.
 *
 * The HR record's company is read right after the lookup, before anything
 * else: a company user of another company is refused there (403, Company's
 * scope) before `named` (registerFromHr's lock) runs or any member is read.
 * Reads only: registerFromHr and checkRegistrationFromHr both run it.
 */
async function registrableEmployee(
  ctx: MemberStaticCtx<RegisterFromHrInput>,
  hr: HrClient,
  lookupMs: number,
  named?: (employee: HrEmployee) => Promise<void>,
  caseOf: (held: HeldRegistration) => HrRegistrationCase = hrRegistrationCase,
  erasure?: ErasureSettings,
): Promise<Registrable> {
  const { email } = ctx.request.body;
  let employee: HrEmployee | null;
  try {
    employee = await within(ctx.signal, lookupMs, (signal) => hr.lookupEmployee(email, signal));
  } catch (err) {
    throw hrUnavailable(err);
  }
  if (!employee) throw memberError('HR_EMPLOYEE_NOT_FOUND', `The HR system knows no employee with email '${email}'`);
  const company = await getCompanyByBgId(ctx, employee.companyId);
  if (named) await named(employee);

  const existing = await memberIdByLookup(ctx, 'staffId', employee.employeeId);
  if (existing) {
    const held = await members<RegistrationCalls>(ctx).hrRegistrationOf(existing);
    if (caseOf(held) !== 'resume') {
      throw memberError('ALREADY_REGISTERED', `Employee '${employee.employeeId}' is already member '${existing}'`, {
        memberId: existing,
      });
    }
    // what a new registration of this HR record would be refused for, it is refused for on resume too
    refuseInactiveEmployee(employee);
    const own = companyOfRecord(employee, company);
    if (own.id !== held.member.company.id) {
      throw fieldError(
        'HR_RECORD_REJECTED',
        'companyId',
        `Employee '${employee.employeeId}' is with the company of BG_ID '${employee.companyId}' in the HR system, not member '${existing}''s company '${held.member.company.id}'; its registration is not finished`,
        { field: 'companyId', memberId: existing },
      );
    }
    if (resumeRefusedForStatus(held.member.status)) {
      throw memberError(
        'ALREADY_REGISTERED',
        `Employee '${employee.employeeId}' is already member '${existing}', which is ${held.member.status}; its registration is not finished`,
        {
          memberId: existing,
          status: held.member.status,
        },
      );
    }
    return { resume: held.member, employee };
  }
  refuseInactiveEmployee(employee);
  // a person erased at their request is not registered again unless ERASED_MEMBERS_RETURN allows it
  await refuseErasedPerson(
    ctx,
    erasure,
    { staffIds: [employee.employeeId], emails: [employee.email] },
    { staffId: 'employeeId', email: 'email' },
  );
  const memberType = await findMemberTypeBySystemIdentifier(ctx, employee.employmentType);
  if (!memberType || memberType.status !== 'active') {
    throw fieldError(
      'HR_RECORD_REJECTED',
      'employmentType',
      `Employment type '${employee.employmentType}' matches no active member type`,
      { field: 'employmentType' },
    );
  }
  return { employee, memberType, company: companyOfRecord(employee, company) };
}

/** checkRegistrationFromHr's answer: what registerFromHr would register */
export interface RegistrationCheck {
  registrable: true;
  employeeId: string;
  memberType: string;
  company: { id: string };
  dependants: number;
  /** present (true) when registerFromHr would finish the registration of this member, stopped half-way */
  resumed?: true;
  /** with `resumed`: the member it would finish */
  memberId?: string;
}

/**
 * registerFromHr's lookup and rules without creating anything (a dry run of
 * it, e.g. `register-from-hr --dry-run`): the same refusals, or what would be
 * registered. What only createMember itself checks (its schema, the company's
 * eligibility of the member type) is not known until the registration runs.
 */
export async function checkRegistrationFromHr(
  ctx: MemberStaticCtx<RegisterFromHrInput>,
  hr: HrClient,
  erasure?: ErasureSettings,
  budgetMs = REGISTER_FROM_HR_TIMEOUT_SECONDS * 1000,
): Promise<RegistrationCheck> {
  const found = await registrableEmployee(
    ctx,
    hr,
    budgetMs - LOOKUP_RESERVE_MS,
    undefined,
    hrRegistrationCase,
    erasure,
  );
  const { employee } = found;
  if (found.resume) {
    const member = found.resume;
    return {
      registrable: true,
      employeeId: employee.employeeId,
      memberType: member.memberType ?? '',
      company: { id: member.company.id },
      dependants: employee.dependants.length,
      resumed: true,
      memberId: member.id,
    };
  }
  return {
    registrable: true,
    employeeId: employee.employeeId,
    memberType: found.memberType.id,
    company: { id: found.company.id },
    dependants: employee.dependants.length,
  };
}

/** who registers: the back office (registerFromHr) or the employee themselves (self-registration.ts) */
export interface RegistrationMode {
  source: 'hr_registration' | 'self_registration';
  /** which member holding the staff id is finished rather than refused (registration-rules.ts) */
  caseOf: (held: HeldRegistration) => HrRegistrationCase;
  /** whether a person erased at their request may be registered again (ERASED_MEMBERS_RETURN); absent: not asked */
  erasure?: ErasureSettings;
}

const BY_BACK_OFFICE: RegistrationMode = { source: 'hr_registration', caseOf: hrRegistrationCase };

/** The back office's registration, under the class's erasure settings. */
export function byBackOffice(erasure: ErasureSettings): RegistrationMode {
  return { ...BY_BACK_OFFICE, erasure };
}

export async function registerFromHr(
  ctx: MemberStaticCtx<RegisterFromHrInput>,
  hr: HrClient,
  idCards: IdCardLookup = NO_ID_CARDS,
  budgetMs = REGISTER_FROM_HR_TIMEOUT_SECONDS * 1000,
  mode: RegistrationMode = BY_BACK_OFFICE,
): Promise<RegistrationResult> {
  const started = Date.now();
  const left = () => budgetMs - (Date.now() - started);
  const { loginMethod } = ctx.request.body;
  let held: string | null = null;
  try {
    const found = await registrableEmployee(
      ctx,
      hr,
      left() - LOOKUP_RESERVE_MS,
      async (employee) => {
        // one registration per employee at a time (a crashed call's hold lapses with the window)
        const hit = await ctx.limits.hit(REGISTRATION_LOCK, employee.employeeId, {
          max: 1,
          windowSeconds: REGISTER_FROM_HR_TIMEOUT_SECONDS,
        });
        if (!hit.allowed) throw registrationInProgress(employee.employeeId, hit.retryAfterSeconds);
        held = employee.employeeId;
      },
      mode.caseOf,
      mode.erasure,
    );
    return await registerFound(ctx, hr, idCards, found, loginMethod, left, mode.source);
  } finally {
    // best effort: a release that fails must not turn a finished registration into a failed one (whose effects
    // would then not be written); the hold lapses with its window anyway
    if (held !== null) await ctx.limits.reset(REGISTRATION_LOCK, held).catch(() => undefined);
  }
}

async function registerFound(
  ctx: MemberStaticCtx<RegisterFromHrInput>,
  hr: HrClient,
  idCards: IdCardLookup,
  found: Registrable,
  loginMethod: LoginMethod | undefined,
  left: () => number,
  source: RegistrationMode['source'],
): Promise<RegistrationResult> {
  const { employee } = found;
  if (found.resume) {
    // a registration stopped half-way (registration-rules.ts): its dependants and member id, not a second member
    const result = await finishRegistration(ctx, hr, idCards, employee, found.resume, left);
    return { ...result, resumed: true };
  }
  const { memberType, company } = found;

  const created = await createFromHr(ctx, employee, {
    name: employee.name,
    surname: employee.surname,
    staffId: employee.employeeId,
    email: employee.email,
    phone: employee.phone,
    company: { id: company.id },
    grade: employee.grade,
    loginMethod: loginMethod ?? 'email_password',
    address: { country: employee.country, address: employee.address },
    memberType: memberType.id,
    isCabinCrew: employee.isCabinCrew,
    source,
    actor: actorFromIdentity(ctx.identity),
  });
  const result = await finishRegistration(ctx, hr, idCards, employee, created, left);
  ctx.response.status = 201;
  return result;
}

/**
 * Steps 3 (the dependants) and 4 (the member id) for `member`, just created
 * or created by a registration stopped half-way: each dependant is an upsert
 * and its family link idempotent, and the member id is recorded again (the
 * HR system's member-id update sets the same value), so running it twice
 * changes nothing more. The ID card step runs beside them; it submits a card
 * photo only to a member without a photo, so a second run submits none.
 */
async function finishRegistration(
  ctx: MemberStaticCtx<RegisterFromHrInput>,
  hr: HrClient,
  idCards: IdCardLookup,
  employee: HrEmployee,
  member: MemberProfile,
  left: () => number,
): Promise<RegistrationResult> {
  // started first and awaited last: the card system's time is spent while the dependants and HR are asked
  // (it never throws: what goes wrong with the card is a warning)
  const card = idCardStep(ctx, idCards, member, left, {
    reserveMs: ANSWER_RESERVE_MS,
    minMs: MIN_INLINE_MS,
    within: (ms, fn) => within(ctx.signal, ms, fn),
  }).catch((err: unknown): { outcome: IdCardOutcome; warnings: string[] } => ({
    // idCardStep answers its failures itself; this only keeps a slip from becoming an unhandled rejection
    // while the steps below run (or throw)
    outcome: { lookup: 'failed', photo: 'none' },
    warnings: [`The ID card step failed: ${(err as Error)?.message ?? String(err)}; the member uploads an ID photo`],
  }));
  const warnings: string[] = [];
  const dependants: RegistrationResult['dependants'] = [];
  const primary = {
    id: member.id,
    company: member.company,
    memberType: member.memberType,
    loginMethod: member.loginMethod,
  };
  for (const d of employee.dependants) {
    if (!DEPENDANT_ID.test(d.id)) {
      warnings.push(`Dependant '${d.id}' was not created: its id is not a valid member id`);
      continue;
    }
    const record = normalizeDependant({ ...d, employeeId: employee.employeeId, status: 'Active', phone: null });
    const subType = await findMemberSubTypeByHrmsMapping(ctx, record.type);
    const memberSubTypeId = subType && subType.status === 'active' ? subType.id : null;
    const depWarnings = memberSubTypeId ? [] : [unmappedTypeWarning(record.type)];
    try {
      const applied = await members<RegistrationCalls>(ctx).hrApplyDependant(d.id, {
        record,
        memberSubTypeId,
        primary,
        actor: actorFromIdentity(ctx.identity),
      });
      // listed on the new member once this call has returned (an effect; in order with the other dependants)
      await ctx.effect({
        classId: 'Member',
        method: 'linkFamilyMember',
        instanceId: member.id,
        body: { ref: applied.ref, actor: actorFromIdentity(ctx.identity) } satisfies LinkFamilyBody,
      });
      dependants.push({ id: d.id, created: applied.created, warnings: [...depWarnings, ...applied.warnings] });
    } catch (err) {
      if (!(err instanceof ActorError) || err.status >= 500) throw err;
      warnings.push(`Dependant '${d.id}' was not created: ${err.message}`);
    }
  }

  let memberIdRecorded = true;
  try {
    const inline = left() - ANSWER_RESERVE_MS;
    if (inline < MIN_INLINE_MS)
      throw new HrClientError('timeout', 'no time was left in this call to wait for the HR system');
    await within(ctx.signal, inline, (signal) => hr.recordMemberId(employee.employeeId, member.id, signal));
  } catch (err) {
    memberIdRecorded = false;
    await ctx.enqueue('Member', 'recordHrMemberId', member.id, { employeeId: employee.employeeId });
    warnings.push(
      `The member id could not be recorded in the HR system yet (${(err as Error).message}); it is retried in the background`,
    );
  }
  const { outcome: idCard, warnings: cardWarnings } = await card;
  warnings.push(...cardWarnings);
  // always, last: written with the family links above (one batch of effects), so a member marked finished has them;
  // a later registration of the employee is then refused, not resumed
  await ctx.effect({
    classId: 'Member',
    method: 'markHrRegistrationFinished',
    instanceId: member.id,
    body: { at: new Date().toISOString(), memberIdRecorded } satisfies MarkHrRegistrationFinishedBody,
  });
  return { member, dependants, memberIdRecorded, warnings, ...(idCard ? { idCard } : {}) };
}

/** registerFromHr's last step, on the member (INTERNAL, class:Member): the registration finished; each time kept once set. */
export function markHrRegistrationFinished(ctx: MemberCtx<MarkHrRegistrationFinishedBody>) {
  const state = memberState(ctx);
  if (!state.profile) throw memberError('MEMBER_NOT_FOUND', `Member '${ctx.instanceId}' does not exist`);
  const { at, memberIdRecorded } = ctx.request.body;
  if (memberIdRecorded && !state.hrMemberIdRecordedAt) state.hrMemberIdRecordedAt = at;
  if (!state.hrRegistrationFinishedAt) state.hrRegistrationFinishedAt = at;
  return {
    finished: true,
    at: state.hrRegistrationFinishedAt,
    hrMemberIdRecordedAt: state.hrMemberIdRecordedAt ?? null,
  };
}

/** Background retry of the HR member-id update (queued by registerFromHr when it failed). */
export async function recordHrMemberId(ctx: MemberCtx<RecordHrMemberIdBody>, hr: HrClient) {
  const { employeeId } = ctx.request.body;
  const state = memberState(ctx);
  if (state.hrMemberIdRecordedAt) return { recorded: true, at: state.hrMemberIdRecordedAt };
  try {
    await hr.recordMemberId(employeeId, ctx.instanceId!, ctx.signal);
  } catch (err) {
    const e = hrUnavailable(err);
    throw new ActorError(e.status, e.code, e.message, { details: e.details, retryable: true });
  }
  state.hrMemberIdRecordedAt = new Date().toISOString();
  return { recorded: true, at: state.hrMemberIdRecordedAt };
}
