/**
 * An employee registering themselves from the member app (spec 4.5
 * discoverAuthMethod "for email/password checks the member and starts OTP
 * registration when absent"; spec 4.4's registration flows):
 *
 *   1. discoverAuthMethod {email} (sign-in.ts): an email of no member and of
 *      no SSO domain schedules startSelfRegistration (a task, run by a worker)
 *      and answers `email_password` at once, as it does for every email: the
 *      answer and its timing say nothing of whether HR knows the email.
 *   2. startSelfRegistration (STATIC, class:Member, the task): asks the HR
 *      employee lookup. An employee HR lists as active, not yet a member (or
 *      whose self-registration stopped half-way, see below), gets a
 *      registration code by mail (Otp `registration`, MEMBER_REGISTRATION_CODE;
 *      the same issue limits as every code). Anyone else gets nothing; the
 *      task's result says why, for the operators. An HR system that cannot
 *      be reached fails the task, which is retried with backoff.
 *   3. completeRegistration {email, code, password} (STATIC, public): the
 *      password's context-free policy (400 5038, before the code is spent),
 *      then the code (401 5037 for any wrong, spent or never mailed code,
 *      whatever the email), then registerFromHr's steps for this email
 *      (registration.ts: the HR lookup again, its refusals now told to the
 *      code's holder, the member created from the HR record with source
 *      `self_registration` in `pending_id_photo`, dependants, member id to
 *      HR, ID card), then the password (setRegistrationPassword on the
 *      member: the full policy, hashed there) and a session: 201 (200 when it
 *      finished a registration stopped half-way) with the tokens checkOtp
 *      gives and what the registration did.
 *
 * Resuming: a call that stops after the member was created (a crash, a
 * deploy, HR refusing the member id) leaves a member created by
 * self-registration without a password or not marked finished. Asking
 * discoverAuthMethod again mails a new code (restartInvitation, queued for
 * the member the email names, schedules step 2), and completeRegistration
 * with it finishes that member (registration-rules selfRegistrationCase)
 * instead of creating another.
 *
 * Dependants: a member who never had a password and waits for no
 * invitation (sign-in-rules mayClaimWithCode: a dependant HR listed, or one
 * the back office added) is sent a code too, by discoverAuthMethod with its
 * own email or by its primary member (inviteMyDependant), and
 * completeRegistration then only sets its password (`claimed`), asking HR
 * nothing.
 *
 * Races: two devices completing at once share registerFromHr's per-employee
 * lock (409 5043 for the second while the first runs) and one code is spent
 * once, so one member is created; the other device signs in with the
 * password.
 */
import { createHash } from 'node:crypto';
import { ActorError, client } from '../../../runtime';
import { notify } from '../../_platform/notify';
import { isOtpLimit, otpAccepted, otpInstanceId } from '../../_platform/otp';
import type { Otp } from '../../Otp/Otp.class';
import type { RequesterDetails } from '../../Otp/Otp.class';
import { HrClientError, type HrClient } from '../hr-client';
import type { IdCardLookup } from '../id-card-client';
import { hashPassword } from '../../_platform/passwords';
import { identifiers, type ErasureSettings } from '../erasure-rules';
import { fieldError, memberError } from '../errors';
import {
  clone,
  emailKey,
  logMemberChange,
  memberIdByLookup,
  memberState,
  syncEmailLookup,
  type MemberCtx,
  type MemberStaticCtx,
} from '../member-state';
import { selfRegistrationCase } from '../registration-rules';
import { now, reachable } from './common';
import {
  hrRegistrationOf,
  hrUnavailable,
  LOOKUP_RESERVE_MS,
  registerFromHr,
  REGISTER_FROM_HR_TIMEOUT_SECONDS,
  type RegistrationMode,
  type RegistrationResult,
} from './registration';
import { erasedPersonOf } from './erased-person';
import { members } from './self-client';
import {
  claimable,
  CLASS_ID,
  checkPasswordPolicy,
  memberActor,
  invalidCode,
  openSession,
  requesterDetails,
  signInView,
  throttleAccount,
  throttleAddress,
} from './sign-in-common';
import type { CompleteRegistrationInput, InviteMyDependantInput } from '../../../schemas/Member/inputs';

