/**
 * The service provider's memory (SeenCheck) on ctx.limits: one counter hit
 * at most per key, for as long as the key must be remembered, shared by every
 * process. The sign-in operations of Member and ProgramManagementUser use one
 * counter name, so an assertion signs in once and an AuthnRequest is answered
 * once, wherever the response is posted.
 *
 *   const seen = samlSeen(ctx.limits);
 *   const url = await saml.loginUrl(idp, seen, relayState);
 *   const user = await saml.parseResponse(idp, body.SAMLResponse, seen);
 */
import type { RateLimits } from '../../../runtime';
import type { SeenCheck } from './service-provider';

/** the counter name both sign-ins use */
export const SAML_MEMORY_COUNTER = 'saml.assertion';

/** seconds from `now` until `expiresAt`, at least 1 (a limit's window) */
export function memoryWindowSeconds(expiresAt: Date, now: number): number {
  return Math.max(1, Math.ceil((expiresAt.getTime() - now) / 1000));
}

export function samlSeen(limits: Pick<RateLimits, 'hit'>, counter: string = SAML_MEMORY_COUNTER): SeenCheck {
  return async (key, expiresAt) =>
    !(await limits.hit(counter, key, { max: 1, windowSeconds: memoryWindowSeconds(expiresAt, Date.now()) })).allowed;
}
