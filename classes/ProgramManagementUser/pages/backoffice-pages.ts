/**
 * The service's own back-office pages, under /pages/backoffice/: what the
 * mailed links open when no back office is configured (BACKOFFICE_URL unset:
 * the links' default, settings.ts), and a sign-in for a team trying the
 * service. Each page calls ProgramManagementUser's public methods as the
 * browser's caller, exactly as a back-office application would:
 *
 *   /pages/backoffice/                   sign in: email and password → login; the step token in a cookie.
 *                                        Single sign-on lands here too (the session in the fragment: link.js
 *                                        posts it to signed-in)
 *   /pages/backoffice/code               the code from the mail → checkOtp with the step token; the session in a
 *                                        cookie (resendOtp from a button)
 *   /pages/backoffice/signed-in          the landing page: getPermissions with the session
 *   /pages/backoffice/sign-out           forgets the session cookie
 *   /pages/backoffice/accept-invitation  the invitation link (#email=…&code=…): a first password → acceptInvitation
 *   /pages/backoffice/reset-password     the reset link (#email=…&code=…): a new password → resetPassword
 *   /pages/backoffice/forgot-password    an email → sendPasswordResetEmail
 *
 * Cookies (HttpOnly, SameSite=Strict, Path=/pages): `bo_step` holds the
 * short-lived step token between the two sign-in steps, `bo_session` the
 * user id and the access token until it expires (no refresh token is kept).
 */
import type { PageCallResult, PageCtx, PageRoute } from '../../../runtime';
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
import { BACKOFFICE_PAGES_PATH, BACKOFFICE_ROUTES } from '../settings';

const BASE = BACKOFFICE_PAGES_PATH;
export const BACKOFFICE_PAGES = signInPaths(BASE, {
  invitation: BACKOFFICE_ROUTES.invitation,
  resetPassword: BACKOFFICE_ROUTES.passwordReset,
});

const STEP_COOKIE = 'bo_step';
const SESSION_COOKIE = 'bo_session';
const CLASS = 'ProgramManagementUser';

type Failed = Extract<PageCallResult, { ok: false }>;

const LABELS = { password: 'The password', email: 'The email address', otp: 'The code' };

/** the subject of a token (the user id), read without checking: every call made with it is checked */
function subjectOf(token: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      sub?: unknown;
    };
    return typeof payload.sub === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(payload.sub) ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------- sign in

function signInPage(o: { email?: string; errors?: string[]; notice?: string; status?: number }) {
  return page({
    title: 'Back office: sign in',
    script: true,
    errors: o.errors,
    notice: o.notice,
    status: o.status,
    body: join(
      form(BACKOFFICE_PAGES.signIn, credentialsFields(o.email), 'Sign in'),
      paragraph(link(BACKOFFICE_PAGES.forgotPassword, 'Forgotten your password?')),
      // single sign-on lands on this page with the session in the fragment: link.js fills this form and sends it
      form(
        BACKOFFICE_PAGES.signedIn,
        [
          field({
            name: 'accessToken',
            label: 'Access token',
            type: 'hidden',
            fromFragment: 'accessToken',
            required: false,
          }),
          field({ name: 'expiresAt', label: 'Expires', type: 'hidden', fromFragment: 'expiresAt', required: false }),
        ],
        'Continue with single sign-on',
        { autosubmit: true },
      ),
    ),
  });
}

async function signInPost(ctx: PageCtx) {
  const email = (ctx.form.email ?? '').trim();
  const password = ctx.form.password ?? '';
  if (!email || !password) return signInPage({ email, errors: ['Enter your email address and your password.'] });
  const r = await ctx.call<{ token: string; expiresAt: string }>(CLASS, 'login', undefined, { email, password });
  if (!r.ok) return signInPage({ email, errors: [loginFailure(r, ctx.requestId)], status: failedStatus(r) });
  ctx.setCookie(STEP_COOKIE, r.body.token, { maxAgeSeconds: secondsUntil(r.body.expiresAt, 600) });
  return { redirect: BACKOFFICE_PAGES.code };
}

// ---------------------------------------------------------------- the code from the mail

const codePage = (o: { errors?: string[]; notice?: string; status?: number }) => codePageOf(BACKOFFICE_PAGES, o);

