/**
 * The HR system as the service calls it (spec 4.4): employee detail lookup
 * and member-id update, over HTTP with a time-out per attempt and retries.
 *
 * Spec 4.4 leaves paths, methods and authentication open ("not shown"); the
 * choices, all configurable from the environment the class is built with:
 *
 *   HR_BASE_URL              base address (unset: the client answers `not_configured`)
 *   HR_API_KEY               sent as `x-api-key` when set
 *   HR_TIMEOUT_MS            time-out of one attempt (default 5000)
 *   HR_RETRIES               extra attempts after a retryable failure (default 2)
 *   HR_RETRY_BASE_MS         first back-off delay, doubled each retry, with jitter (default 200)
 *   HR_LOOKUP_PATH           POST {email} → employee (default /employees/lookup; 404 = no such employee)
 *   HR_MEMBER_ID_PATH        POST {employeeId, memberId} → {success} (default /employees/member-id)
 *
 * Retryable: network errors, time-outs, HTTP 429 and 5xx. Not retried: other
 * 4xx and answers that are not the expected JSON.
 */
import { intSetting } from '../_platform/settings';
import { requestJson, type JsonAnswer } from '../_platform/json-http';

export interface HrClientConfig {
  baseUrl?: string;
  apiKey?: string;
  timeoutMs: number;
  retries: number;
  retryBaseMs: number;
  lookupPath: string;
  memberIdPath: string;
}

