/**
 * Shared helpers of the back-office user tests: a runtime with every class of
 * the service and a real SMTP server (test/mail/smtp-sink.ts) its mail goes
 * to, roles, the makers and approvers of changes, and the sign-in steps as a
 * user takes them, reading its codes from the mail it receives.
 */
import * as http from 'node:http';
import { randomUUID } from 'node:crypto';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../mail/smtp-sink';
import { seedRoles, startTestRuntime, waitFor, type TestRuntime } from '../support/harness';

export type Headers = Record<string, string>;

export interface PmRuntime {
  t: TestRuntime;
  sink: SmtpSink;
  /** a level-1 user (a development token): the maker of changes */
  admin: Headers;
  /** holds `approver`: reviews the changes */
  approver: Headers;
  stop(): Promise<void>;
}

export const ROLES = [
  { id: 'super', name: 'super', level: 1, permissions: {} },
  {
    id: 'r-approver',
    name: 'approver',
    level: 10,
    permissions: { ApprovalManager: ['getApproval', 'listApprovals', 'reviewApproval'] },
  },
  {
    id: 'r-viewer',
    name: 'viewer',
    level: 10,
    permissions: { Tier: ['listTiers'], ProgramManagementUser: ['getUser'] },
  },
  {
    id: 'r-useradmin',
    name: 'useradmin',
    level: 10,
    permissions: {
      Tier: ['listTiers'],
      ProgramManagementUser: ['createUser', 'updateUser', 'updateUserStatus', 'getUser', 'listUsers'],
    },
  },
];

export async function startPmRuntime(env: Record<string, string> = {}, projectId?: string): Promise<PmRuntime> {
  const sink = await startSmtpSink();
  const t = await startTestRuntime({
    ...(projectId ? { projectId } : {}),
    env: {
      CLASS_DIRS: 'classes',
      SCHEMA_DIRS: 'schemas',
      SMTP_URL: sink.url,
      MAIL_BACKOFF_MS: '50',
      IDENTITY_CACHE_SECONDS: '1',
      ...env,
    },
  });
  await seedRoles(t, ROLES);
  return {
    t,
    sink,
    admin: bearer(t, 'pm-admin', ['super']),
    approver: bearer(t, 'pm-approver', ['approver']),
    stop: async () => {
      await t.stop();
      await sink.close();
    },
  };
}

/** A development token of a back-office user (its roles and claims are taken as they are). */
export function bearer(t: TestRuntime, userId: string, roles: string[], claims: Record<string, unknown> = {}): Headers {
  return {
    authorization: `Bearer ${t.rt.tokens.sign({ sub: userId, identity: 'program_management_user', roles, ...claims })}`,
  };
}

export const auth = (token: string): Headers => ({ authorization: `Bearer ${token}` });

export function uid(prefix = 'u'): string {
  return `${prefix}${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

export const email = (prefix = 'pm') => `${uid(prefix)}@example.com`;

/** A class method over HTTP. */
export function call(
  t: TestRuntime,
  method: string,
  instanceId: string | undefined,
  body: unknown,
  headers: Headers = {},
  classId = 'ProgramManagementUser',
) {
  return t.post(`/${t.projectId}/CALL/${classId}/${method}${instanceId ? `/${instanceId}` : ''}`, body, headers);
}

/** A POST from another local address (127.0.0.0/8 is all loopback): each throttling test has an address of its own. */
export function postFrom(
  t: TestRuntime,
  address: string,
  pathname: string,
  body: unknown,
  headers: Headers = {},
): Promise<{ status: number; body: any }> {
  const url = new URL(t.base + pathname);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: address,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** Mails to `address`, oldest first. */
export function mailsTo(sink: SmtpSink, address: string): ReceivedMail[] {
  return sink.accepted.filter((m) => m.envelopeTo.some((a) => a.toLowerCase() === address.toLowerCase()));
}

/** Waits for the `n`-th mail (1-based) to `address` whose subject contains `subject`; answers it. */
export async function nthMail(sink: SmtpSink, address: string, subject: string, n = 1): Promise<ReceivedMail> {
  return waitFor(() => mailsTo(sink, address).filter((m) => String(m.parsed.subject).includes(subject))[n - 1], {
    what: `mail ${n} '${subject}' to ${address}`,
  });
}

/** The code a mail carries (the templates put it in <strong>). */
export function codeOf(mail: ReceivedMail): string {
  const m = /<strong>([^<]+)<\/strong>/.exec(String(mail.parsed.html));
  if (!m) throw new Error(`no code in mail '${mail.parsed.subject}'`);
  return m[1]!;
}

export const SUBJECTS = { invite: 'You are invited', login: 'sign-in code', reset: 'Reset your' } as const;

export interface CreatedUser {
  id: string;
  email: string;
}

/**
 * A user created by the admin and its creation approved by the approver (the
 * default rules wait for an approver); its invitation is then mailed.
 */
export async function createApprovedUser(p: PmRuntime, over: Record<string, unknown> = {}): Promise<CreatedUser> {
  const address = (over.email as string | undefined) ?? email();
  const created = await call(
    p.t,
    'createUser',
    undefined,
    {
      email: address,
      name: 'Ann Example',
      type: 'internal',
      loginMethod: 'email_password',
      roles: ['viewer'],
      ...over,
    },
    p.admin,
  );
  if (created.status !== 201) throw new Error(`createUser: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.user.id as string;
  if (created.body.approval.approvalStatus === 'pending') {
    const r = await call(
      p.t,
      'reviewApproval',
      created.body.approval.id,
      { action: 'approve' },
      p.approver,
      'ApprovalManager',
    );
    if (r.status !== 200) throw new Error(`reviewApproval: ${r.status} ${JSON.stringify(r.body)}`);
    await settled(p, id);
  }
  return { id, email: address.toLowerCase() };
}

/** Waits until the user waits for no approval; answers getUser's body. */
export function settled(p: PmRuntime, id: string): Promise<Record<string, any>> {
  return waitFor(
    async () => {
      const b = (await call(p.t, 'getUser', id, {}, p.admin)).body;
      return b?.pendingApproval === null ? b : undefined;
    },
    { what: `user ${id} settled` },
  );
}

export const PASSWORD = 'mauve-otter-lantern-42';

/** The invitation accepted with the code from its mail. */
export async function acceptInvitation(p: PmRuntime, u: CreatedUser, password = PASSWORD): Promise<void> {
  const code = codeOf(await nthMail(p.sink, u.email, SUBJECTS.invite));
  const r = await call(p.t, 'acceptInvitation', undefined, { email: u.email, otp: code, password });
  if (r.status !== 200) throw new Error(`acceptInvitation: ${r.status} ${JSON.stringify(r.body)}`);
}

/** login, then checkOtp with the n-th sign-in code mailed: the session. */
export async function signIn(
  p: PmRuntime,
  u: CreatedUser,
  password = PASSWORD,
  n?: number,
): Promise<{ accessToken: string; refreshToken: string; expiresAt: string }> {
  const before = mailsTo(p.sink, u.email).filter((m) => String(m.parsed.subject).includes(SUBJECTS.login)).length;
  const login = await call(p.t, 'login', undefined, { email: u.email, password });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
  const code = codeOf(await nthMail(p.sink, u.email, SUBJECTS.login, n ?? before + 1));
  const check = await call(p.t, 'checkOtp', undefined, { otp: code }, auth(login.body.token));
  if (check.status !== 200) throw new Error(`checkOtp: ${check.status} ${JSON.stringify(check.body)}`);
  return check.body;
}