/** the Otp type of a registration code */
export const REGISTRATION_OTP = 'registration';
/** NotificationManager template (builtins.ts): `otp`, `name` */
export const REGISTRATION_TEMPLATE = 'MEMBER_REGISTRATION_CODE';
/** what Otp records as the requester of a registration code (there is no member yet) */
const REQUESTED_BY = 'self-registration';
/** kept from completeRegistration's budget for the password's hash and the session */
const PASSWORD_RESERVE_MS = 3_000;
/**
 * ctx.limits counter holding one completeRegistration per email at a time, taken before the code is looked at,
 * so a second device, or a retry while a crashed call's hold lasts, is refused (409 5043) without spending its
 * code. Its window outlasts the per-employee lock registerFromHr takes once HR has answered (taken up to
 * LOOKUP_RESERVE_MS later, held REGISTER_FROM_HR_TIMEOUT_SECONDS), so a retry let through here finds that one gone too.
 */
export const COMPLETE_LOCK = 'member-complete-registration';
export const COMPLETE_LOCK_SECONDS = REGISTER_FROM_HR_TIMEOUT_SECONDS + LOOKUP_RESERVE_MS / 1000;

/**
 * The Otp instance of an email's registration codes: named by a digest of the
 * lower-cased email, so no email sits in an instance id (ids appear in logs
 * and keys) and every spelling of one address shares its codes and limits.
 */
export function registrationOtpInstance(email: string): string {
  return otpInstanceId(CLASS_ID, `reg-${createHash('sha256').update(emailKey(email)).digest('hex').slice(0, 40)}`);
}

/** startSelfRegistration's body, as discoverAuthMethod or restartInvitation schedules it */
export interface StartSelfRegistrationBody {
  email: string;
  requesterDetails?: RequesterDetails;
}

/** the task's result: whether a code went out, and if not why (for the operators; nobody else sees it) */
export type StartSelfRegistrationResult =
  | { mailed: true }
  | {
      mailed: false;
      reason:
        'hr_not_configured' | 'not_an_active_employee' | 'already_registered' | 'otp_limit_exceeded' | 'erased_person';
    };

/** what a member holding an email says of its registration, or null when no member holds it */
async function heldByEmail(ctx: MemberStaticCtx<unknown>, email: string) {
  const id = await memberIdByLookup(ctx, 'email', email);
  return id ? members<{ hrRegistrationOf: typeof hrRegistrationOf }>(ctx).hrRegistrationOf(id) : null;
}

/** a registration code for `email`, mailed (Otp's issue limits: nothing past them) */
async function mailRegistrationCode(
  ctx: MemberStaticCtx<StartSelfRegistrationBody>,
  email: string,
  name: string,
): Promise<StartSelfRegistrationResult> {
  const details = ctx.request.body.requesterDetails ?? requesterDetails(ctx);
  try {
    const { token } = otpAccepted(
      await client<typeof Otp>(ctx, 'Otp').issueOtp(registrationOtpInstance(email), {
        otpType: REGISTRATION_OTP,
        tokenType: 'numeric',
        requestedBy: REQUESTED_BY,
        requesterDetails: details,
      }),
    );
    await notify(ctx, REGISTRATION_TEMPLATE, { to: [email], parameters: { otp: token, name } });
  } catch (err) {
    if (err instanceof ActorError && err.status === 429) return { mailed: false, reason: 'otp_limit_exceeded' };
    throw err;
  }
  return { mailed: true };
}

/**
 * Step 2. An email a member holds: a code when that member may finish its
 * registration with one (a self-registration stopped half-way, or a member
 * who never had a password, such as a dependant HR listed with this email).
 * Otherwise the HR lookup, and a code to an active employee who may register.
 */
