/** registration-rules.ts: which HR registration is new, which is resumed, which is refused. */
import {
  hrRegistrationCase,
  resumeRefusedForStatus,
  selfRegistrationCase,
} from '../../classes/Member/registration-rules';
import { MEMBER_STATUSES } from '../../classes/Member/types';

describe('hrRegistrationCase', () => {
  const at = '2026-01-01T00:00:00.000Z';

  test('no member holds the staff id: register', () => {
    expect(hrRegistrationCase(null)).toBe('register');
  });

  test('created by the HR registration, not finished: resume, whether its member id reached HR or not', () => {
    expect(
      hrRegistrationCase({
        creationSource: 'hr_registration',
        hrMemberIdRecordedAt: null,
        hrRegistrationFinishedAt: null,
      }),
    ).toBe('resume');
    // the background retry recorded the id of a registration whose finishing step (the family links) never ran
    expect(
      hrRegistrationCase({
        creationSource: 'hr_registration',
        hrMemberIdRecordedAt: at,
        hrRegistrationFinishedAt: null,
      }),
    ).toBe('resume');
  });

  test('created by the HR registration, finished: already registered, whether its member id reached HR or is still queued', () => {
    expect(
      hrRegistrationCase({ creationSource: 'hr_registration', hrMemberIdRecordedAt: at, hrRegistrationFinishedAt: at }),
    ).toBe('already_registered');
    expect(
      hrRegistrationCase({
        creationSource: 'hr_registration',
        hrMemberIdRecordedAt: null,
        hrRegistrationFinishedAt: at,
      }),
    ).toBe('already_registered');
  });

  test('created any other way (back office, import, seed, before the source was kept): already registered, finished or not', () => {
    for (const creationSource of [null, 'back_office', 'import', 'seed']) {
      for (const hrRegistrationFinishedAt of [null, at]) {
        expect(hrRegistrationCase({ creationSource, hrMemberIdRecordedAt: null, hrRegistrationFinishedAt })).toBe(
          'already_registered',
        );
        expect(hrRegistrationCase({ creationSource, hrMemberIdRecordedAt: at, hrRegistrationFinishedAt })).toBe(
          'already_registered',
        );
      }
    }
  });
});

describe('selfRegistrationCase', () => {
  const at = '2026-01-01T00:00:00.000Z';
  const held = (over: Partial<Parameters<typeof selfRegistrationCase>[0] & object>) => ({
    creationSource: 'self_registration',
    hrMemberIdRecordedAt: at,
    hrRegistrationFinishedAt: at,
    awaitingPassword: false,
    ...over,
  });

  test('no member: register', () => {
    expect(selfRegistrationCase(null)).toBe('register');
  });

  test('a self-registration not finished, or whose password was never set: resume', () => {
    expect(selfRegistrationCase(held({ hrRegistrationFinishedAt: null }))).toBe('resume');
    expect(selfRegistrationCase(held({ awaitingPassword: true }))).toBe('resume');
  });

  test('a finished self-registration with its password: already registered', () => {
    expect(selfRegistrationCase(held({}))).toBe('already_registered');
  });

  test('a member the back office registered from HR is not taken over, even unfinished', () => {
    expect(selfRegistrationCase(held({ creationSource: 'hr_registration', hrRegistrationFinishedAt: null }))).toBe(
      'already_registered',
    );
    expect(
      selfRegistrationCase(held({ creationSource: null, hrRegistrationFinishedAt: null, awaitingPassword: true })),
    ).toBe('already_registered');
  });

  test('the back office finishes an unfinished self-registration too', () => {
    expect(hrRegistrationCase(held({ hrRegistrationFinishedAt: null }))).toBe('resume');
  });
});

describe('resumeRefusedForStatus', () => {
  test('a rejected or inactive member is not finished; any other status is', () => {
    expect(MEMBER_STATUSES.filter((s) => resumeRefusedForStatus(s))).toEqual(['inactive', 'rejected']);
  });
});