export function hrClientConfig(env: NodeJS.ProcessEnv): HrClientConfig {
  const baseUrl = env.HR_BASE_URL?.trim() || undefined;
  if (baseUrl && !/^https?:\/\//i.test(baseUrl))
    throw new Error(`HR_BASE_URL must be an http(s) URL, got '${baseUrl}'`);
  return {
    baseUrl: baseUrl?.replace(/\/+$/, ''),
    apiKey: env.HR_API_KEY || undefined,
    timeoutMs: intSetting(env, 'HR_TIMEOUT_MS', 5000, 1, 120_000),
    retries: intSetting(env, 'HR_RETRIES', 2, 0, 10),
    retryBaseMs: intSetting(env, 'HR_RETRY_BASE_MS', 200, 0, 60_000),
    lookupPath: env.HR_LOOKUP_PATH || '/employees/lookup',
    memberIdPath: env.HR_MEMBER_ID_PATH || '/employees/member-id',
  };
}

export type HrFailureKind = 'not_configured' | 'timeout' | 'network' | 'http' | 'bad_response' | 'rejected' | 'aborted';

export class HrClientError extends Error {
  constructor(
    readonly kind: HrFailureKind,
    message: string,
    readonly status?: number,
    readonly attempts = 1,
  ) {
    super(message);
    this.name = 'HrClientError';
  }
}

/** A dependant in the employee lookup (spec 4.4, the array GUIDE 6 calls the employee's dependants). */
export interface HrDependant {
  id: string;
  type: string;
  name: string;
  surname: string;
  email: string | null;
  birthdate: string;
}

/** The employee detail lookup's answer (spec 4.4). */
export interface HrEmployee {
  employeeId: string;
  birthdate: string;
  email: string;
  name: string;
  surname: string;
  phone: string;
  grade: string;
  isCabinCrew: boolean;
  employmentType: string;
  companyId: string;
  status: string;
  lastStatusUpdatedAt: string;
  address: string;
  country: string;
  dependants: HrDependant[];
}

const REQUIRED_STRINGS = [
  'employeeId',
  'birthdate',
  'email',
  'name',
  'surname',
  'phone',
  'grade',
  'employmentType',
  'companyId',
  'status',
  'lastStatusUpdatedAt',
  'address',
  'country',
] as const;

/** Checks and normalises a lookup answer; the list of missing or wrong fields when it is not one. */
export function parseHrEmployee(body: unknown): { ok: true; employee: HrEmployee } | { ok: false; problems: string[] } {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return { ok: false, problems: ['body is not an object'] };
  const b = (('employee' in body && typeof body.employee === 'object'
    ? (body as { employee: object }).employee
    : body) ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  const asString = (v: unknown) => (typeof v === 'number' ? String(v) : v);
  for (const f of REQUIRED_STRINGS) {
    const v = asString(b[f]);
    if (typeof v !== 'string' || v.trim() === '') problems.push(`${f} must be a non-empty string`);
  }
  if (typeof b.isCabinCrew !== 'boolean') problems.push('isCabinCrew must be a boolean');
  const rawDeps = b.dependants ?? b.familyMembers ?? [];
  const dependants: HrDependant[] = [];
  if (!Array.isArray(rawDeps)) problems.push('dependants must be an array');
  else {
    rawDeps.forEach((d, i) => {
      const r = (d ?? {}) as Record<string, unknown>;
      for (const f of ['id', 'type', 'name', 'surname', 'birthdate']) {
        const v = asString(r[f]);
        if (typeof v !== 'string' || v.trim() === '') problems.push(`dependants[${i}].${f} must be a non-empty string`);
      }
      if (r.email !== null && r.email !== undefined && typeof r.email !== 'string')
        problems.push(`dependants[${i}].email must be a string`);
      dependants.push({
        id: String(asString(r.id)),
        type: String(r.type),
        name: String(r.name),
        surname: String(r.surname),
        email: typeof r.email === 'string' && r.email.trim() ? r.email.trim() : null,
        birthdate: String(r.birthdate),
      });
    });
  }
  if (problems.length) return { ok: false, problems };
  const s = (f: (typeof REQUIRED_STRINGS)[number]) => String(asString(b[f])).trim();
  return {
    ok: true,
    employee: {
      employeeId: s('employeeId'),
      birthdate: s('birthdate'),
      email: s('email'),
      name: s('name'),
      surname: s('surname'),
      phone: s('phone'),
      grade: s('grade'),
      isCabinCrew: b.isCabinCrew as boolean,
      employmentType: s('employmentType'),
      companyId: s('companyId'),
      status: s('status'),
      lastStatusUpdatedAt: s('lastStatusUpdatedAt'),
      address: s('address'),
      country: s('country'),
      dependants,
    },
  };
}

type FetchLike = typeof fetch;

export class HrClient {
  constructor(
    readonly config: HrClientConfig,
    private readonly fetchImpl: FetchLike = (...args) => fetch(...args),
  ) {}

  get configured(): boolean {
    return Boolean(this.config.baseUrl);
  }

  /** Spec 4.4 employee detail lookup: the employee, or null when the HR system knows none with that email. */
  async lookupEmployee(email: string, signal?: AbortSignal): Promise<HrEmployee | null> {
    const res = await this.post(this.config.lookupPath, { email }, signal, [404]);
    if (res.status === 404) return null;
    const parsed = parseHrEmployee(res.body);
    if (!parsed.ok)
      throw new HrClientError(
        'bad_response',
        `HR employee lookup answered an unusable record: ${parsed.problems.join('; ')}`,
        res.status,
        res.attempts,
      );
    return parsed.employee;
  }

  /** Spec 4.4 member-id update; throws when the HR system reports a failure. */
  async recordMemberId(employeeId: string, memberId: string, signal?: AbortSignal): Promise<void> {
    const res = await this.post(this.config.memberIdPath, { employeeId, memberId }, signal);
    const b = res.body as { success?: unknown } | null;
    if (b && typeof b === 'object' && b.success === false) {
      throw new HrClientError(
        'rejected',
        `HR member-id update was refused: ${JSON.stringify(b).slice(0, 300)}`,
        res.status,
        res.attempts,
      );
    }
  }

  private async post(
    path: string,
    body: unknown,
    signal: AbortSignal | undefined,
    accept: number[] = [],
  ): Promise<JsonAnswer> {
    const c = this.config;
    if (!c.baseUrl) throw new HrClientError('not_configured', 'HR_BASE_URL is not set');
    const url = c.baseUrl + (path.startsWith('/') ? path : `/${path}`);
    const settings = {
      system: 'HR system',
      timeoutMs: c.timeoutMs,
      retries: c.retries,
      retryBaseMs: c.retryBaseMs,
      apiKey: c.apiKey,
      fetchImpl: this.fetchImpl,
    };
    return requestJson(
      settings,
      { method: 'POST', url, body, accept },
      signal,
      (kind, message, status, attempts) => new HrClientError(kind, message, status, attempts),
    );
  }
}