export async function startSelfRegistration(
  ctx: MemberStaticCtx<StartSelfRegistrationBody>,
  hr: HrClient,
  erasure?: ErasureSettings,
): Promise<StartSelfRegistrationResult> {
  const email = emailKey(ctx.request.body.email);
  const holder = await heldByEmail(ctx, email);
  if (holder) {
    if (selfRegistrationCase(holder) === 'resume' || holder.claimable)
      return mailRegistrationCode(ctx, email, holder.member.name);
    return { mailed: false, reason: 'already_registered' };
  }
  if (!hr.configured) return { mailed: false, reason: 'hr_not_configured' };
  let employee;
  try {
    employee = await hr.lookupEmployee(email, ctx.signal);
  } catch (err) {
    // the task is retried with backoff: the employee is waiting for a code
    const e = hrUnavailable(err);
    throw new ActorError(e.status, e.code, e.message, {
      details: e.details,
      retryable: !(err instanceof HrClientError && err.kind === 'not_configured'),
    });
  }
  if (!employee || employee.status.toLowerCase() !== 'active')
    return { mailed: false, reason: 'not_an_active_employee' };
  const existing = await memberIdByLookup(ctx, 'staffId', employee.employeeId);
  if (existing) {
    const held = await members<{ hrRegistrationOf: typeof hrRegistrationOf }>(ctx).hrRegistrationOf(existing);
    if (selfRegistrationCase(held) !== 'resume') return { mailed: false, reason: 'already_registered' };
  } else if (erasure?.returnPolicy === 'refuse') {
    // no code for a person erased at their request: the registration would be refused (ERASED_MEMBERS_RETURN)
    const ids = identifiers({ staffIds: [employee.employeeId], emails: [email, employee.email] });
    if (await erasedPersonOf(ctx, erasure, ids)) return { mailed: false, reason: 'erased_person' };
  }
  return mailRegistrationCode(ctx, email, employee.name);
}

/** Step 3: the code, the registration (or its resume), the password, a session. */
export async function completeRegistration(
  ctx: MemberStaticCtx<CompleteRegistrationInput>,
  hr: HrClient,
  idCards: IdCardLookup,
  erasure?: ErasureSettings,
) {
  const started = Date.now();
  await throttleAddress(ctx, 'completeRegistration');
  const email = emailKey(ctx.request.body.email);
  await throttleAccount(ctx, 'completeRegistration', email);
  const { password } = ctx.request.body;
  // before the code is spent: a weak password costs the member a retype, not a new code (its name is checked on
  // the member, once HR has named it)
  checkPasswordPolicy(password, { email, name: '', middleName: null, surname: '' });
  const hit = await ctx.limits.hit(COMPLETE_LOCK, email, { max: 1, windowSeconds: COMPLETE_LOCK_SECONDS });
  if (!hit.allowed) {
    throw memberError(
      'REGISTRATION_IN_PROGRESS',
      `A registration with this email is in progress; try again once it has ended (at the latest in ${hit.retryAfterSeconds} s)`,
      {
        retryAfterSeconds: hit.retryAfterSeconds,
      },
    );
  }
  try {
    return await completeHeld(ctx, hr, idCards, email, started, erasure);
  } finally {
    // best effort, as registerFromHr's: the hold lapses with its window anyway
    await ctx.limits.reset(COMPLETE_LOCK, email).catch(() => undefined);
  }
}

/**
 * Did Otp accept the code? A refusal is one answer whatever Otp's reason: how
 * many tries are left, "no live code" and Otp's retry limit (429 6002) would
 * each tell an outsider whether a code was mailed to the email, that is
 * whether HR knows it as an active employee.
 */
async function codeAccepted(ctx: MemberStaticCtx<unknown>, email: string, code: string): Promise<boolean> {
  try {
    const check = otpAccepted(
      await client<typeof Otp>(ctx, 'Otp').verifyOtp(registrationOtpInstance(email), {
        otpType: REGISTRATION_OTP,
        token: code,
        requestedBy: REQUESTED_BY,
        requesterDetails: requesterDetails(ctx),
      }),
    );
    return check.isSuccessful;
  } catch (err) {
    if (isOtpLimit(err, 'OTP_RETRY_LIMIT_EXCEEDED')) return false;
    throw err;
  }
}

