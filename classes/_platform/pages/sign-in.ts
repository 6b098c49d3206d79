/**
 * What the sign-in pages of the classes with their own pages (Member,
 * ProgramManagementUser) do alike: the paths under their base, the sign-in
 * and new-password fields, the page for the mailed code, the forgotten
 * password page and signing out, and the sentences a failed call becomes.
 * What differs stays with each class: how the step and session tokens are
 * kept, the methods' error codes, what a link carries, the signed-in page.
 */
import type { PageAnswer, PageCallResult, PageCtx, PageRoute } from '../../../runtime';
import { field, form, genericSentence, join, link, page, paragraph, postButton, type Html } from './kit';

type Failed = Extract<PageCallResult, { ok: false }>;

/** the pages every class with a sign-in has, under its base path */
export interface SignInPaths {
  readonly signIn: string;
  readonly code: string;
  readonly resend: string;
  readonly signedIn: string;
  readonly signOut: string;
  readonly invitation: string;
  readonly resetPassword: string;
  readonly forgotPassword: string;
}

/** the paths under `base` (no trailing slash); the link pages' names are the class's (its mails name them) */
export function signInPaths(base: string, links: { invitation: string; resetPassword: string }) {
  return {
    signIn: `${base}/`,
    code: `${base}/code`,
    resend: `${base}/code/resend`,
    signedIn: `${base}/signed-in`,
    signOut: `${base}/sign-out`,
    invitation: `${base}/${links.invitation}`,
    resetPassword: `${base}/${links.resetPassword}`,
    forgotPassword: `${base}/forgot-password`,
  } as const;
}

/** what the sign-in page says after a redirect (?done=…) */
export const SIGN_IN_NOTICES: Readonly<Record<string, string>> = {
  invitation: 'Your password is set. Sign in with it now.',
  reset: 'Your password has been changed. Sign in with the new one.',
  'signed-out': 'You have signed out.',
};

export const STEP_EXPIRED = 'Your sign-in took too long. Sign in again to get a new code.';

/** the status a page answers for a failed call: too many attempts stays 429, anything else is the form's 400 */
export function failedStatus(r: Failed): 400 | 429 {
  return r.status === 429 ? 429 : 400;
}

/** the email and password of the sign-in form, the cursor in the first one left to fill */
export function credentialsFields(email: string | undefined): Html[] {
  return [
    field({
      name: 'email',
      label: 'Email address',
      type: 'email',
      autocomplete: 'username',
      value: email,
      autofocus: !email,
    }),
    field({
      name: 'password',
      label: 'Password',
      type: 'password',
      autocomplete: 'current-password',
      autofocus: Boolean(email),
    }),
  ];
}

/** what a failed login says */
export function loginFailure(r: Failed, requestId: string): string {
  if (r.status === 401) return 'The email address or the password is not right. Check both and try again.';
  if (r.status === 400) return 'Enter a valid email address and your password.';
  return genericSentence(r, requestId);
}

/** the page asking for the code from the mail; `numeric`: a phone offers its number pad */
export function codePage(
  paths: SignInPaths,
  o: { errors?: string[]; notice?: string; status?: number; numeric?: boolean },
): PageAnswer {
  return page({
    title: 'Enter the code from your mail',
    errors: o.errors,
    notice: o.notice,
    status: o.status,
    body: join(
      paragraph('We have sent a sign-in code to your email address. It is valid for a few minutes.'),
      form(
        paths.code,
        [
          field({
            name: 'otp',
            label: 'Sign-in code',
            autocomplete: 'one-time-code',
            inputmode: o.numeric ? 'numeric' : undefined,
            autofocus: true,
          }),
        ],
        'Continue',
      ),
      postButton(paths.resend, 'Send me a new code'),
      paragraph(link(paths.signIn, 'Start again')),
    ),
  });
}

/** what a failed resendOtp says (other than an ended step) */
export function resendFailure(r: Failed, requestId: string): string {
  return r.status === 429 && r.classId === 'Otp'
    ? 'We have sent as many codes as we can for now. Use the newest one, or try again later.'
    : genericSentence(r, requestId);
}

/** an invitation or password reset link's page: both set a password through the class's method of that name */
export interface LinkPage {
  path: string;
  title: string;
  intro: string;
  method: 'acceptInvitation' | 'resetPassword';
  submit: string;
  /** the sign-in page's notice after it (?done=…, SIGN_IN_NOTICES) */
  done: string;
  /** what the page says of a link that can no longer be used */
  invalid: string;
}

/** the new password, twice, of an invitation or reset link's form */
export function newPasswordFields(): Html[] {
  return [
    field({
      name: 'password',
      label: 'New password',
      type: 'password',
      autocomplete: 'new-password',
      hint: 'At least 12 characters. A few words you will remember work well.',
    }),
    field({ name: 'repeat', label: 'New password again', type: 'password', autocomplete: 'new-password' }),
  ];
}

/** what is wrong with the new password as typed (before any call), or undefined */
export function newPasswordProblem(formValues: Readonly<Record<string, string | undefined>>): string | undefined {
  const password = formValues.password ?? '';
  if (!password) return 'Enter a new password.';
  if (password !== (formValues.repeat ?? '')) return 'The two passwords are not the same. Type the new password twice.';
  return undefined;
}

/** signing out: both cookies forgotten, back to the sign-in page saying so */
export function signOutRoute(paths: SignInPaths, cookies: { step: string; session: string }): PageRoute {
  return {
    path: paths.signOut,
    post: (ctx: PageCtx) => {
      ctx.clearCookie(cookies.session);
      ctx.clearCookie(cookies.step);
      return { redirect: `${paths.signIn}?done=signed-out` };
    },
  };
}

export interface ForgotPasswordPage {
  classId: string;
  title: string;
  intro: string;
  submit: string;
}

/** the forgotten-password page: an email → the class's sendPasswordResetEmail */
export function forgotPasswordRoute(paths: SignInPaths, f: ForgotPasswordPage): PageRoute {
  const forgotPage = (o: { email?: string; errors?: string[]; notice?: string; status?: number }) =>
    page({
      title: f.title,
      errors: o.errors,
      notice: o.notice,
      status: o.status,
      body: join(
        paragraph(f.intro),
        form(
          paths.forgotPassword,
          [
            field({
              name: 'email',
              label: 'Email address',
              type: 'email',
              autocomplete: 'username',
              value: o.email,
              autofocus: true,
            }),
          ],
          f.submit,
        ),
        paragraph(link(paths.signIn, 'Back to sign in')),
      ),
    });
  return {
    path: paths.forgotPassword,
    get: () => forgotPage({}),
    post: async (ctx: PageCtx) => {
      const email = (ctx.form.email ?? '').trim();
      if (!email) return forgotPage({ errors: ['Enter your email address.'] });
      const r = await ctx.call<{ message: string }>(f.classId, 'sendPasswordResetEmail', undefined, { email });
      if (!r.ok)
        return forgotPage({
          email,
          errors: [r.status === 400 ? 'Enter a valid email address.' : genericSentence(r, ctx.requestId)],
          status: failedStatus(r),
        });
      // the API's answer is the same for every email, and so is this page's
      return forgotPage({ notice: `${r.body.message.replace(/\.$/, '')}. Check your mail.` });
    },
  };
}
