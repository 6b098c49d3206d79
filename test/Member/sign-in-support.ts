/**
 * Shared helpers of the member sign-in tests: a runtime with the real classes
 * mailing through a real SMTP server (test/mail/smtp-sink.ts), members ready
 * to be invited (an active membership of a seeded tier), callers from a
 * chosen loopback address (the per-address throttles count ctx.request.ip,
 * the connection's peer: every address of 127.0.0.0/8 is this machine), and
 * the codes and tokens read from the mails received.
 */
import * as http from 'node:http';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../mail/smtp-sink';
import { seedRoles, waitFor, type TestRuntime } from '../support/harness';
import { createMember, seed, seedProgram, startMemberRuntime, uniq } from './support';

export const APP = 'https://members.example.test/';
export const PUBLIC_URL = 'https://service.example.test';
/** a password the policy admits */
export const PASSWORD = 'Harbour-lantern 42 violet';
export const OTHER_PASSWORD = 'Quiet meadow under 7 stars';

export interface SignInEnv {
  t: TestRuntime;
  sink: SmtpSink;
  /** /<project>/CALL/Member */
  p: string;
  pm: Record<string, string>;
}

export async function startSignInRuntime(extra: Record<string, string> = {}): Promise<SignInEnv> {
  const sink = await startSmtpSink();
  const t = await startMemberRuntime({
    SMTP_URL: sink.url,
    MAIL_BACKOFF_MS: '50',
    MEMBER_APP_URL: APP,
    PUBLIC_URL,
    // every request asks Member.resolveIdentity: a token refused after a password change is refused at once
    IDENTITY_CACHE_SECONDS: '0',
    ...extra,
  });
  await seedProgram(t);
  await seedRoles(t, [{ id: 'super', name: 'super', level: 1, permissions: {} }]);
  await seed(t, {
    tierTypes: [{ id: 'tt-si', name: 'Sign-in base', tierGroup: 'base' }],
    tiers: [
      {
        id: 'si-gold',
        name: 'Gold',
        tierType: { id: 'tt-si' },
        fee: 10,
        startDate: '2020-01-01T00:00:00.000Z',
        endDate: '2099-01-01T00:00:00.000Z',
        eligibilityRules: [
          {
            name: 'Permanent staff',
            paymentTypes: ['credit_card'],
            paymentPeriod: 'monthly',
            conditions: [{ key: 'member.memberType', logicalOperator: 'equal', value: 'mt-perm' }],
            status: 'active',
          },
        ],
      },
    ],
  });
  const pm = { authorization: `Bearer ${t.token('program_management_user', 'pm1', ['super'])}` };
  return { t, sink, p: `/${t.projectId}/CALL/Member`, pm };
}

export interface Answer {
  status: number;
  body: any;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** HTTP calls to the runtime from loopback address `ip` (127.x.y.z). */
export function from(t: TestRuntime, ip: string) {
  const url = new URL(t.base);
  const request = (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> =>
    new Promise((resolve, reject) => {
      // a URLSearchParams body is posted as a browser form (an identity provider's HTTP-POST binding)
      const form = body instanceof URLSearchParams;
      const payload = body === undefined ? undefined : form ? body.toString() : JSON.stringify(body);
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method,
          path,
          localAddress: ip,
          headers: {
            ...(payload
              ? {
                  'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
                  'content-length': String(Buffer.byteLength(payload)),
                }
              : {}),
            ...headers,
          },
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
            resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers, text });
          });
        },
      );
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  return {
    post: (path: string, body: unknown = {}, headers: Record<string, string> = {}) =>
      request('POST', path, body, headers),
    get: (path: string, headers: Record<string, string> = {}) => request('GET', path, undefined, headers),
  };
}

let lastIp = 10;
/** a loopback address no other test of this process used */
export function freshIp(): string {
  lastIp += 1;
  return `127.0.${Math.floor(lastIp / 250)}.${(lastIp % 250) + 2}`;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** mails the sink accepted for `email`, in order */
export function mailsTo(sink: SmtpSink, email: string): ReceivedMail[] {
  return sink.accepted.filter((m) => m.envelopeTo.map((a) => a.toLowerCase()).includes(email.toLowerCase()));
}

/** waits for the `n`th mail to `email` (1-based) and answers it */
export async function nthMail(sink: SmtpSink, email: string, n: number): Promise<ReceivedMail> {
  await waitFor(() => mailsTo(sink, email).length >= n, { timeoutMs: 15_000, what: `mail ${n} to ${email}` });
  return mailsTo(sink, email)[n - 1]!;
}

/** the value the templates show in <strong> (the code, or the link token) */
export function codeIn(mail: ReceivedMail): string {
  const m = /<strong>([^<]+)<\/strong>/.exec(String(mail.parsed.html));
  if (!m) throw new Error(`no code in mail '${mail.parsed.subject}'`);
  return m[1]!;
}

/** A member waiting for its invitation: `pending_invite`, email and password, an active membership. */
export async function invitableMember(
  env: SignInEnv,
  body: Record<string, unknown> = {},
): Promise<{ id: string; email: string }> {
  const staffId = uniq('SI');
  const email = (body.email as string) ?? `${staffId.toLowerCase()}@example.com`;
  const m = await createMember(env.t, { staffId, email, ...body });
  const r = await env.t.rt.call('Member', 'addMembership', m.id, { tierId: 'si-gold', paymentType: 'cpg' });
  if (r.status !== 200) throw new Error(`addMembership: ${JSON.stringify(r.body)}`);
  return { id: m.id as string, email };
}

/** Invites a member and accepts with `password`: an active member who signs in by email and password. */
export async function activeMember(
  env: SignInEnv,
  password = PASSWORD,
): Promise<{ id: string; email: string; password: string }> {
  const m = await invitableMember(env);
  const sent = await env.t.post(`${env.p}/sendInviteEmail/${m.id}`, {}, env.pm);
  if (sent.status !== 200) throw new Error(`sendInviteEmail: ${JSON.stringify(sent.body)}`);
  const token = codeIn(await nthMail(env.sink, m.email, 1));
  const accepted = await from(env.t, freshIp()).post(`${env.p}/acceptInvitation/${m.id}`, { token, password });
  if (accepted.status !== 200) throw new Error(`acceptInvitation: ${JSON.stringify(accepted.body)}`);
  return { ...m, password };
}

/** login and checkOtp with the code mailed (the `n`th mail to the member): the session. */
export async function signIn(env: SignInEnv, m: { email: string; password: string }, nth: number, ip = freshIp()) {
  const c = from(env.t, ip);
  const login = await c.post(`${env.p}/login`, { email: m.email, password: m.password });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
  const otp = codeIn(await nthMail(env.sink, m.email, nth));
  const checked = await c.post(`${env.p}/checkOtp/${login.body.memberId}`, { otp }, bearer(login.body.token));
  if (checked.status !== 200) throw new Error(`checkOtp: ${checked.status} ${JSON.stringify(checked.body)}`);
  return checked.body as {
    memberId: string;
    accessToken: string;
    expiresAt: string;
    refreshToken: string;
    member: Record<string, unknown>;
  };
}