async function completeHeld(
  ctx: MemberStaticCtx<CompleteRegistrationInput>,
  hr: HrClient,
  idCards: IdCardLookup,
  email: string,
  started: number,
  erasure: ErasureSettings | undefined,
) {
  const { code, password } = ctx.request.body;
  if (!(await codeAccepted(ctx, email, code))) throw invalidCode();
  const setPassword = (id: string) =>
    members<{ setRegistrationPassword: typeof setRegistrationPassword }>(ctx).setRegistrationPassword(id, { password });
  const holder = await heldByEmail(ctx, email);
  if (holder && selfRegistrationCase(holder) !== 'resume') {
    // a member who never had a password (a dependant): the code was its invitation; nothing to ask HR
    if (!holder.claimable)
      throw memberError('ALREADY_REGISTERED', 'This email already signs in: use login, or reset the password', {
        memberId: holder.member.id,
      });
    const member = await setPassword(holder.member.id);
    return {
      ...(await openSession(ctx, member.id)),
      member,
      registration: { claimed: true as const, dependants: [], memberIdRecorded: false, warnings: [] },
    };
  }
  const mode: RegistrationMode = { source: 'self_registration', caseOf: selfRegistrationCase, erasure };
  const budget = REGISTER_FROM_HR_TIMEOUT_SECONDS * 1000 - PASSWORD_RESERVE_MS - (Date.now() - started);
  const registration: RegistrationResult = await registerFromHr(ctx, hr, idCards, budget, mode);
  const member = await setPassword(registration.member.id);
  ctx.response.status = registration.resumed ? 200 : 201;
  const { member: _created, ...rest } = registration;
  return { ...(await openSession(ctx, member.id)), member, registration: rest };
}

/** setRegistrationPassword's body */
export interface SetRegistrationPasswordBody {
  password: string;
}

/**
 * completeRegistration's last step, on the member (INTERNAL, class:Member):
 * the password of a member created by self-registration, hashed here (the
 * full policy: not the member's name or email). Set again when a resume gets
 * here: the caller has just proved the email with a code, as a password reset
 * would. Any other member is refused (409 5026).
 */
export async function setRegistrationPassword(ctx: MemberCtx<SetRegistrationPasswordBody>) {
  const state = memberState(ctx);
  const p = state.profile;
  if (!p) throw memberError('MEMBER_NOT_FOUND', `Member '${ctx.instanceId}' does not exist`);
  if (state.creationSource !== 'self_registration' && !claimable(p, state)) {
    throw memberError(
      'ALREADY_REGISTERED',
      `Member '${p.id}' did not register itself and has a password or waits for an invitation`,
      { memberId: p.id },
    );
  }
  const { password } = ctx.request.body;
  checkPasswordPolicy(password, signInView(p, state));
  const passwordHash = await hashPassword(password);
  const at = now();
  const before = clone(p);
  p.updatedAt = at;
  state.credentials = { passwordHash, passwordChangedAt: at };
  state.lastSignInAt = at;
  await logMemberChange(ctx, before, p, { source: 'self_registration', passwordSet: true }, memberActor(p.id));
  const view = signInView(p, state);
  return { id: view.id, name: view.name, surname: view.surname, email: view.email, status: view.status };
}

/** NotificationManager template (builtins.ts): `name`, `inviterName`, `otp` */
export const DEPENDANT_INVITATION_TEMPLATE = 'MEMBER_DEPENDANT_INVITATION';

/**
 * A primary member invites one of its dependants from the app (WRITE,
 * enduser, its own instance): the dependant (a family member it lists) gets a
 * registration code by mail, and completeRegistration with that email and
 * code gives it a password and a session. A dependant without an email is
 * given the one the primary member names. 404 5011 for a family member it
 * does not list; what the dependant refuses, below.
 */
