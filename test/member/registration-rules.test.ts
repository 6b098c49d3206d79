/** registration-rules.ts: which HR registration is new, which is resumed, which is refused. */
import { hrRegistrationCase } from '../../classes/Member/registration-rules';

describe('hrRegistrationCase', () => {
  const at = '2026-01-01T00:00:00.000Z';

  test('no member holds the staff id: register', () => {
    expect(hrRegistrationCase(null)).toBe('register');
  });

  test('created by the HR registration, member id not recorded: resume', () => {
    expect(hrRegistrationCase({ creationSource: 'hr_registration', hrMemberIdRecordedAt: null })).toBe('resume');
  });

  test('created by the HR registration, member id recorded: already registered', () => {
    expect(hrRegistrationCase({ creationSource: 'hr_registration', hrMemberIdRecordedAt: at })).toBe('already_registered');
  });

  test('created any other way (back office, import, seed, before the source was kept): already registered, recorded or not', () => {
    for (const creationSource of [null, 'back_office', 'import', 'seed']) {
      expect(hrRegistrationCase({ creationSource, hrMemberIdRecordedAt: null })).toBe('already_registered');
      expect(hrRegistrationCase({ creationSource, hrMemberIdRecordedAt: at })).toBe('already_registered');
    }
  });
});
