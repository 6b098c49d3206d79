/**
 * A family change writes the other member (the dependant) as a committed
 * effect of the primary member's change: nothing of it happens
 * when the primary member's handler fails after asking for it, and a
 * redelivered effect changes the dependant once only.
 *
 * The failure after the family write is a real one: the primary member's own
 * audit entry names the caller, and LogManager takes actor ids of at most
 * 200 characters (schemas/LogManager/record.json; the platform keeps ids
 * whole, classes/_platform/actor.ts), so a caller with a longer id is refused
 * when the primary member asks for its audit entry, which comes after the
 * family write. The dependant's own audit entry names the
 * class, so the dependant's handler alone would succeed.
 */
import Redis from 'ioredis';
import type { Effect } from '../../runtime/actor/effects';
import type { ActorError } from '../../runtime/errors';
import { seedRoles, waitFor, type TestRuntime } from '../support/harness';
import { redisUrl } from '../support/redis';
import { createMember, memberState, seedProgram, startMemberRuntime } from './support';

let t: TestRuntime;
let pm: Record<string, string>;
/** a back-office user whose id is longer than an audit entry takes */
let longId: Record<string, string>;
let p: string;

beforeAll(async () => {
  t = await startMemberRuntime();
  await seedProgram(t);
  await seedRoles(t, []); // the built-in super role
  const bearer = (claims: Record<string, unknown>) => ({
    authorization: `Bearer ${t.rt.tokens.sign({ identity: 'program_management_user', roles: ['super'], ...claims, sub: String(claims.sub) })}`,
  });
  pm = bearer({ sub: 'pm-fx' });
  longId = bearer({ sub: 'p'.repeat(201) });
  p = `/${t.projectId}/CALL/Member`;
});
afterAll(() => t.stop());

/** the members whose profile names `primaryId` as their primary member */
async function dependantsOf(primaryId: string): Promise<string[]> {
  const found: string[] = [];
  for await (const ids of t.rt.store.instanceIds('Member')) {
    for (const id of ids) {
      const s = await t.rt.store.read('Member', id);
      if (s && JSON.parse(s.stateJson).private?.profile?.primaryMemberId === primaryId) found.push(id);
    }
  }
  return found;
}

/** audit entries about `entityId` */
async function logCount(entityId: string): Promise<number> {
  let n = 0;
  for await (const ids of t.rt.store.instanceIds('LogManager')) {
    for (const id of ids) {
      const s = await t.rt.store.read('LogManager', id);
      if (s && JSON.parse(s.stateJson).private?.log?.entityId === entityId) n++;
    }
  }
  return n;
}

async function addDependant(primaryId: string, name = 'Kid'): Promise<string> {
  const r = await t.post(
    `${p}/addMemberFamilyMember/${primaryId}`,
    { name, surname: 'Lee', memberSubType: 'mst-child' },
    pm,
  );
  expect(r.status).toBe(200);
  return r.body.familyMember.id as string;
}

describe('a family change whose handler fails after the family write leaves the other member unchanged', () => {
  test('addMemberFamilyMember: no dependant is created', async () => {
    const m = await createMember(t);
    const before = await memberState(t, m.id);
    const r = await t.post(
      `${p}/addMemberFamilyMember/${m.id}`,
      { name: 'Kid', surname: 'Lee', memberSubType: 'mst-child' },
      longId,
    );
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('actor');
    expect(await dependantsOf(m.id)).toEqual([]);
    const after = await memberState(t, m.id);
    expect([after.version, after.state.private.profile.familyMembers]).toEqual([before.version, []]);
    expect(await t.rt.redis.xlen(t.rt.store.keys.bucket(0).effects)).toBe(0);
    // the same change by a caller the audit log takes goes through
    await addDependant(m.id);
    expect(await dependantsOf(m.id)).toHaveLength(1);
  });

  test('updateMemberFamilyMember: the dependant keeps its fields', async () => {
    const m = await createMember(t);
    const dep = await addDependant(m.id);
    const before = await memberState(t, dep);
    const r = await t.post(
      `${p}/updateMemberFamilyMember/${m.id}`,
      { familyMemberId: dep, name: 'Renamed', phone: '+123' },
      longId,
    );
    expect(r.status).toBe(400);
    const after = await memberState(t, dep);
    expect(after.version).toBe(before.version);
    expect(after.state.private.profile).toMatchObject({ name: 'Kid', phone: null });
  });

  test('removeMemberFamilyMember: the dependant stays in its family, not inactive', async () => {
    const m = await createMember(t);
    const dep = await addDependant(m.id);
    const before = await memberState(t, dep);
    const r = await t.post(`${p}/removeMemberFamilyMember/${m.id}`, { familyMemberId: dep }, longId);
    expect(r.status).toBe(400);
    const after = await memberState(t, dep);
    expect(after.version).toBe(before.version);
    expect(after.state.private.profile.status).toBe(before.state.private.profile.status);
    expect((await memberState(t, m.id)).state.private.profile.familyMembers.map((f: { id: string }) => f.id)).toEqual([
      dep,
    ]);
  });
});

let readers = 0;

/**
 * The effects committed while `run` runs, as the outbox holds them: a reader
 * of its own blocks on the effect stream before `run` starts (the entries are
 * deleted once applied, before `run` returns).
 */
