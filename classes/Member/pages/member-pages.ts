/**
 * The service's own member pages, under /pages/member/: what the mailed links
 * open when no member application is configured (MEMBER_APP_URL unset: the
 * links' default, classes/Member/use-cases/welcome.ts), and a sign-in for a
 * team trying the service. Each page calls Member's public methods as the
 * browser's caller, exactly as a member application would:
 *
 *   /pages/member/                 sign in: email and password → login; the step token in a cookie
 *   /pages/member/code             the code from the mail → checkOtp with the step token; the session in a cookie
 *                                  (resendOtp from a button)
 *   /pages/member/signed-in        the landing page: getMemberProfile with the session. Also where single
 *                                  sign-on sends the browser (the session in the fragment: link.js posts it here)
 *   /pages/member/sign-out         forgets the session cookie
 *   /pages/member/invitation       the invitation link (#token=…): a first password → acceptInvitation
 *   /pages/member/reset-password   the reset link (#token=…): a new password → resetPassword
 *   /pages/member/forgot-password  an email → sendPasswordResetEmail
 *
 * Cookies (HttpOnly, SameSite=Strict, Path=/pages): `member_step` holds the
 * member id and the short-lived member_otp token between the two sign-in
 * steps; `member_session` the member id and the enduser access token, until
 * it expires (no refresh token is kept: a page session ends with its access
 * token, and the member signs in again).
 */
import { UNKNOWN_INSTANCE_CODE, type PageCallResult, type PageCtx, type PageRoute } from '../../../runtime';
import {
  field,
  fieldSentences,
  form,
  genericSentence,
  join,
  link,
  page,
  pair,
  paragraph,
  postButton,
  raw,
  secondsUntil,
  unpair,
} from '../../_platform/pages/kit';
import {
  codePage as codePageOf,
  credentialsFields,
  failedStatus,
  forgotPasswordRoute,
  type LinkPage,
  loginFailure,
  newPasswordFields,
  newPasswordProblem,
  resendFailure,
  SIGN_IN_NOTICES,
  signInPaths,
  signOutRoute,
  STEP_EXPIRED,
} from '../../_platform/pages/sign-in';
import { parseLinkToken } from '../sign-in-rules';
import { MEMBER_PAGES_PATH } from '../use-cases/welcome';

const BASE = MEMBER_PAGES_PATH.replace(/\/$/, '');
export const MEMBER_PAGES = signInPaths(BASE, { invitation: 'invitation', resetPassword: 'reset-password' });

const STEP_COOKIE = 'member_step';
const SESSION_COOKIE = 'member_session';
const CLASS = 'Member';

type Failed = Extract<PageCallResult, { ok: false }>;

const LABELS = {
  password: 'The password',
  newPassword: 'The new password',
  email: 'The email address',
  token: 'The code',
  otp: 'The code',
};

// ---------------------------------------------------------------- sign in

function signInPage(o: { email?: string; errors?: string[]; notice?: string; status?: number }) {
  return page({
    title: 'Sign in',
    errors: o.errors,
    notice: o.notice,
    status: o.status,
    body: join(
      form(MEMBER_PAGES.signIn, credentialsFields(o.email), 'Sign in'),
      paragraph(link(MEMBER_PAGES.forgotPassword, 'Forgotten your password?')),
    ),
  });
}

function signInGet(ctx: PageCtx) {
  return signInPage({ notice: SIGN_IN_NOTICES[ctx.query.done ?? ''] });
}

async function signInPost(ctx: PageCtx) {
  const email = (ctx.form.email ?? '').trim();
  const password = ctx.form.password ?? '';
  if (!email || !password) return signInPage({ email, errors: ['Enter your email address and your password.'] });
  const r = await ctx.call<{ memberId: string; token: string; expiresAt: string }>(CLASS, 'login', undefined, {
    email,
    password,
  });
  if (!r.ok) return signInPage({ email, errors: [loginFailure(r, ctx.requestId)], status: failedStatus(r) });
  ctx.setCookie(STEP_COOKIE, pair(r.body.memberId, r.body.token), {
    maxAgeSeconds: secondsUntil(r.body.expiresAt, 600),
  });
  return { redirect: MEMBER_PAGES.code };
}

// ---------------------------------------------------------------- the code from the mail

// a member's code is digits: a phone offers its number pad
const codePage = (o: { errors?: string[]; notice?: string; status?: number }) =>
  codePageOf(MEMBER_PAGES, { ...o, numeric: true });

const stepExpired = () => signInPage({ errors: [STEP_EXPIRED], status: 401 });

function codeGet(ctx: PageCtx) {
  if (!unpair(ctx.cookie(STEP_COOKIE))) return { redirect: MEMBER_PAGES.signIn };
  return codePage({ notice: ctx.query.sent ? 'A new code is on its way.' : undefined });
}