const stepExpired = () => signInPage({ errors: [STEP_EXPIRED], status: 401 });

async function codePost(ctx: PageCtx) {
  const step = ctx.cookie(STEP_COOKIE);
  if (!step) return stepExpired();
  const otp = (ctx.form.otp ?? '').trim();
  if (!otp) return codePage({ errors: ['Enter the code from your mail.'] });
  const r = await ctx.call<{ accessToken: string; expiresAt: string; user: { id: string } }>(
    CLASS,
    'checkOtp',
    undefined,
    { otp },
    { token: step },
  );
  if (!r.ok) {
    if (r.status === 401 && r.code === 4014)
      return codePage({ errors: ['That code is not right. Check the newest mail and try again.'], status: 401 });
    if (r.status === 401 || r.status === 403) {
      ctx.clearCookie(STEP_COOKIE);
      return stepExpired();
    }
    if (r.status === 400) return codePage({ errors: ['Enter the code as the mail shows it.'] });
    return codePage({ errors: [genericSentence(r, ctx.requestId)], status: failedStatus(r) });
  }
  ctx.clearCookie(STEP_COOKIE);
  ctx.setCookie(SESSION_COOKIE, pair(r.body.user.id, r.body.accessToken), {
    maxAgeSeconds: secondsUntil(r.body.expiresAt, 900),
  });
  return { redirect: BACKOFFICE_PAGES.signedIn };
}

async function resendPost(ctx: PageCtx) {
  const step = ctx.cookie(STEP_COOKIE);
  if (!step) return stepExpired();
  const r = await ctx.call(CLASS, 'resendOtp', undefined, {}, { token: step });
  if (!r.ok) {
    if (r.status === 401 || r.status === 403) {
      ctx.clearCookie(STEP_COOKIE);
      return stepExpired();
    }
    return codePage({ errors: [resendFailure(r, ctx.requestId)], status: failedStatus(r) });
  }
  return codePage({ notice: 'A new code is on its way.' });
}

// ---------------------------------------------------------------- signed in

async function signedInGet(ctx: PageCtx) {
  const session = unpair(ctx.cookie(SESSION_COOKIE));
  if (!session) return { redirect: BACKOFFICE_PAGES.signIn };
  const r = await ctx.call<{ userId: string; roles: string[]; level: number | null }>(
    CLASS,
    'getPermissions',
    session.id,
    {},
    { token: session.token },
  );
  if (!r.ok) {
    if (r.status === 401 || r.status === 403) {
      ctx.clearCookie(SESSION_COOKIE);
      return signInPage({ errors: ['Your session has ended. Sign in again.'], status: 401 });
    }
    return page({ title: 'Back office', errors: [genericSentence(r, ctx.requestId)], status: r.status, body: raw('') });
  }
  const roles = r.body.roles.length ? r.body.roles.join(', ') : 'none yet';
  return page({
    title: 'Back office: signed in',
    body: join(
      paragraph('You are signed in to the back office.'),
      raw('<dl><dt>Your roles</dt><dd>'),
      roles,
      raw('</dd></dl>'),
      paragraph('The back office works through the API: its reference is at ', link('/docs', '/docs'), '.'),
      postButton(BACKOFFICE_PAGES.signOut, 'Sign out'),
    ),
  });
}

/** single sign-on's hand-over: the session from the fragment, checked by reading the user's permissions with it */
async function signedInPost(ctx: PageCtx) {
  const token = ctx.form.accessToken ?? '';
  const userId = /^[A-Za-z0-9._-]+$/.test(token) ? subjectOf(token) : undefined;
  const failed = () => signInPage({ errors: ['The sign-in could not be completed. Sign in again.'], status: 401 });
  if (!userId) return failed();
  const r = await ctx.call(CLASS, 'getPermissions', userId, {}, { token });
  if (!r.ok) return failed();
  ctx.setCookie(SESSION_COOKIE, pair(userId, token), { maxAgeSeconds: secondsUntil(ctx.form.expiresAt, 900) });
  return { redirect: BACKOFFICE_PAGES.signedIn };
}

// ---------------------------------------------------------------- links: invitation and password reset

