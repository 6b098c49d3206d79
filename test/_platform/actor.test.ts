import { actorFromIdentity, isPrivilegedActor } from '../../classes/_platform/actor';

test('identities map to spec actors', () => {
  expect(actorFromIdentity({ type: 'program_management_user', userId: 'u1', roles: ['r'] })).toEqual({
    id: 'u1',
    type: 'program_management_user',
    roles: ['r'],
  });
  expect(actorFromIdentity({ type: 'program_management_user', userId: 'd', claims: { developer: true } }).type).toBe(
    'developer',
  );
  expect(actorFromIdentity({ type: 'enduser', userId: 'm1' })).toEqual({ id: 'm1', type: 'member' });
  expect(actorFromIdentity({ type: 'integration_user', userId: 'env-1' })).toMatchObject({
    type: 'system',
    name: 'integration:env-1',
  });
  expect(actorFromIdentity({ type: 'class', classId: 'Member', instanceId: 'x' })).toMatchObject({
    type: 'system',
    name: 'class:Member',
  });
  expect(actorFromIdentity({ type: 'system' })).toEqual({ id: 'system', type: 'system', name: 'system' });
});

test('only developers and the system actor are privileged', () => {
  expect(isPrivilegedActor(actorFromIdentity({ type: 'system' }))).toBe(true);
  expect(
    isPrivilegedActor(actorFromIdentity({ type: 'program_management_user', userId: 'd', claims: { developer: true } })),
  ).toBe(true);
  expect(isPrivilegedActor(actorFromIdentity({ type: 'integration_user', userId: 'k' }))).toBe(false);
  expect(isPrivilegedActor(actorFromIdentity({ type: 'class', classId: 'A' }))).toBe(false);
  expect(isPrivilegedActor(actorFromIdentity({ type: 'program_management_user', userId: 'u' }))).toBe(false);
});

test("an actor's display name and roles are kept within what audit entries and approvals store; its id is kept whole", () => {
  const roles = Array.from({ length: 150 }, (_, i) => `role-${i}`).concat('x'.repeat(201));
  const actor = actorFromIdentity({
    type: 'program_management_user',
    userId: 'u'.repeat(250),
    roles,
    claims: { name: 'N'.repeat(300) },
  });
  expect(actor.name).toHaveLength(200);
  expect(actor.roles).toHaveLength(100);
  expect(actor.roles).not.toContain('x'.repeat(201));
  expect(actor.id).toHaveLength(250);
});

test('an anonymous caller is no privileged actor: a public operation that runs the workflow is not approved at once for it', () => {
  const actor = actorFromIdentity({ type: 'anonymous' });
  expect(actor).toEqual({ id: 'anonymous', type: 'system', name: 'anonymous' });
  expect(isPrivilegedActor(actor)).toBe(false);
});

test('a system call naming its run (an import) is that actor, still privileged; the others keep their unprivileged names', () => {
  const run = actorFromIdentity({ type: 'system', userId: 'import', claims: { name: 'import members members.csv' } });
  expect(run).toEqual({ id: 'import', type: 'system', name: 'system: import members members.csv' });
  expect(isPrivilegedActor(run)).toBe(true);
  expect(actorFromIdentity({ type: 'system', claims: { name: '' } })).toEqual({
    id: 'system',
    type: 'system',
    name: 'system',
  });
  expect(isPrivilegedActor({ id: 'auto_approve', type: 'system' })).toBe(false);
  // only the names the system identity is given count: any other system actor's name does not
  expect(isPrivilegedActor({ id: 'import', type: 'system', name: 'import members members.csv' })).toBe(false);
  expect(isPrivilegedActor({ id: 'x', type: 'system', name: 'systemic' })).toBe(false);
  expect(isPrivilegedActor(actorFromIdentity({ type: 'integration_user', userId: 'import' }))).toBe(false);
  expect(isPrivilegedActor(actorFromIdentity({ type: 'class', classId: 'Member', instanceId: 'import' }))).toBe(false);
  expect(isPrivilegedActor(actorFromIdentity({ type: 'anonymous', userId: 'import' }))).toBe(false);
});
