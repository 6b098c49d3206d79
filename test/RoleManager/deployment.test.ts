/** Pure rules of the role deployment (classes/RoleManager/deployment.ts). */
import { createHash } from 'node:crypto';
import {
  canonicalJson,
  cooldownSecondsFrom,
  hashRoles,
  planDeployment,
  publishedRoles,
  type PlanInput,
} from '../../classes/RoleManager/deployment';
import { superRole } from '../../classes/RoleManager/rules';
import type { StoredRole } from '../../classes/RoleManager/types';

const NOW = '2025-01-01T00:00:00.000Z';
const role = (over: Partial<StoredRole>): StoredRole => ({
  id: 'r',
  name: 'R',
  level: 10,
  createdBy: { id: 'u', type: 'program_management_user' },
  permissions: {},
  status: 'active',
  createdAt: NOW,
  updatedAt: NOW,
  pendingApprovalId: null,
  ...over,
});

describe('snapshot content and hash', () => {
  test('canonical JSON sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null }, u: undefined })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
  });

  test('published roles: active only, sorted by id, only what the role check reads', () => {
    const roles = [
      role({ id: 'b', name: 'B', description: 'x', permissions: { T: ['z', 'a'] } }),
      role({ id: 'a', status: 'inactive' }),
      superRole(NOW),
    ];
    expect(publishedRoles(roles)).toEqual([
      { id: 'b', name: 'B', level: 10, permissions: { T: ['a', 'z'] }, status: 'active' },
      { id: 'super', name: 'super', level: 1, permissions: {}, status: 'active' },
    ]);
  });

  test('the hash is sha256 of the canonical JSON; independent of order, description and dates; sensitive to permissions', () => {
    const a = role({ id: 'a', permissions: { T: ['x'], S: ['y'] } });
    const b = role({ id: 'b' });
    const h = hashRoles(publishedRoles([a, b]));
    expect(h).toBe(
      createHash('sha256')
        .update(canonicalJson(publishedRoles([a, b])))
        .digest('hex'),
    );
    expect(
      hashRoles(
        publishedRoles([b, { ...a, permissions: { S: ['y'], T: ['x'] }, description: 'new', updatedAt: 'later' }]),
      ),
    ).toBe(h);
    expect(hashRoles(publishedRoles([a, { ...b, permissions: { T: ['x'] } }]))).not.toBe(h);
    expect(hashRoles(publishedRoles([a, { ...b, status: 'inactive' }]))).not.toBe(h);
  });
});

describe('planDeployment', () => {
  const MIN = 60_000;
  const base: PlanInput = {
    now: 10 * MIN,
    hash: 'h2',
    current: { hash: 'h1', version: 4 },
    publishedVersion: 4,
    lastDeployedAt: 5 * MIN,
    scheduledFor: null,
    cooldownMs: 3 * MIN,
  };
  test.each<[string, Partial<PlanInput>, ReturnType<typeof planDeployment>]>([
    ['same hash → unchanged', { hash: 'h1' }, { kind: 'unchanged' }],
    ['same hash inside the cool-down → unchanged', { hash: 'h1', lastDeployedAt: 9 * MIN }, { kind: 'unchanged' }],
    ['changed, cool-down over → publish next version', {}, { kind: 'publish', version: 5, restore: false }],
    [
      'changed, exactly at the end of the cool-down → publish',
      { lastDeployedAt: 7 * MIN },
      { kind: 'publish', version: 5, restore: false },
    ],
    ['changed, never deployed → publish', { lastDeployedAt: null }, { kind: 'publish', version: 5, restore: false }],
    [
      'changed inside the cool-down → wait and schedule',
      { lastDeployedAt: 9 * MIN },
      { kind: 'wait', nextAvailable: 12 * MIN, schedule: true },
    ],
    [
      'inside the cool-down, already scheduled for its end → wait only',
      { lastDeployedAt: 9 * MIN, scheduledFor: 12 * MIN },
      { kind: 'wait', nextAvailable: 12 * MIN, schedule: false },
    ],
    [
      'inside the cool-down, an older schedule → schedule again',
      { lastDeployedAt: 9 * MIN, scheduledFor: 8 * MIN },
      { kind: 'wait', nextAvailable: 12 * MIN, schedule: true },
    ],
    [
      'snapshot missing inside the cool-down → restore at once',
      { current: null, lastDeployedAt: 9 * MIN },
      { kind: 'publish', version: 5, restore: true },
    ],
    [
      'snapshot written by someone else with a higher version → above it',
      { current: { version: 9 } },
      { kind: 'publish', version: 10, restore: false },
    ],
    [
      'snapshot without a version → above ours',
      { current: { hash: 'x' }, publishedVersion: 2 },
      { kind: 'publish', version: 3, restore: false },
    ],
    [
      'cool-down 0 → always publish',
      { lastDeployedAt: 10 * MIN, cooldownMs: 0 },
      { kind: 'publish', version: 5, restore: false },
    ],
  ])('%s', (_name, over, expected) => {
    expect(planDeployment({ ...base, ...over })).toEqual(expected);
  });
});

test('cool-down from the environment: 180 s by default, a number of seconds otherwise', () => {
  expect(cooldownSecondsFrom({})).toBe(180);
  expect(cooldownSecondsFrom({ ROLE_DEPLOYMENT_COOLDOWN_SECONDS: '' })).toBe(180);
  expect(cooldownSecondsFrom({ ROLE_DEPLOYMENT_COOLDOWN_SECONDS: '2.5' })).toBe(2.5);
  expect(cooldownSecondsFrom({ ROLE_DEPLOYMENT_COOLDOWN_SECONDS: '0' })).toBe(0);
  expect(() => cooldownSecondsFrom({ ROLE_DEPLOYMENT_COOLDOWN_SECONDS: '-1' })).toThrow(
    /ROLE_DEPLOYMENT_COOLDOWN_SECONDS/,
  );
  expect(() => cooldownSecondsFrom({ ROLE_DEPLOYMENT_COOLDOWN_SECONDS: 'soon' })).toThrow(
    /ROLE_DEPLOYMENT_COOLDOWN_SECONDS/,
  );
});
