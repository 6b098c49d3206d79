/**
 * What the tests of each class's part in a data subject's export and erasure
 * share (test/<Class>/subject-data.test.ts, subject-erasure.test.ts):
 * calling exportSubjectData and eraseSubjectData as DataSubject calls them (a
 * class identity, its caller's company along when it has one), each answer
 * checked against the method's answer schema; the answer of any other method
 * checked the same way; what an instance stores; who else is refused; and
 * the identities the tests call as.
 *
 * The runtimes of these tests serve every class of the service, DataSubject
 * included: the tests play DataSubject's part by calling with its identity, so
 * each class's method is tested on its own, whatever DataSubject itself does.
 */
import type { ValidateFunction } from 'ajv';
import type { SubjectData, SubjectErasure } from '../../classes/_platform/personal-data';
import { answerValidator, type AnswerSchema } from '../../runtime/actor/answers';
import type { CallRequest } from '../../runtime/actor/call-request';
import { seedProgram } from '../Member/support';
import { seedRoles, startTestRuntime, waitFor, type RoleSeed, type TestRuntime } from './harness';

export type Headers = Record<string, string>;

/**
 * A runtime for these tests: every class of the service, or those `env.CLASS_DIRS` names (a class alone, or the
 * service's classes and a fixture), with `env` besides.
 */
