/**
 * The overlap rule across two api-only processes with no projector and no
 * MongoDB (test/support/api-pair.ts): listTiers answers nothing on either,
 * and still, of concurrent writes asking for intersecting ranges of one tier
 * type, exactly one passes and the others get 409 7003. The rule reads the
 * tier type's TierSchedule instance, never the listing.
 */
import { outcomes, startApiPair, type ApiPair } from '../support/api-pair';
import { PAYMENT_PERIODS, TIER_ENV, tierBody } from './support';
import { applySeed } from '../../classes/_platform/seed';

let pair: ApiPair;
let p: string;
let superUser: Record<string, string>;

beforeAll(async () => {
  pair = await startApiPair('ovl', TIER_ENV);
  p = `/${pair.projectId}/CALL/Tier`;
  superUser = { authorization: `Bearer ${pair.helper.token('program_management_user', 'pm1', ['super'])}` };
  const tierTypes = ['tt-race', 'tt-move', 'tt-other'].map((id) => ({ id, name: id, tierGroup: 'base' }));
  const seeded = await applySeed({ paymentPeriods: PAYMENT_PERIODS, tierTypes }, (classId, method, instanceId, body) =>
    pair.helper.rt.call(classId, method, instanceId, body),
  );
  expect(seeded.filter((o) => o.result === 'failed')).toEqual([]);
}, 120_000);
afterAll(() => pair?.stop());

const create = (on: 0 | 1, body: Record<string, unknown>) => pair.post(on, `${p}/createTier`, body, superUser);

test('concurrent createTier of intersecting ranges through two processes: one 201, every other 409 7003', async () => {
  // every range holds 2030-06-15: any two intersect
  const ranges = [
    ['2030-01-01', '2031-01-01'],
    ['2030-06-01', '2030-07-01'],
    ['2030-06-10', '2031-06-01'],
    ['2029-06-01', '2030-06-16'],
    ['2030-03-01', '2032-01-01'],
    ['2030-06-14', '2030-06-16'],
  ];
  const answers = await Promise.all(
    ranges.map(([startDate, endDate], i) => create((i % 2) as 0 | 1, tierBody('tt-race', { startDate, endDate }))),
  );
  expect(outcomes(answers)).toEqual([[201, null], ...Array.from({ length: ranges.length - 1 }, () => [409, 7003])]);
  const winner = answers.find((r) => r.status === 201)!.body.tier;
  for (const refused of answers.filter((r) => r.status === 409)) {
    expect(refused.body).toMatchObject({
      classId: 'Tier',
      details: { tiers: [{ id: winner.id, status: 'pending', startDate: winner.startDate, endDate: winner.endDate }] },
    });
  }

  // no listing was there to read: neither process lists any tier
  for (const on of [0, 1] as const) expect((await pair.get(on, `${p}/listTiers`, superUser)).body.totalCount).toBe(0);

  // the winner holds its range on both processes; a range just after it, and another tier type, are free
  expect((await create(1, tierBody('tt-race', { startDate: '2030-06-15', endDate: '2030-06-16' }))).body.code).toBe(
    7003,
  );
  const after = await create(0, tierBody('tt-race', { startDate: winner.endDate, endDate: '2035-01-01' }));
  expect(after.status).toBe(201);
  expect((await create(1, tierBody('tt-other', { startDate: '2030-06-01', endDate: '2030-07-01' }))).status).toBe(201);
}, 120_000);

test('concurrent updateTier moving two live tiers into one free range through two processes: one 200, the other 409 7003', async () => {
  // created by the system actor, so approved at once: an active tier takes changes (one waiting for approval does not)
  const tiers = [
    { id: 'move-a', name: 'A', tierType: { id: 'tt-move' }, fee: 1, startDate: '2030-01-01', endDate: '2030-02-01' },
    { id: 'move-b', name: 'B', tierType: { id: 'tt-move' }, fee: 1, startDate: '2030-02-01', endDate: '2030-03-01' },
  ];
  const seeded = await applySeed({ tiers }, (classId, method, instanceId, body) =>
    pair.helper.rt.call(classId, method, instanceId, body),
  );
  expect(seeded.filter((o) => o.result === 'failed')).toEqual([]);
  const [a, b] = await Promise.all(tiers.map((x, i) => pair.get(i as 0 | 1, `${p}/getTier/${x.id}`, superUser)));
  expect([a!.body.tier.status, b!.body.tier.status]).toEqual(['active', 'active']);
  const into = { startDate: '2031-01-01', endDate: '2031-06-01' };
  const moves = await Promise.all([
    pair.post(0, `${p}/updateTier/${a.body.tier.id}`, into, superUser),
    pair.post(1, `${p}/updateTier/${b.body.tier.id}`, { ...into, endDate: '2031-03-01' }, superUser),
  ]);
  expect(outcomes(moves)).toEqual([
    [200, null],
    [409, 7003],
  ]);
  // the loser kept its dates, and still holds them: the winner's old range is free again
  const [moved, kept] = moves[0]!.status === 200 ? [a, b] : [b, a];
  const keptNow = await pair.get(0, `${p}/getTier/${kept.body.tier.id}`, superUser);
  expect(keptNow.body.tier).toMatchObject({ startDate: kept.body.tier.startDate, endDate: kept.body.tier.endDate });
  expect(
    (await create(1, tierBody('tt-move', { startDate: kept.body.tier.startDate, endDate: kept.body.tier.endDate })))
      .body.code,
  ).toBe(7003);
  expect(
    (await create(0, tierBody('tt-move', { startDate: moved.body.tier.startDate, endDate: moved.body.tier.endDate })))
      .status,
  ).toBe(201);
}, 120_000);