async function codePost(ctx: PageCtx) {
  const step = unpair(ctx.cookie(STEP_COOKIE));
  if (!step) return stepExpired();
  const otp = (ctx.form.otp ?? '').trim();
  if (!otp) return codePage({ errors: ['Enter the code from your mail.'] });
  const r = await ctx.call<{ accessToken: string; expiresAt: string }>(
    CLASS,
    'checkOtp',
    step.id,
    { otp },
    { token: step.token },
  );
  if (!r.ok) {
    if (r.status === 401 && r.code === 5037)
      return codePage({ errors: ['That code is not right. Check the newest mail and try again.'], status: 401 });
    if (r.status === 401 || r.status === 403) {
      ctx.clearCookie(STEP_COOKIE);
      return stepExpired();
    }
    if (r.status === 400) return codePage({ errors: ['Enter the code as the mail shows it.'] });
    if (r.status === 429 && r.classId === 'Otp') {
      ctx.clearCookie(STEP_COOKIE);
      return signInPage({ errors: ['Too many wrong codes. Sign in again to get a new code.'], status: 429 });
    }
    return codePage({ errors: [genericSentence(r, ctx.requestId)], status: failedStatus(r) });
  }
  ctx.clearCookie(STEP_COOKIE);
  ctx.setCookie(SESSION_COOKIE, pair(step.id, r.body.accessToken), {
    maxAgeSeconds: secondsUntil(r.body.expiresAt, 900),
  });
  return { redirect: MEMBER_PAGES.signedIn };
}

async function resendPost(ctx: PageCtx) {
  const step = unpair(ctx.cookie(STEP_COOKIE));
  if (!step) return stepExpired();
  const r = await ctx.call(CLASS, 'resendOtp', step.id, {}, { token: step.token });
  if (!r.ok) {
    if (r.status === 401 || r.status === 403) {
      ctx.clearCookie(STEP_COOKIE);
      return stepExpired();
    }
    return codePage({ errors: [resendFailure(r, ctx.requestId)], status: failedStatus(r) });
  }
  return { redirect: `${MEMBER_PAGES.code}?sent=1` };
}

// ---------------------------------------------------------------- signed in

interface Profile {
  id: string;
  name?: string | null;
  middleName?: string | null;
  surname?: string | null;
  email?: string | null;
  status?: string;
  company?: { name?: string } | null;
}

function notSignedIn(o: { errors?: string[]; status?: number } = {}) {
  // single sign-on hands the session over in the fragment (#accessToken=…&memberId=…): link.js posts it back here
  return page({
    title: 'You are not signed in',
    script: true,
    errors: o.errors,
    status: o.status ?? 200,
    body: join(
      form(
        MEMBER_PAGES.signedIn,
        [
          field({
            name: 'accessToken',
            label: 'Access token',
            type: 'hidden',
            fromFragment: 'accessToken',
            required: false,
          }),
          field({ name: 'memberId', label: 'Member', type: 'hidden', fromFragment: 'memberId', required: false }),
          field({ name: 'expiresAt', label: 'Expires', type: 'hidden', fromFragment: 'expiresAt', required: false }),
        ],
        'Continue',
        { autosubmit: true },
      ),
      paragraph(link(MEMBER_PAGES.signIn, 'Sign in')),
    ),
  });
}

async function signedInGet(ctx: PageCtx) {
  const session = unpair(ctx.cookie(SESSION_COOKIE));
  if (!session) return notSignedIn();
  const r = await ctx.call<Profile>(CLASS, 'getMemberProfile', session.id, {}, { token: session.token });
  if (!r.ok) {
    if (r.status === 401 || r.status === 403) {
      ctx.clearCookie(SESSION_COOKIE);
      return notSignedIn({ errors: ['Your session has ended. Sign in again.'] });
    }
    return page({ title: 'Signed in', errors: [genericSentence(r, ctx.requestId)], status: r.status, body: raw('') });
  }
  const p = r.body;
  const name = [p.name, p.middleName, p.surname].filter(Boolean).join(' ') || p.email || p.id;
  return page({
    title: 'Signed in',
    body: join(
      paragraph('You are signed in as ', raw('<strong>'), name, raw('</strong>'), '.'),
      raw('<dl>'),
      raw('<dt>Email</dt><dd>'),
      p.email ?? '—',
      raw('</dd><dt>Status</dt><dd>'),
      (p.status ?? '—').replace(/_/g, ' '),
      raw('</dd>'),
      p.company?.name ? join(raw('<dt>Company</dt><dd>'), p.company.name, raw('</dd>')) : undefined,
      raw('</dl>'),
      postButton(MEMBER_PAGES.signOut, 'Sign out'),
    ),
  });
}