export function startSubjectRuntime(env: Record<string, string> = {}): Promise<TestRuntime> {
  return startTestRuntime({ env: { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas', ...env } });
}

/**
 * HR quarantine settings under which a company takes one deactivation from HR an hour: a member's own, after a
 * bystander's, is held, and the held push is part of what Member keeps about the member.
 */
export const ONE_DEACTIVATION_AN_HOUR = {
  HR_QUARANTINE_COUNT: '1',
  HR_QUARANTINE_PERCENT: '0',
  HR_QUARANTINE_FLOOR: '0',
  HR_QUARANTINE_WINDOW_MINUTES: '60',
};

/** a level-10 role that reviews approvals */
export const APPROVER_ROLE: RoleSeed = {
  id: 'r-approver',
  name: 'approver',
  level: 10,
  permissions: { ApprovalManager: ['reviewApproval'] },
};

/** The example programme (companies c-1 and c-2, member types) seeded, and the back-office roles `roles`. */
export async function seedProgramme(t: TestRuntime, roles: readonly RoleSeed[] = [APPROVER_ROLE]): Promise<void> {
  await seedProgram(t);
  await seedRoles(t, roles);
}

/** rt.call's options for a call made by a class */
export type CallAs = Pick<CallRequest, 'identity' | 'origin'>;

/** A call by the class `classId`; `tenant`: its caller is limited to that company. */
export function asClass(classId: string, tenant?: string): CallAs {
  return { identity: { type: 'class', classId, instanceId: 'x', ...(tenant ? { tenant } : {}) }, origin: 'class' };
}

/** A call by DataSubject: an internal user's request (no tenant) or a company user's (`tenant`). */
export function asDataSubject(tenant?: string): CallAs {
  return asClass('DataSubject', tenant);
}

/** A back-office user's development token; its `name` becomes the actor's name in audit entries and approvals. */
export function backOfficeUser(t: TestRuntime, sub: string, roles: string[], name?: string): Headers {
  const token = t.rt.tokens.sign({ sub, identity: 'program_management_user', roles, ...(name ? { name } : {}) });
  return { authorization: `Bearer ${token}` };
}

/** `method` of `classId` (no instance: exportSubjectData and eraseSubjectData are STATIC) as DataSubject calls it. */
export function subjectCall(t: TestRuntime, classId: string, method: string, body: unknown, tenant?: string) {
  return t.rt.call(classId, method, undefined, body, asDataSubject(tenant));
}

/** The subject as a call names it: any type and id, so that a test may also name what no class keeps. */
export interface SubjectRef {
  type: string;
  id: string;
}

export interface SubjectCallOptions {
  /** the caller's company: a company user's request */
  tenant?: string;
  /** the subject's company as its own class answered it, which DataSubject hands the other classes (null: none) */
  subjectCompanyId?: string | null;
}

/** The export body of `subject` as DataSubject sends it (the subject's company along where it has one to hand over). */
export function exportBody(subject: SubjectRef, opts: SubjectCallOptions = {}): Record<string, unknown> {
  return { subject, ...(opts.subjectCompanyId !== undefined ? { subjectCompanyId: opts.subjectCompanyId } : {}) };
}

/** The erasure body of `subject` for DataSubject's request `erasureId`. */
export function eraseBody(
  subject: SubjectRef,
  erasureId: string,
  opts: SubjectCallOptions = {},
): Record<string, unknown> {
  return { ...exportBody(subject, opts), erasureId };
}

/** the body of `method` for `subject` (an erasure's for the request erasure-1) */
function bodyOf(
  method: 'exportSubjectData' | 'eraseSubjectData',
  subject: SubjectRef,
  opts: SubjectCallOptions = {},
): Record<string, unknown> {
  return method === 'eraseSubjectData' ? eraseBody(subject, 'erasure-1', opts) : exportBody(subject, opts);
}

/** how a call ended: 'answered', or the refusal's [status, code] */
function outcomeOf(call: Promise<unknown>): Promise<'answered' | unknown[]> {
  return call.then(
    () => 'answered' as const,
    (err: { status: number; code: unknown }) => [err.status, err.code],
  );
}

/**
 * `classId`'s exportSubjectData of `subject`: answered 200, as its answer schema says. `T`: how the test reads
 * the answer (SubjectData, or untyped JSON where it looks deep into the records).
 */
export async function exportedBy<T = SubjectData>(
  t: TestRuntime,
  classId: string,
  subject: SubjectRef,
  opts: SubjectCallOptions = {},
): Promise<T> {
  const r = await subjectCall(t, classId, 'exportSubjectData', exportBody(subject, opts), opts.tenant);
  expect(r.status).toBe(200);
  expectValidAnswer(t, classId, 'exportSubjectData', r.body);
  return r.body as T;
}

/** `classId`'s eraseSubjectData of `subject` for the request `erasureId`: answered 200, as its answer schema says. */
export async function erasedBy(
  t: TestRuntime,
  classId: string,
  subject: SubjectRef,
  erasureId: string,
  opts: SubjectCallOptions = {},
): Promise<SubjectErasure> {
  const r = await subjectCall(t, classId, 'eraseSubjectData', eraseBody(subject, erasureId, opts), opts.tenant);
  expect(r.status).toBe(200);
  expectValidAnswer(t, classId, 'eraseSubjectData', r.body);
  return r.body as SubjectErasure;
}

/** `classId`'s export of `subject` once `until` holds of it (what it waits for is a projection, a queued job ...). */
export async function exportedWhen<T = SubjectData>(
  t: TestRuntime,
  classId: string,
  subject: SubjectRef,
  until: (data: T) => boolean,
  what: string,
  opts: SubjectCallOptions = {},
): Promise<T> {
  const found = await waitFor(
    async () => {
      const data = await exportedBy<T>(t, classId, subject, opts);
      return until(data) ? data : undefined;
    },
    {
      what: `${what} in ${classId}'s export of ${subject.type} ${subject.id}${opts.tenant ? ` for ${opts.tenant}` : ''}`,
    },
  );
  return found!;
}

/** compiled once per answer schema: the export is asked again and again while a test waits for a projection */
const validators = new WeakMap<AnswerSchema, ValidateFunction>();

/** `body` is what the answer schema of `classId.method` (as the runtime loaded it) says. */
export function expectValidAnswer(t: TestRuntime, classId: string, method: string, body: unknown): void {
  const name = `${classId}.${method}`;
  const answer = t.rt.registry.get(classId)?.methodsByName.get(method)?.answer;
  expect([name, answer ? 'declared' : 'no answer schema']).toEqual([name, 'declared']);
  let check = validators.get(answer!);
  if (!check) {
    check = answerValidator(classId, answer!);
    validators.set(answer!, check);
  }
  expect([name, check(body) ? [] : check.errors]).toEqual([name, []]);
}

/** An instance as stored: its state's JSON text, version, lookup keys, and its private and public state parsed. */
export interface Stored {
  json: string;
  version: number;
  lookups: Record<string, string>;
  private: Record<string, any>;
  public: Record<string, any>;
}

/** What `classId` stores of the instance `instanceId` (an error when there is no such instance). */
export async function storedState(t: TestRuntime, classId: string, instanceId: string): Promise<Stored> {
  const s = await t.rt.store.read(classId, instanceId);
  if (!s) throw new Error(`no ${classId} instance '${instanceId}' is stored`);
  const state = JSON.parse(s.stateJson) as { private?: Record<string, any>; public?: Record<string, any> };
  return {
    json: s.stateJson,
    version: s.version,
    lookups: s.lookups,
    private: state.private ?? {},
    public: state.public ?? {},
  };
}

/** Which of `needles` the JSON text of `value` holds. */
export function holdsAny(value: unknown, needles: readonly string[]): string[] {
  const text = JSON.stringify(value);
  return needles.filter((n) => text.includes(n));
}

/**
 * The stored state (its JSON text) of the audit entry an erasure of `entityId` left, once listed: the entry
 * whose search text names `erasedAt`.
 */
export async function erasureAuditEntry(t: TestRuntime, entityId: string): Promise<string> {
  const entry = await waitFor(
    async () => {
      const found = await t.rt.documents.find<Record<string, any>>('logs', { entityId });
      return found.items.find((d) => String(d.searchText).includes('erasedAt')) ?? null;
    },
    { what: `the erasure's audit entry of ${entityId}` },
  );
  return (await storedState(t, 'LogManager', String(entry!.id))).json;
}

/** A queued job once it completed or failed: its status. */
export async function finishedJob(t: TestRuntime, jobId: string) {
  return waitFor(
    async () => {
      const { status } = await t.rt.jobs.status(jobId);
      return status.status === 'completed' || status.status === 'failed' ? status : undefined;
    },
    { what: `job ${jobId} finished` },
  );
}

/**
 * Only DataSubject may call `classId.method`: over HTTP each of `users` is refused 403 1008 and an anonymous
 * caller 401 1007; each class of `classes` is refused 403 1008.
 */
export async function expectDataSubjectOnly(
  t: TestRuntime,
  classId: string,
  method: string,
  body: unknown,
  who: { users: Headers[]; classes: string[] },
): Promise<void> {
  const url = `/${t.projectId}/CALL/${classId}/${method}`;
  for (const [i, headers] of who.users.entries()) {
    const r = await t.post(url, body, headers);
    expect([`user ${i}`, r.status, r.body?.code]).toEqual([`user ${i}`, 403, 1008]);
  }
  const anonymous = await t.post(url, body);
  expect([anonymous.status, anonymous.body?.code]).toEqual([401, 1007]);
  for (const caller of who.classes) {
    const refused = await outcomeOf(t.rt.call(classId, method, undefined, body, asClass(caller)));
    expect([caller, refused]).toEqual([caller, [403, 1008]]);
  }
}

/**
 * `classId.method` of the instance `instanceId` is the class's own (the READ or write through which its STATIC
 * method reaches the subject's records): each class of `classes` is refused 403 1008, and each of `users` over
 * HTTP 403 1008, or 1006 (METHOD_INTERNAL) where the method is INTERNAL and so never reached over HTTP at all.
 */
export async function expectClassOwn(
  t: TestRuntime,
  classId: string,
  method: string,
  instanceId: string,
  body: unknown,
  who: { users?: Headers[]; classes: string[] },
): Promise<void> {
  for (const caller of who.classes) {
    const refused = await outcomeOf(t.rt.call(classId, method, instanceId, body, asClass(caller)));
    expect([caller, refused]).toEqual([caller, [403, 1008]]);
  }
  const overHttp = t.rt.registry.get(classId)?.methodsByName.get(method)?.kind === 'INTERNAL' ? 1006 : 1008;
  for (const [i, headers] of (who.users ?? []).entries()) {
    const r = await t.post(`/${t.projectId}/CALL/${classId}/${method}/${instanceId}`, body, headers);
    expect([`user ${i}`, r.status, r.body?.code]).toEqual([`user ${i}`, 403, overHttp]);
  }
}

/**
 * The subject's own class has no record of any of `subjects` (an unknown id, a lookup address instead of an
 * id): `method` answers each 404 `code`, the class's own not-found error.
 */
export async function expectNoSuchSubject(
  t: TestRuntime,
  classId: string,
  method: 'exportSubjectData' | 'eraseSubjectData',
  subjects: SubjectRef[],
  code: number,
): Promise<void> {
  for (const subject of subjects) {
    const outcome = await subjectCall(t, classId, method, bodyOf(method, subject)).then(
      () => 'answered',
      (err: { status: number; code: unknown; classId?: string }) => [err.status, err.code, err.classId],
    );
    expect([subject.id, outcome]).toEqual([subject.id, [404, code, classId]]);
  }
}

/**
 * A class that keeps no company of its own (an inbox, OTP records) checks a caller limited to company c-1 against
 * the company DataSubject hands over: `method` is refused 403 1023 for the subject `id` of each of `types` named
 * another company's (c-2) or no company's (null, or none given).
 */
export async function expectOnlyHandedOverCompany(
  t: TestRuntime,
  classId: string,
  method: 'exportSubjectData' | 'eraseSubjectData',
  id: string,
  types: string[],
): Promise<void> {
  for (const subjectCompanyId of ['c-2', null, undefined]) {
    for (const type of types) {
      const body = bodyOf(method, { type, id }, { subjectCompanyId });
      const outcome = await outcomeOf(subjectCall(t, classId, method, body, 'c-1'));
      expect([type, subjectCompanyId, outcome]).toEqual([type, subjectCompanyId, [403, 1023]]);
    }
  }
}

/** A member created in the back office by `headers` (a member type of the seeded programme): it waits for an approver. */
export async function createMemberForApproval(
  t: TestRuntime,
  body: Record<string, unknown>,
  headers: Headers,
): Promise<{ id: string; approvalId: string }> {
  const r = await t.post(`/${t.projectId}/CALL/Member/createMember`, { memberType: 'mt-perm', ...body }, headers);
  expect(r.status).toBe(200);
  return { id: r.body.member.id as string, approvalId: r.body.pendingApprovalId as string };
}

/** The member's creation approved by `reviewer` (`note`: its review note), once the member left pending_approval. */
export async function approveMemberCreation(
  t: TestRuntime,
  member: { id: string; approvalId: string },
  reviewer: Headers,
  reader: Headers,
  note?: string,
): Promise<void> {
  const p = `/${t.projectId}/CALL`;
  const approved = await t.post(
    `${p}/ApprovalManager/reviewApproval/${member.approvalId}`,
    { action: 'approve', ...(note === undefined ? {} : { note }) },
    reviewer,
  );
  expect(approved.status).toBe(200);
  // the approval callback is queued: the member leaves pending_approval when it ran
  await waitFor(
    async () => {
      const r = await t.get(`${p}/Member/getMemberPersonal/${member.id}`, reader);
      return r.status === 200 && r.body.status !== 'pending_approval';
    },
    { what: `the creation of member ${member.id} approved` },
  );
}