export async function inviteMyDependant(ctx: MemberCtx<InviteMyDependantInput>, hr: HrClient) {
  const p = reachable(ctx);
  await throttleAccount(ctx, 'inviteMyDependant', p.id);
  const { familyMemberId, email } = ctx.request.body;
  if (p.primaryMemberId)
    throw memberError('NOT_A_PRIMARY_MEMBER', `Member ${p.id} is a dependant and has no family members of its own`);
  if (!(p.familyMembers ?? []).some((f) => f.id === familyMemberId)) {
    throw memberError('FAMILY_MEMBER_NOT_FOUND', `Member ${p.id} has no family member '${familyMemberId}'`);
  }
  // an employee's email is the employee's to register with, not a dependant's to take
  if (email && (await employeeEmail(ctx, hr, email))) {
    throw fieldError('EMAIL_TAKEN', 'email', "This email is an employee's: they register themselves with it");
  }
  const body: DependantInvitationBody = {
    primaryMemberId: p.id,
    inviterName: [p.name, p.surname].filter(Boolean).join(' '),
    requesterDetails: requesterDetails(ctx),
    ...(email ? { email } : {}),
  };
  return members<{ sendDependantInvitation: typeof sendDependantInvitation }>(ctx).sendDependantInvitation(
    familyMemberId,
    body,
  );
}

/** does HR know `email` as an employee's? (false when no HR system is configured) */
async function employeeEmail(ctx: MemberCtx<unknown>, hr: HrClient, email: string): Promise<boolean> {
  if (!hr.configured) return false;
  try {
    return (await hr.lookupEmployee(emailKey(email), ctx.signal)) !== null;
  } catch (err) {
    throw hrUnavailable(err);
  }
}

/** sendDependantInvitation's body */
export interface DependantInvitationBody {
  primaryMemberId: string;
  inviterName: string;
  requesterDetails: RequesterDetails;
  email?: string;
}

/**
 * inviteMyDependant's step on the dependant (INTERNAL, class:Member): the
 * email set when it has none (409 5022 when another member holds it; 400 5028
 * when it has another one, or none is given), then refused unless it may
 * claim a password with a code (409 5026: it signs in already, signs in by
 * SSO, or may not sign in), then the code issued and mailed with this change.
 */
export async function sendDependantInvitation(ctx: MemberCtx<DependantInvitationBody>) {
  const state = memberState(ctx);
  const p = state.profile;
  const body = ctx.request.body;
  if (!p || p.primaryMemberId !== body.primaryMemberId) {
    throw memberError(
      'FAMILY_MEMBER_NOT_FOUND',
      `Member ${ctx.instanceId} is not a family member of ${body.primaryMemberId}`,
    );
  }
  if (!p.email && !body.email)
    throw fieldError('INVALID_INPUT', 'email', 'The dependant has no email: give the one its invitation goes to');
  // who may be invited first: the answer to an email another member holds is for a dependant that could use it
  if (!claimable({ ...p, email: p.email ?? body.email ?? null }, state)) {
    throw memberError(
      'ALREADY_REGISTERED',
      `Dependant ${p.id} cannot be invited: it signs in already, signs in by SSO, or is ${p.status}`,
      { memberId: p.id, status: p.status },
    );
  }
  if (body.email && emailKey(body.email) !== emailKey(p.email ?? '')) {
    if (p.email)
      throw fieldError('INVALID_INPUT', 'email', 'The dependant has an email already; its invitation goes there');
    const before = clone(p);
    p.email = body.email.trim();
    p.updatedAt = now();
    if ((await syncEmailLookup(ctx, p)) === 'taken')
      throw fieldError('EMAIL_TAKEN', 'email', `Email '${body.email}' belongs to another member`);
    await logMemberChange(ctx, before, p, { source: 'dependant_invitation', section: 'contact' });
  }
  const email = emailKey(p.email!);
  const { token } = otpAccepted(
    await client<typeof Otp>(ctx, 'Otp').issueOtp(registrationOtpInstance(email), {
      otpType: REGISTRATION_OTP,
      tokenType: 'numeric',
      requestedBy: body.primaryMemberId,
      requesterDetails: body.requesterDetails,
    }),
  );
  await notify(ctx, DEPENDANT_INVITATION_TEMPLATE, {
    to: [email],
    parameters: { otp: token, name: p.name, inviterName: body.inviterName },
  });
  return { familyMemberId: p.id, email, sent: true as const };
}
