/**
 * The personal-data contract's shared rules: erasing the string leaves of a value, and what the subject's own
 * class (a user class) does alike for its export and erasure.
 */
import {
  ERASED,
  eraseStringLeaves,
  inPages,
  ownSubjectInstanceId,
  ownSubjectRecord,
  stateAndListingErased,
  stateAndListingRecords,
  subjectTraceValues,
  totalErasure,
  subjectOwnerClass,
} from '../../classes/_platform/personal-data';
import { ActorError, UNKNOWN_INSTANCE_CODE } from '../../runtime';

describe('eraseStringLeaves', () => {
  test('string leaves become ERASED; keys, structure, numbers, booleans and nulls stay; keys stay own keys', () => {
    expect(eraseStringLeaves('Kim')).toBe(ERASED);
    expect(eraseStringLeaves(42)).toBe(42);
    expect(eraseStringLeaves(null)).toBeNull();
    expect(eraseStringLeaves({ a: 'x', b: [1, 'y', { c: 'z', d: null }], e: false })).toEqual({
      a: ERASED,
      b: [1, ERASED, { c: ERASED, d: null }],
      e: false,
    });
    const proto = JSON.parse('{"__proto__": {"polluted": "yes"}}') as Record<string, unknown>;
    const out = eraseStringLeaves(proto) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
  });

  test('deep values are walked without recursion', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 50_000; i++) deep = { d: deep };
    let cur = eraseStringLeaves(deep) as { d: unknown };
    for (let i = 0; i < 49_999; i++) cur = cur.d as { d: unknown };
    expect(cur.d).toBe(ERASED);
  });

  test('only the leaves `match` picks', () => {
    expect(eraseStringLeaves({ a: 'Kim Lee', b: ['Kim Lee', 'other'] }, (s) => s === 'Kim Lee')).toEqual({
      a: ERASED,
      b: [ERASED, 'other'],
    });
  });
});

describe('ownSubjectInstanceId', () => {
  test('the id of a subject of the type, as an instance id; none for another type', () => {
    expect(ownSubjectInstanceId({ type: 'partner_user', id: 'pu-1' }, 'partner_user')).toBe('pu-1');
    expect(ownSubjectInstanceId({ type: 'member', id: 'pu-1' }, 'partner_user')).toBeUndefined();
    expect(
      ownSubjectInstanceId({ type: 'program_management_user', id: 'u_1.a@b+c=d' }, 'program_management_user'),
    ).toBe('u_1.a@b+c=d');
  });

  test('none for an id that is no instance id: a lookup, a path, blank, too long', () => {
    for (const id of ['email!ann@example.com', 'a/b', 'a b', '', 'x'.repeat(201)])
      expect([id, ownSubjectInstanceId({ type: 'member', id }, 'member')]).toEqual([id, undefined]);
    expect(ownSubjectInstanceId({ type: 'member', id: 'x'.repeat(200) }, 'member')).toBe('x'.repeat(200));
  });
});

describe('ownSubjectRecord', () => {
  const notFound = () => new ActorError(404, 4022, 'no such user');

  test('the answer of the reach as it is', async () => {
    await expect(ownSubjectRecord(Promise.resolve({ user: 1 }), notFound)).resolves.toEqual({ user: 1 });
  });

  test("an absent record (the callee's 404, no instance) becomes the class's own not-found error", async () => {
    for (const absent of [
      new ActorError(404, 17110, 'none'),
      new ActorError(404, UNKNOWN_INSTANCE_CODE, 'no instance'),
    ]) {
      await expect(ownSubjectRecord(Promise.reject(absent), notFound)).rejects.toMatchObject({
        status: 404,
        code: 4022,
      });
    }
  });

  test('any other failure is thrown as it is', async () => {
    const refused = new ActorError(403, 1023, 'another company');
    await expect(ownSubjectRecord(Promise.reject(refused), notFound)).rejects.toBe(refused);
    const broken = new Error('redis down');
    await expect(ownSubjectRecord(Promise.reject(broken), notFound)).rejects.toBe(broken);
  });
});

