/**
 * The welcome message of spec 3.1: a member with login method `sso` whose
 * creation is approved (at once, or by approveMember) is welcomed by email
 * and in the app (NotificationManager's MEMBER_WELCOME), as a committed effect
 * of that change: sent only if it commits, once. Members with
 * `email_password` get the invitation instead (sendInviteEmail); seeded
 * members (migration) are not welcomed.
 */
import { inboxOf, notify } from '../../_platform/notify';
import type { MemberCtx } from '../member-state';
import type { StatusEffect } from '../status-machine';
import type { MemberProfile } from '../types';

export const WELCOME_TEMPLATE = 'MEMBER_WELCOME';

/** where the service's own member pages are (classes/Member/pages): the member application when none is configured */
export const MEMBER_PAGES_PATH = '/pages/member/';

/**
 * MEMBER_APP_URL: where members sign in (the welcome message's link, the SSO redirect, the invitation and reset
 * links' pages); unset, the service's own member pages (PUBLIC_URL, else the local service, + /pages/member/), so a
 * mailed link opens a page that works without a member application.
 */
export function memberAppUrl(env: NodeJS.ProcessEnv): string {
  const service = (env.PUBLIC_URL?.trim() || `http://localhost:${env.PORT || 3000}`).replace(/\/+$/, '');
  const raw = env.MEMBER_APP_URL || `${service}${MEMBER_PAGES_PATH}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`MEMBER_APP_URL must be an http(s) URL, got '${raw}'`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`MEMBER_APP_URL must be an http(s) URL, got '${raw}'`);
  return url.toString();
}

/** Pure: the welcome notification's input for a member, or null when the status change asks for none. */
export function welcomeFor(
  profile: Pick<MemberProfile, 'id' | 'name' | 'email'>,
  effects: readonly StatusEffect[],
  appUrl: string,
) {
  if (!effects.includes('welcome_email')) return null;
  return {
    to: [inboxOf('member', profile.id), ...(profile.email ? [profile.email] : [])],
    parameters: { name: profile.name ?? '', loginUrl: appUrl },
  };
}

/** Commits the welcome with the calling change when `effects` asks for it. */
export async function welcomeIfDue(
  ctx: MemberCtx<unknown>,
  profile: Pick<MemberProfile, 'id' | 'name' | 'email'>,
  effects: readonly StatusEffect[],
  appUrl: string,
): Promise<void> {
  const input = welcomeFor(profile, effects, appUrl);
  if (input) await notify(ctx, WELCOME_TEMPLATE, input);
}
