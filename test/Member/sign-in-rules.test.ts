/** Member sign-in's pure rules (classes/Member/sign-in-rules.ts). */
import {
  appLink,
  inviteRedirectLink,
  linkToken,
  mayRestartInvitation,
  maySignIn,
  mayUsePassword,
  memberAcsOnly,
  parseLinkToken,
  redirectPage,
  replayWindowSeconds,
  SIGN_IN_THROTTLE,
  signInSettingsFrom,
  ssoOutcome,
  ssoRedirect,
  throttleCounter,
  type SignInView,
} from '../../classes/Member/sign-in-rules';
import type { SamlConfig } from '../../classes/_platform/saml';
import { MEMBER_STATUSES } from '../../classes/Member/types';

const member = (o: Partial<SignInView> = {}): SignInView => ({
  id: 'm1',
  status: 'active',
  loginMethod: 'email_password',
  email: 'ann@example.test',
  name: 'Ann',
  middleName: null,
  surname: 'Lee',
  hasPassword: true,
  ...o,
});

describe('who may sign in', () => {
  test('active and the two onboarding statuses after creation; no other', () => {
    expect(MEMBER_STATUSES.filter(maySignIn)).toEqual(['pending_id_photo', 'pending_tier', 'active']);
    expect(maySignIn(undefined)).toBe(false);
  });

  test('by password: email_password, a password, an email, a status that signs in', () => {
    expect(mayUsePassword(member())).toBe(true);
    expect(mayUsePassword(member({ loginMethod: 'sso' }))).toBe(false);
    expect(mayUsePassword(member({ hasPassword: false }))).toBe(false);
    expect(mayUsePassword(member({ email: null }))).toBe(false);
    expect(mayUsePassword(member({ status: 'inactive' }))).toBe(false);
    expect(mayUsePassword(member({ status: 'pending_invitation_acceptance' }))).toBe(false);
    expect(mayUsePassword(null)).toBe(false);
  });

  test('a fresh invitation: only an invited email_password member without a password', () => {
    const invited = member({ status: 'pending_invitation_acceptance', hasPassword: false });
    expect(mayRestartInvitation(invited)).toBe(true);
    expect(mayRestartInvitation({ ...invited, status: 'pending_invite' })).toBe(false);
    expect(mayRestartInvitation({ ...invited, hasPassword: true })).toBe(false);
    expect(mayRestartInvitation({ ...invited, loginMethod: 'sso' })).toBe(false);
    expect(mayRestartInvitation(member())).toBe(false);
  });

  test('SSO: signed in as it is, an invitation waiting for acceptance completed (spec 3.1), others refused', () => {
    expect(ssoOutcome('active')).toEqual({ ok: true, to: 'active', changed: false });
    expect(ssoOutcome('pending_id_photo')).toEqual({ ok: true, to: 'pending_id_photo', changed: false });
    expect(ssoOutcome('pending_invitation_acceptance')).toEqual({ ok: true, to: 'active', changed: true });
    for (const s of ['pending_invite', 'pending_approval', 'inactive', 'suspended', 'rejected'] as const)
      expect(ssoOutcome(s)).toEqual({ ok: false });
  });
});

describe('throttling', () => {
  test('every public operation has a per-address limit; those naming an account a per-account one', () => {
    for (const op of [
      'discoverAuthMethod',
      'login',
      'singleSignOn',
      'inviteRedirect',
      'acceptInvitation',
      'sendPasswordResetEmail',
      'resetPassword',
    ] as const) {
      expect(throttleCounter(op, 'address')).toEqual({
        name: `member.${op}.ip`,
        limit: SIGN_IN_THROTTLE[op].perAddress,
      });
    }
    for (const op of [
      'discoverAuthMethod',
      'login',
      'checkOtp',
      'resendOtp',
      'acceptInvitation',
      'sendPasswordResetEmail',
      'resetPassword',
      'changePassword',
    ] as const) {
      expect(throttleCounter(op, 'account')?.name).toBe(`member.${op}.account`);
    }
    expect(throttleCounter('singleSignOn', 'account')).toBeNull();
  });

  test('the replay window lasts until the assertion expires, at least a second', () => {
    expect(replayWindowSeconds(new Date(10_500), 0)).toBe(11);
    expect(replayWindowSeconds(new Date(0), 5_000)).toBe(1);
  });
});