const INVITATION: LinkPage = {
  path: BACKOFFICE_PAGES.invitation,
  title: 'Back office: accept your invitation',
  intro: 'Choose the password you will sign in to the back office with.',
  method: 'acceptInvitation',
  submit: 'Set my password',
  done: 'invitation',
  invalid:
    'This invitation is not valid: the email address or the code is not right, the code has been used or has expired, or a newer invitation was sent. Check the mail, or ask an administrator to invite you again.',
};

const RESET: LinkPage = {
  path: BACKOFFICE_PAGES.resetPassword,
  title: 'Back office: choose a new password',
  intro: 'Choose the new password you will sign in to the back office with.',
  method: 'resetPassword',
  submit: 'Change my password',
  done: 'reset',
  invalid:
    'This reset code is not valid: the email address or the code is not right, or the code has been used, has expired, or a newer one was sent. Ask for a new one.',
};

function linkPage(l: LinkPage, o: { email?: string; code?: string; errors?: string[]; status?: number }) {
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
            name: 'email',
            label: 'Email address',
            type: 'email',
            autocomplete: 'username',
            value: o.email,
            fromFragment: 'email',
          }),
          field({
            name: 'otp',
            label: 'Code from your mail',
            value: o.code,
            fromFragment: 'code',
            autocomplete: 'off',
            hint: 'Filled in when you open the link in the mail.',
          }),
          ...newPasswordFields(),
        ],
        l.submit,
      ),
      l === RESET ? paragraph(link(BACKOFFICE_PAGES.forgotPassword, 'Ask for a new code')) : undefined,
    ),
  });
}

function linkPost(l: LinkPage) {
  return async (ctx: PageCtx) => {
    const email = (ctx.form.email ?? '').trim();
    const code = (ctx.form.otp ?? '').trim();
    const password = ctx.form.password ?? '';
    if (!email || !code)
      return linkPage(l, { email, code, errors: ['Enter your email address and the code from your mail.'] });
    const problem = newPasswordProblem(ctx.form);
    if (problem) return linkPage(l, { email, code, errors: [problem] });
    const r = await ctx.call(CLASS, l.method, undefined, { email, otp: code, password });
    if (r.ok) return { redirect: `${BACKOFFICE_PAGES.signIn}?done=${l.done}` };
    return linkFailure(ctx, l, email, code, r);
  };
}

function linkFailure(ctx: PageCtx, l: LinkPage, email: string, code: string, r: Failed) {
  if (r.status === 401) return linkPage(l, { email, errors: [l.invalid], status: 400 });
  if (r.status === 400) {
    const sentences = fieldSentences(r.details, LABELS);
    if (r.code === 4016 && sentences.length)
      return linkPage(l, { email, code, errors: ['Choose another password:', ...sentences] });
    return linkPage(l, { email, code, errors: sentences.length ? sentences : [l.invalid] });
  }
  return linkPage(l, { email, code, errors: [genericSentence(r, ctx.requestId)], status: failedStatus(r) });
}

export function backOfficePageRoutes(): PageRoute[] {
  const signInGet = (ctx: PageCtx) => signInPage({ notice: SIGN_IN_NOTICES[ctx.query.done ?? ''] });
  return [
    { path: BASE, get: signInGet },
    { path: BACKOFFICE_PAGES.signIn, get: signInGet, post: signInPost },
    {
      path: BACKOFFICE_PAGES.code,
      get: (ctx) => (ctx.cookie(STEP_COOKIE) ? codePage({}) : { redirect: BACKOFFICE_PAGES.signIn }),
      post: codePost,
    },
    { path: BACKOFFICE_PAGES.resend, post: resendPost },
    { path: BACKOFFICE_PAGES.signedIn, get: signedInGet, post: signedInPost },
    signOutRoute(BACKOFFICE_PAGES, { step: STEP_COOKIE, session: SESSION_COOKIE }),
    { path: BACKOFFICE_PAGES.invitation, get: () => linkPage(INVITATION, {}), post: linkPost(INVITATION) },
    { path: BACKOFFICE_PAGES.resetPassword, get: () => linkPage(RESET, {}), post: linkPost(RESET) },
    forgotPasswordRoute(BACKOFFICE_PAGES, {
      classId: CLASS,
      title: 'Back office: forgotten your password?',
      intro: 'Enter the email address you sign in with. We will mail you a code and a link to choose a new password.',
      submit: 'Send me a code',
    }),
  ];
}