/** single sign-on's hand-over: the session from the fragment, checked by reading the profile with it */
async function signedInPost(ctx: PageCtx) {
  const token = ctx.form.accessToken ?? '';
  const memberId = ctx.form.memberId ?? '';
  if (!token || !memberId || !/^[A-Za-z0-9._-]+$/.test(token) || !/^[A-Za-z0-9_-]{1,100}$/.test(memberId))
    return notSignedIn({ errors: ['The sign-in could not be completed. Sign in again.'], status: 400 });
  const r = await ctx.call(CLASS, 'getMemberProfile', memberId, {}, { token });
  if (!r.ok) return notSignedIn({ errors: ['The sign-in could not be completed. Sign in again.'], status: 401 });
  ctx.setCookie(SESSION_COOKIE, pair(memberId, token), { maxAgeSeconds: secondsUntil(ctx.form.expiresAt, 900) });
  return { redirect: MEMBER_PAGES.signedIn };
}

// ---------------------------------------------------------------- links: invitation and password reset

const INVITATION: LinkPage = {
  path: MEMBER_PAGES.invitation,
  title: 'Accept your invitation',
  intro: 'Choose the password you will sign in with.',
  method: 'acceptInvitation',
  submit: 'Set my password',
  done: 'invitation',
  invalid:
    'This invitation link is not valid any more: it has been used, it has expired, or a newer invitation was sent. Ask the program team to send you a new invitation.',
};

const RESET: LinkPage = {
  path: MEMBER_PAGES.resetPassword,
  title: 'Choose a new password',
  intro: 'Choose the new password you will sign in with.',
  method: 'resetPassword',
  submit: 'Change my password',
  done: 'reset',
  invalid:
    'This password reset link is not valid any more: it has been used, it has expired, or a newer one was sent. Ask for a new link.',
};

function linkPage(l: LinkPage, o: { token?: string; errors?: string[]; status?: number; invalid?: boolean }) {
  const footer =
    l === RESET || o.invalid
      ? paragraph(
          link(
            l === RESET ? MEMBER_PAGES.forgotPassword : MEMBER_PAGES.signIn,
            l === RESET ? 'Ask for a new link' : 'Sign in',
          ),
        )
      : undefined;
  return page({
    title: l.title,
    script: true,
    errors: o.errors,
    status: o.status,
    body: join(
      paragraph(l.intro),
      form(
        l.path,
        [
          field({
            name: 'token',
            label: 'Code from your mail',
            hint: 'Filled in when you open the link in the mail.',
            value: o.token,
            fromFragment: 'token',
            autocomplete: 'off',
          }),
          ...newPasswordFields(),
        ],
        l.submit,
      ),
      footer,
    ),
  });
}

function linkGet(l: LinkPage) {
  return () => linkPage(l, {});
}

function linkPost(l: LinkPage) {
  return async (ctx: PageCtx) => {
    const token = (ctx.form.token ?? '').trim();
    const password = ctx.form.password ?? '';
    const problem = newPasswordProblem(ctx.form);
    if (problem) return linkPage(l, { token, errors: [problem] });
    const parsed = parseLinkToken(token);
    if (!parsed) return linkPage(l, { errors: [l.invalid], status: 400, invalid: true });
    const r = await ctx.call(CLASS, l.method, parsed.memberId, { token, password });
    if (r.ok) return { redirect: `${MEMBER_PAGES.signIn}?done=${l.done}` };
    return linkFailure(ctx, l, token, r);
  };
}

function linkFailure(ctx: PageCtx, l: LinkPage, token: string, r: Failed) {
  // a wrong token, and a member id that names nobody (the runtime's unknown instance), are the same dead link
  if (r.status === 401 || r.code === UNKNOWN_INSTANCE_CODE)
    return linkPage(l, { errors: [l.invalid], status: 400, invalid: true });
  if (r.status === 400) {
    const sentences = fieldSentences(r.details, LABELS);
    const passwordProblems = sentences.length && r.code === 5038;
    if (passwordProblems) return linkPage(l, { token, errors: ['Choose another password:', ...sentences] });
    return linkPage(l, { errors: [l.invalid], status: 400, invalid: true });
  }
  return linkPage(l, { token, errors: [genericSentence(r, ctx.requestId)], status: failedStatus(r) });
}

export function memberPageRoutes(): PageRoute[] {
  return [
    { path: BASE, get: signInGet },
    { path: MEMBER_PAGES.signIn, get: signInGet, post: signInPost },
    { path: MEMBER_PAGES.code, get: codeGet, post: codePost },
    { path: MEMBER_PAGES.resend, post: resendPost },
    { path: MEMBER_PAGES.signedIn, get: signedInGet, post: signedInPost },
    signOutRoute(MEMBER_PAGES, { step: STEP_COOKIE, session: SESSION_COOKIE }),
    { path: MEMBER_PAGES.invitation, get: linkGet(INVITATION), post: linkPost(INVITATION) },
    { path: MEMBER_PAGES.resetPassword, get: linkGet(RESET), post: linkPost(RESET) },
    forgotPasswordRoute(MEMBER_PAGES, {
      classId: CLASS,
      title: 'Forgotten your password?',
      intro: 'Enter the email address you sign in with. We will mail you a link to choose a new password.',
      submit: 'Send me a link',
    }),
  ];
}