describe('subjectTraceValues', () => {
  test('each value once, blank ones, non-strings and ERASED left out, in order', () => {
    expect(subjectTraceValues(['Ann Lee', 'ann@example.com', 'Ann Lee', ' ', '', null, undefined, 7, ERASED])).toEqual([
      'Ann Lee',
      'ann@example.com',
    ]);
    expect(subjectTraceValues([ERASED, ERASED])).toEqual([]);
  });
});

describe('stateAndListingRecords', () => {
  const kinds = { classId: 'PartnerUser', state: 'user', listing: 'partnerUserDocument' };

  test('the state as a copy, and the listing document without the store’s own fields', () => {
    const state = { user: { id: 'pu-1', fullName: 'Pat' } };
    const records = stateAndListingRecords(kinds, 'pu-1', state, { _id: 'pu-1', id: 'pu-1', fullName: 'Pat' });
    expect(records).toEqual([
      { store: 'state', classId: 'PartnerUser', instanceId: 'pu-1', kind: 'user', data: state },
      {
        store: 'listing',
        classId: 'PartnerUser',
        instanceId: 'pu-1',
        kind: 'partnerUserDocument',
        data: { id: 'pu-1', fullName: 'Pat' },
      },
    ]);
    expect(records[0].data).not.toBe(state);
  });

  test('no listing record before the document is streamed', () => {
    expect(stateAndListingRecords(kinds, 'pu-1', {}, null).map((r) => r.store)).toEqual(['state']);
  });
});

describe('stateAndListingErased', () => {
  test('the state and its listed document; nothing when erased before', () => {
    expect(stateAndListingErased(true, true)).toBe(2);
    expect(stateAndListingErased(true, false)).toBe(1);
    expect(stateAndListingErased(false, true)).toBe(0);
    expect(stateAndListingErased(false, false)).toBe(0);
  });
});

describe('inPages', () => {
  test('every item, a page at a time, never more in flight; the answers in the order of the items', async () => {
    let running = 0;
    let most = 0;
    const pages: number[][] = [];
    const items = Array.from({ length: 7 }, (_, i) => i);
    const answers = await inPages(items, 3, async (i) => {
      running++;
      most = Math.max(most, running);
      if (i % 3 === 0) pages.push([]);
      pages[pages.length - 1].push(i);
      // later items finish first: the order of the answers is still the items'
      await new Promise((resolve) => setTimeout(resolve, 10 - i));
      running--;
      return i * 10;
    });
    expect(answers).toEqual([0, 10, 20, 30, 40, 50, 60]);
    expect(most).toBe(3);
    expect(pages).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
  });

  test('nothing to do: no call, no answer', async () => {
    const each = jest.fn(async () => 1);
    expect(await inPages([], 5, each)).toEqual([]);
    expect(each).not.toHaveBeenCalled();
  });

  test('a failure fails the whole, and no later page starts', async () => {
    const seen: number[] = [];
    const each = async (i: number) => {
      seen.push(i);
      if (i === 1) throw new Error('unreadable');
      return i;
    };
    await expect(inPages([0, 1, 2, 3], 2, each)).rejects.toThrow('unreadable');
    expect(seen).toEqual([0, 1]);
  });
});

describe('totalErasure', () => {
  test('the records and files of every part added up; zeros for none', () => {
    expect(
      totalErasure([
        { records: 1, files: 0 },
        { records: 2, files: 1 },
        { records: 0, files: 0 },
      ]),
    ).toEqual({ records: 3, files: 1 });
    expect(totalErasure([])).toEqual({ records: 0, files: 0 });
  });
});

describe('subjectOwnerClass', () => {
  test.each([
    ['member', 'Member'],
    ['program_management_user', 'ProgramManagementUser'],
    ['partner_user', 'PartnerUser'],
  ] as const)('%s → %s', (type, owner) => expect(subjectOwnerClass(type)).toBe(owner));
});