describe('link tokens', () => {
  const secret = '0f8fad5b-d9cb-469f-a165-70867728950e';

  test('member id and secret, back and forth', () => {
    const t = linkToken('m-1_A', secret);
    expect(t).toBe(`m-1_A.${secret}`);
    expect(parseLinkToken(t)).toEqual({ memberId: 'm-1_A', secret });
    expect(parseLinkToken(` ${t} `)).toEqual({ memberId: 'm-1_A', secret });
  });

  test('anything else is no token', () => {
    for (const bad of [
      undefined,
      42,
      '',
      secret,
      `.${secret}`,
      'm1.',
      'm1.abc',
      `m 1.${secret}`,
      `m1.${secret}.x`,
      `${'m'.repeat(129)}.${secret}`,
    ]) {
      expect([bad, parseLinkToken(bad)]).toEqual([bad, null]);
    }
    expect(() => linkToken('a.b', secret)).toThrow('member id');
    expect(() => linkToken('m1', 'x')).toThrow('secret');
  });
});

describe('links and pages', () => {
  test('application links carry their parameters in the fragment', () => {
    expect(appLink('https://app.test/', 'invitation', { token: 'm1.abc def' })).toBe(
      'https://app.test/invitation#token=m1.abc+def',
    );
    expect(appLink('https://app.test/members', 'reset-password', { token: 't' })).toBe(
      'https://app.test/members/reset-password#token=t',
    );
  });

  test('the invitation link is inviteRedirect on this service', () => {
    expect(inviteRedirectLink('https://svc.test/', 'membership', 'm1.x-y')).toBe(
      'https://svc.test/membership/CALL/Member/inviteRedirect?token=m1.x-y',
    );
  });

  test('the redirect page escapes its target and refreshes to it', () => {
    const page = redirectPage('https://app.test/invitation#token=a&b="<x>"');
    expect(page).toContain(
      '<meta http-equiv="refresh" content="0;url=https://app.test/invitation#token=a&amp;b=&quot;&lt;x&gt;&quot;">',
    );
    expect(page).not.toContain('<x>');
    expect(page).not.toMatch(/<script/i);
  });

  test('the SSO redirect: the session and the state in the fragment', () => {
    const url = new URL(
      ssoRedirect('https://app.test/', { accessToken: 'A', expiresAt: 'E', refreshToken: 'R', memberId: 'm1' }, 'st'),
    );
    expect(url.origin + url.pathname).toBe('https://app.test/signed-in');
    expect(url.search).toBe('');
    expect(Object.fromEntries(new URLSearchParams(url.hash.slice(1)))).toEqual({
      accessToken: 'A',
      expiresAt: 'E',
      refreshToken: 'R',
      memberId: 'm1',
      state: 'st',
    });
  });
});

describe('settings', () => {
  test('defaults without SSO; a bad invitation lifetime or public URL stops the start', () => {
    const s = signInSettingsFrom({ DATA_DIR: '/nonexistent-dir', PORT: '4000' });
    expect(s).toMatchObject({
      saml: null,
      publicUrl: 'http://localhost:4000',
      appUrl: 'http://localhost:4000/pages/member/',
      invitationTtlSeconds: 7 * 24 * 3600,
    });
    expect(
      signInSettingsFrom({
        DATA_DIR: '/nonexistent-dir',
        MEMBER_INVITATION_TTL_SECONDS: '3600',
        PUBLIC_URL: 'https://svc.test/',
      }),
    ).toMatchObject({ invitationTtlSeconds: 3600, publicUrl: 'https://svc.test' });
    expect(() => signInSettingsFrom({ DATA_DIR: '/nonexistent-dir', MEMBER_INVITATION_TTL_SECONDS: '10' })).toThrow(
      'MEMBER_INVITATION_TTL_SECONDS',
    );
    expect(() => signInSettingsFrom({ DATA_DIR: '/nonexistent-dir', PUBLIC_URL: 'ftp://x' })).toThrow('PUBLIC_URL');
  });

  test("Member's own assertion consumer service only; derived from PUBLIC_URL when none is listed; else the configuration as it is", () => {
    const config = (acsUrls: string[]) =>
      ({ sp: { entityId: 'e', acsUrls }, identityProviders: [], clockSkewSeconds: 60 }) as SamlConfig;
    const pmAcs = 'https://s.test/p/CALL/ProgramManagementUser/singleSignOn';
    expect(memberAcsOnly(config([pmAcs, 'https://s.test/p/CALL/Member/singleSignOn']), {}).sp.acsUrls).toEqual([
      'https://s.test/p/CALL/Member/singleSignOn',
    ]);
    expect(memberAcsOnly(config([pmAcs]), { PUBLIC_URL: 'https://s.test/', PROJECT_ID: 'p' }).sp.acsUrls).toEqual([
      'https://s.test/p/CALL/Member/singleSignOn',
    ]);
    expect(memberAcsOnly(config(['https://proxy.test/acs']), {}).sp.acsUrls).toEqual(['https://proxy.test/acs']);
  });
});
