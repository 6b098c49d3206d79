/**
 * A membership's expiry is a delayed task committed with the membership: it
 * survives the process that scheduled it. The runtime that adds the
 * membership stops before the end; a new runtime on the same Redis and
 * project expires it on time, once.
 */
import { startTestRuntime, waitFor, type TestRuntime } from '../support/harness';
import { uniqueProjectId } from '../support/redis';
import { createMember, IMAGES, MEMBER_CLASS_DIRS, memberLogs, seed, seedProgram } from './support';

const projectId = uniqueProjectId();
const env = { CLASS_DIRS: MEMBER_CLASS_DIRS, SCHEMA_DIRS: 'schemas', MEMBERSHIP_REMINDER_DAYS: '0' };
let first: TestRuntime | undefined;
let second: TestRuntime | undefined;

afterAll(async () => {
  await first?.stop();
  await second?.stop();
});

test('a membership expires at its end in a runtime started after the one that scheduled it stopped', async () => {
  first = await startTestRuntime({ projectId, env });
  await seedProgram(first);
  await seed(first, {
    tierTypes: [{ id: 'tt-restart', name: 'Restart', tierGroup: 'base' }],
    tiers: [
      {
        id: 'restart',
        name: 'Tier restart',
        tierType: { id: 'tt-restart' },
        fee: 10,
        startDate: '2020-01-01T00:00:00.000Z',
        endDate: '2099-01-01T00:00:00.000Z',
        eligibilityRules: [
          {
            name: 'Everyone',
            paymentTypes: ['credit_card'],
            paymentPeriod: 'monthly',
            conditions: [],
            status: 'active',
          },
        ],
      },
    ],
  });
  const m = await createMember(first, { loginMethod: 'sso' });
  await first.rt.call('Member', 'uploadMemberIdPhoto', m.id, { photo: IMAGES.png, fileExtension: 'png' });
  const pm = { authorization: `Bearer ${first.token('program_management_user', 'pm1', ['super'])}` };
  // far enough ahead for the first runtime to stop before it, even on a busy machine
  const endDate = new Date(Date.now() + 15_000).toISOString();
  const added = await first.post(
    `/${projectId}/CALL/Member/addMembership/${m.id}`,
    { tierId: 'restart', paymentType: 'cpg', endDate },
    pm,
  );
  expect(added.status).toBe(200);
  const membershipId: string = added.body.membership.id;
  await first.stop();
  first = undefined;
  // the first process is gone well before the end
  expect(Date.now()).toBeLessThan(Date.parse(endDate));

  second = await startTestRuntime({ projectId, env });
  const later = { authorization: `Bearer ${second.token('program_management_user', 'pm1', ['super'])}` };
  const list = async () =>
    (await second!.get(`/${projectId}/CALL/Member/listMemberships/${m.id}`, later)).body.memberships[0];
  const expired = await waitFor(
    async () => {
      const x = await list();
      return x?.status === 'expired' ? x : undefined;
    },
    { timeoutMs: 30_000, what: 'the membership expired in the second runtime' },
  );
  expect(expired).toMatchObject({
    id: membershipId,
    endDate,
    transitions: [expect.objectContaining({ event: 'expired', from: 'active', to: 'expired' })],
  });
  expect(Date.parse(expired.transitions[0].at)).toBeGreaterThanOrEqual(Date.parse(endDate));
  const stored = JSON.parse((await second.rt.store.read('Member', m.id))!.stateJson).private;
  expect(stored.profile.status).toBe('pending_tier');
  expect(stored.membershipTasks[membershipId].expiryCheck).toMatchObject({ endDate, outcome: 'expire' });
  await waitFor(
    async () => (await memberLogs(second!, m.id)).some((e) => e.additionalData?.event === 'membership_expire'),
    { what: 'the expiry audit entry' },
  );
});