async function committedEffects(run: () => Promise<unknown>, until: (effects: Effect[]) => boolean): Promise<Effect[]> {
  readers += 1;
  const name = `family-effects-reader-${readers}`;
  const reader = new Redis(redisUrl(), { connectionName: name, maxRetriesPerRequest: 1 });
  const key = t.rt.store.keys.bucket(0).effects;
  const seen: Effect[] = [];
  try {
    let last = '$';
    let reading = reader.xread('COUNT', 1000, 'BLOCK', 20_000, 'STREAMS', key, last);
    await waitFor(
      async () =>
        String(await t.rt.redis.client('LIST'))
          .split('\n')
          .some((l) => l.includes(`name=${name} `) && l.includes('cmd=xread')),
      {
        what: 'the reader blocked on the effect stream',
      },
    );
    await run();
    for (;;) {
      const got = await reading;
      if (!got) throw new Error(`no effect entry came; seen ${JSON.stringify(seen)}`);
      for (const [, entries] of got) {
        for (const [id, fields] of entries) {
          last = id;
          seen.push(...(JSON.parse(fields[fields.indexOf('f') + 1]!) as Effect[]));
        }
      }
      if (until(seen)) return seen;
      reading = reader.xread('COUNT', 1000, 'BLOCK', 5_000, 'STREAMS', key, last);
    }
  } finally {
    reader.disconnect();
  }
}

describe('the family write is applied once', () => {
  /**
   * Delivers `effect` again: as the sweeper does for an entry whose deletion
   * was lost (it finds the effect's marker and calls nothing), then straight
   * through the dispatcher, where it is refused: `code` is the runtime's
   * "applied before" (1025), or the handler's own refusal when it refuses
   * before committing (a createFamilyMember for an id in use).
   */
  const redeliver = async (effect: Effect, code = 1025) => {
    await t.rt.redis.xadd(t.rt.store.keys.bucket(0).effects, '*', 'f', JSON.stringify([effect]));
    await t.rt.dispatcher.effects.sweep(0);
    expect(await t.rt.redis.xlen(t.rt.store.keys.bucket(0).effects)).toBe(0);
    const dead = await t.rt.redis.xrange(t.rt.store.keys.bucket(0).effectsDead, '-', '+');
    expect(dead.filter(([, fields]) => fields.join(' ').includes(effect.id))).toEqual([]);
    const again = await t.rt.dispatcher
      .call({
        classId: effect.classId,
        method: effect.method,
        instanceId: effect.instanceId,
        body: effect.body,
        identity: effect.identity,
        origin: 'effect',
        delivery: { id: effect.id },
      })
      .then(
        () => null,
        (e: ActorError) => e,
      );
    expect(again?.code).toBe(code);
  };

  test('addMemberFamilyMember: the dependant is created by one effect, and its redelivery changes nothing', async () => {
    const m = await createMember(t);
    let answer: Record<string, any> = {};
    const effects = await committedEffects(
      async () => {
        answer = await t.post(
          `${p}/addMemberFamilyMember/${m.id}`,
          { name: 'Kid', surname: 'Lee', memberSubType: 'mst-child' },
          pm,
        );
      },
      (list) => list.some((e) => e.method === 'createFamilyMember'),
    );
    expect(answer.status).toBe(200);
    const created = effects.filter((e) => e.method === 'createFamilyMember');
    expect(created).toHaveLength(1);
    const dep = answer.body.familyMember.id as string;
    // the answer names the dependant the effect creates, and the dependant exists when the caller is answered
    expect(created[0]).toMatchObject({
      classId: 'Member',
      instanceId: dep,
      identity: { type: 'class', classId: 'Member', instanceId: m.id },
    });
    const stored = await memberState(t, dep);
    expect(stored.state.private.profile).toEqual(answer.body.familyMember);
    const logs = await logCount(dep);
    expect(logs).toBe(1);

    await redeliver(created[0]!, 5000);
    expect((await memberState(t, dep)).version).toBe(stored.version);
    expect(await logCount(dep)).toBe(logs);
    expect(await dependantsOf(m.id)).toEqual([dep]);
  });

  test('updateMemberFamilyMember and removeMemberFamilyMember: a redelivered effect changes nothing', async () => {
    const m = await createMember(t);
    const dep = await addDependant(m.id);
    let answer: Record<string, any> = {};
    const [update] = (
      await committedEffects(
        async () => {
          answer = await t.post(`${p}/updateMemberFamilyMember/${m.id}`, { familyMemberId: dep, name: 'Junior' }, pm);
        },
        (list) => list.some((e) => e.method === 'applyFamilyMemberUpdate'),
      )
    ).filter((e) => e.method === 'applyFamilyMemberUpdate');
    expect([answer.status, answer.body.updatedFields]).toEqual([200, ['name']]);
    const updated = await memberState(t, dep);
    expect(updated.state.private.profile).toEqual(answer.body.familyMember);
    await redeliver(update!);
    expect((await memberState(t, dep)).version).toBe(updated.version);

    const [detach] = (
      await committedEffects(
        async () => {
          answer = await t.post(`${p}/removeMemberFamilyMember/${m.id}`, { familyMemberId: dep }, pm);
        },
        (list) => list.some((e) => e.method === 'detachFamilyMember'),
      )
    ).filter((e) => e.method === 'detachFamilyMember');
    expect(answer.status).toBe(200);
    const detached = await memberState(t, dep);
    expect(detached.state.private.profile).toMatchObject({ status: 'inactive', statusReason: 'removed_from_family' });
    await redeliver(detach!);
    expect((await memberState(t, dep)).version).toBe(detached.version);
  });
});

describe('afterwards (the tests above ran first)', () => {
  test('no effect of these family changes was refused by its target (dead-lettered)', async () => {
    expect(await t.rt.redis.xrange(t.rt.store.keys.bucket(0).effectsDead, '-', '+')).toEqual([]);
  });
});
