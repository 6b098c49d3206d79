/** classes/Tier/settings-client.ts: how Setting's answers map to Tier's (fake ctx.call). */
import { ActorError, type Ctx } from '../../runtime';
import { unknownInstanceError } from '../../runtime/errors';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { getPaymentPeriods, getTierType, SETTING_ID_PATTERN } from '../../classes/Tier/settings-client';
import { projectRoot } from '../../runtime/config';

function ctxAnswering(answer: () => unknown): { ctx: Ctx; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const ctx = {
    call: async (...args: unknown[]) => {
      calls.push(args);
      return { status: 200, body: answer(), headers: {} };
    },
  } as unknown as Ctx;
  return { ctx, calls };
}

const thrower = (err: Error) => () => {
  throw err;
};

describe('getTierType', () => {
  test('asks Setting.getTierType on the singleton and answers its record (the answer typed from Setting.getTierType)', async () => {
    const record = { id: 'tt', name: 'T', tierGroup: 'upgrade', status: 'active' };
    const { ctx, calls } = ctxAnswering(() => record);
    expect(await getTierType(ctx, 'tt')).toEqual(record);
    expect(calls).toEqual([['Setting', 'getTierType', 'default', { id: 'tt' }]]);
  });

  test.each([
    ['a 404 of Setting', new ActorError(404, 10004, 'no such tier type', { classId: 'Setting' })],
    ['no Setting instance yet', unknownInstanceError('p', 'Setting', 'default')],
  ])('%s is "no such tier type"', async (_what, err) => {
    expect(await getTierType(ctxAnswering(thrower(err)).ctx, 'tt')).toBeNull();
  });

  test.each([
    ['Setting not loaded (unknown class)', new ActorError(404, 1004, 'unknown class')],
    ['an unknown method', new ActorError(404, 1005, 'unknown method')],
    ['a Setting failure', new ActorError(500, 10000, 'boom')],
    ['an unexpected error', new Error('socket closed')],
  ])('%s is 502 7016', async (_what, err) => {
    await expect(getTierType(ctxAnswering(thrower(err)).ctx, 'tt')).rejects.toMatchObject({
      status: 502,
      code: 7016,
      classId: 'Tier',
    });
  });

  test('an id Setting cannot hold is "no such tier type", without asking Setting', async () => {
    for (const id of ['no such type', 'type/1', 'x'.repeat(101)]) {
      const { ctx, calls } = ctxAnswering(() => ({ id, tierGroup: 'base', status: 'active' }));
      expect(await getTierType(ctx, id)).toBeNull();
      expect(calls).toEqual([]);
    }
  });

  test("SETTING_ID_PATTERN is the id pattern of Setting's createTierType and getTierType schemas", () => {
    for (const file of ['createTierType.json', 'byId.json']) {
      const schema = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'schemas/Setting', file), 'utf8'));
      expect(schema.properties.id.pattern).toBe(SETTING_ID_PATTERN.source);
    }
  });

  test('a record without a valid tierGroup is 502 7016', async () => {
    await expect(
      getTierType(ctxAnswering(() => ({ id: 'tt', tierGroup: 'gold', status: 'active' })).ctx, 'tt'),
    ).rejects.toMatchObject({ code: 7016 });
  });
});

describe('getPaymentPeriods', () => {
  test('answers the configured periods; none when Setting has no instance yet', async () => {
    const { ctx, calls } = ctxAnswering(() => ({
      paymentPeriods: [{ key: 'monthly', label: 'Monthly' }, { nope: 1 }],
    }));
    expect(await getPaymentPeriods(ctx)).toEqual([{ key: 'monthly', label: 'Monthly' }]);
    expect(calls).toEqual([['Setting', 'getPaymentPeriods', 'default', {}]]);
    expect(await getPaymentPeriods(ctxAnswering(thrower(unknownInstanceError('p', 'Setting', 'default'))).ctx)).toEqual(
      [],
    );
    await expect(getPaymentPeriods(ctxAnswering(thrower(new ActorError(503, 1012, 'busy'))).ctx)).rejects.toMatchObject(
      { code: 7016 },
    );
  });
});
