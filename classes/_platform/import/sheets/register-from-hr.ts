/**
 * The HR-driven registration of spec 2.9's last line ("members already in the
 * HR system may be migrated through the HR-driven member registration flow"),
 * as a sheet for the import runner (`npm run cli -- register-from-hr
 * <emails.csv>`): one row per email, column `email` and an optional
 * `loginMethod` (sso or email_password; else the command's --login-method,
 * else registerFromHr's own default).
 *
 * A row is registered through Member.registerFromHr (spec 4.4) as the system
 * actor; nothing here repeats its rules:
 *  - a member already holds the email (Member's `email` lookup) and has
 *    nothing left to finish (Member.hrRegistrationOf), or the registration
 *    refuses the employee as already a member (409 naming the member):
 *    `unchanged`, so a second run, or a run started again after a crash,
 *    registers nobody twice;
 *  - the registration finishes one stopped half-way (a crash after the member
 *    was created, before its finishing step was written: it answers
 *    `resumed`): `updated`; one whose member id is only queued for HR is
 *    finished (the background retry records it): `unchanged`;
 *  - another registration of the same employee is running (409 naming no
 *    member, `retryAfterSeconds`: a call still under way, or the hold of one
 *    that crashed, which lapses): the row fails with that reason, so a later
 *    run finishes it instead of counting it done;
 *  - an email the method's schema refuses, an employee the HR system does not
 *    know, an HR record the rules refuse (HR status, employment type, BG_ID)
 *    and an HR system that cannot be used: the row fails with the method's
 *    reason, on the `email` column;
 *  - a dry run asks Member.checkRegistrationFromHr instead: the same lookup
 *    (read only) and refusals, creating nothing.
 * Duplicates inside the file are found by the email in lower case.
 */
import type { ImportContext, RowResult, SheetDefinition } from '../types';
import { isMissing, text } from './common';

export const LOGIN_METHODS = ['sso', 'email_password'] as const;
export type LoginMethod = (typeof LOGIN_METHODS)[number];

/** an email as Member's `email` lookup holds it */
const lookupValue = (email: string): string => email.trim().toLowerCase();

/** Member's "already a member" refusal: a 409 naming the member the employee is (not "in progress", which names none) */
function alreadyMember(err: unknown): boolean {
  const e = err as { status?: number; details?: { memberId?: unknown } } | undefined;
  return e?.status === 409 && typeof e.details?.memberId === 'string';
}

/** a refusal of the row's email (the method's own fields name the HR record's, not the file's, except loginMethod) */
function refusalOfRow(err: unknown): Error {
  const e = err as { status?: number; message?: string; details?: { errors?: { field?: unknown }[] } } | undefined;
  const field =
    Array.isArray(e?.details?.errors) && e.details.errors.some((x) => x?.field === 'loginMethod')
      ? 'loginMethod'
      : 'email';
  return Object.assign(new Error(e?.message ?? String(err)), { status: e?.status, details: { field } });
}

/** the member holding the email: none, one with a registration from HR left to finish, or one with nothing left */
async function memberOfEmail(ctx: ImportContext, email: string): Promise<'none' | 'resumable' | 'registered'> {
  try {
    const res = await ctx.call('Member', 'hrRegistrationOf', `email!${lookupValue(email)}`, {});
    return (res.body as { resumable?: unknown }).resumable === true ? 'resumable' : 'registered';
  } catch (err) {
    if (isMissing(err)) return 'none';
    throw err;
  }
}

/** the register-from-hr sheet; `loginMethod` is the one for rows that name none */
export function registerFromHrSheet(loginMethod?: LoginMethod): SheetDefinition {
  return {
    sheet: 'register-from-hr',
    columns: [
      { name: 'email', type: 'string', required: true },
      { name: 'loginMethod', type: 'string', values: LOGIN_METHODS },
    ],
    key: (row) => lookupValue(text(row.email)),
    // everything a row needs is registerFromHr's to check (its schema, the HR lookup, its rules): see apply
    check: () => Promise.resolve([]),
    async apply(row, ctx, write): Promise<RowResult> {
      const email = text(row.email);
      const method = text(row.loginMethod) || loginMethod;
      if ((await memberOfEmail(ctx, email)) === 'registered') return 'unchanged';
      try {
        const res = await ctx.call('Member', write ? 'registerFromHr' : 'checkRegistrationFromHr', undefined, {
          email,
          ...(method ? { loginMethod: method } : {}),
        });
        return (res.body as { resumed?: unknown } | undefined)?.resumed === true ? 'updated' : 'created';
      } catch (err) {
        if (alreadyMember(err)) return 'unchanged';
        throw refusalOfRow(err);
      }
    },
  };
}
