/** Setting's pure rules: records, uniqueness, status moves, look-ups, payment periods, whole state, lists, projection. */
import { ActorError } from '../../runtime';
import type { Actor } from '../../classes/_platform/actor';
import { invalidSettingQuery, pageOf, settingListQuery } from '../../classes/Setting/listing-rules';
import { schemaRefusal } from './support';
import {
  activeConfig,
  applyValueUpdate,
  asEntity,
  buildValue,
  checkPaymentPeriods,
  checkStatusMove,
  checkValue,
  cleanMapping,
  defaultGroups,
  DEFAULT_PAYMENT_PERIODS,
  findMemberSubTypeByRelation,
  findMemberTypeBySystemIdentifier,
  fromEntity,
  normalise,
  settingDocuments,
  stateProblems,
} from '../../classes/Setting/rules';
import type {
  ListGroup,
  MemberSubTypeValue,
  MemberTypeValue,
  SettingGroups,
  SettingStatus,
  SettingValue,
} from '../../classes/Setting/types';

const actor: Actor = { id: 'u1', type: 'program_management_user', roles: ['super'] };
const NOW = '2024-05-01T00:00:00.000Z';
const LATER = '2024-05-02T00:00:00.000Z';

function refusal(fn: () => unknown): ActorError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ActorError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

function groupsWith(values: Partial<Record<ListGroup, SettingValue[]>>): SettingGroups {
  const g = defaultGroups();
  for (const [group, list] of Object.entries(values) as [ListGroup, SettingValue[]][])
    (g[group].value as SettingValue[]).push(...list);
  return g;
}

const memberType = (
  id: string,
  name: string,
  systemIdentifier: string,
  status: SettingStatus = 'active',
): MemberTypeValue => ({
  id,
  name,
  systemIdentifier,
  status,
  createdBy: actor,
  createdAt: NOW,
  updatedAt: NOW,
});
const subType = (
  id: string,
  name: string,
  hrmsMapping: string[],
  status: SettingStatus = 'active',
  memberTypeId?: string,
): MemberSubTypeValue => ({
  id,
  name,
  hrmsMapping,
  status,
  createdBy: actor,
  createdAt: NOW,
  updatedAt: NOW,
  ...(memberTypeId ? { memberTypeId } : {}),
});

describe('new records', () => {
  test.each([
    [
      'companyGroups',
      { name: ' Internal  ', type: 'internal' },
      { name: 'Internal', type: 'internal', status: 'pending' },
    ],
    [
      'memberTypes',
      { name: 'Regular', systemIdentifier: ' Permanent ' },
      { name: 'Regular', systemIdentifier: 'Permanent', status: 'pending' },
    ],
    ['memberSubTypes', { name: 'Spouse' }, { name: 'Spouse', hrmsMapping: [], status: 'pending' }],
    ['tierTypes', { name: 'Base', tierGroup: 'base' }, { name: 'Base', tierGroup: 'base', status: 'active' }],
  ] as const)('%s: trimmed fields, the spec 2.4 initial status, actor and times', (group, input, expected) => {
    const v = buildValue(group, input, actor, NOW, 'id-1');
    expect(v).toEqual({ id: 'id-1', createdBy: actor, createdAt: NOW, updatedAt: NOW, ...expected });
  });

  test('hrmsMapping drops blanks and case-insensitive duplicates, keeping the first spelling', () => {
    expect(cleanMapping([' Spouse', 'spouse', '', 'WIFE', ' ', 'Husband'])).toEqual(['Spouse', 'WIFE', 'Husband']);
    expect(
      buildValue('memberSubTypes', { name: 'x', hrmsMapping: ['A', 'a'], memberTypeId: 'mt' }, actor, NOW, 'i'),
    ).toMatchObject({ hrmsMapping: ['A'], memberTypeId: 'mt' });
  });
});

describe('updates', () => {
  const base = buildValue(
    'memberSubTypes',
    { name: 'Child', description: 'kids', hrmsMapping: ['child'], memberTypeId: 'mt1' },
    actor,
    NOW,
    's1',
  );

  test('given fields change, updatedAt moves, status and createdAt stay', () => {
    const next = applyValueUpdate(
      'memberSubTypes',
      base,
      { id: 's1', name: 'Children', hrmsMapping: ['son', 'daughter'] },
      LATER,
    );
    expect(next).toEqual({ ...base, name: 'Children', hrmsMapping: ['son', 'daughter'], updatedAt: LATER });
  });

  test('null removes the optional description and memberTypeId', () => {
    const next = applyValueUpdate('memberSubTypes', base, { id: 's1', description: null, memberTypeId: null }, LATER);
    expect(next.description).toBeUndefined();
    expect((next as MemberSubTypeValue).memberTypeId).toBeUndefined();
    expect('memberTypeId' in next).toBe(false);
  });

  test('a tier type keeps its tier group (tiers copy it); an update naming nothing is refused (10036)', () => {
    const tier = buildValue('tierTypes', { name: 'Base', tierGroup: 'base' }, actor, NOW, 't1');
    const err = refusal(() => applyValueUpdate('tierTypes', tier, { id: 't1', tierGroup: 'upgrade' }, LATER));
    expect([err.status, err.code]).toEqual([400, 10036]);
    expect(applyValueUpdate('tierTypes', tier, { id: 't1', name: 'Basic', tierGroup: 'upgrade' }, LATER)).toMatchObject(
      { name: 'Basic', tierGroup: 'base' },
    );
  });
});

describe('uniqueness within a group', () => {
  const groups = groupsWith({
    memberTypes: [memberType('mt1', 'Regular', 'Permanent'), memberType('mt2', 'Club', 'Temporary', 'inactive')],
    memberSubTypes: [subType('s1', 'Spouse', ['Spouse', 'Wife'])],
  });

  test.each([
    ['the same id', 'memberTypes', memberType('mt1', 'Other', 'Other'), true, 409, 10022],
    [
      'the same name in another case and spacing',
      'memberTypes',
      memberType('mt3', '  regular ', 'Other'),
      true,
      409,
      10021,
    ],
    ['the name of an inactive record', 'memberTypes', memberType('mt3', 'CLUB', 'Other'), true, 409, 10021],
    [
      'the same systemIdentifier in another case',
      'memberTypes',
      memberType('mt3', 'Premium', 'permanent'),
      true,
      409,
      10029,
    ],
    [
      'an HR relationship already mapped',
      'memberSubTypes',
      subType('s2', 'Partner', ['Husband', 'WIFE']),
      true,
      409,
      10030,
    ],
    [
      'an unknown member type',
      'memberSubTypes',
      subType('s2', 'Child', ['child'], 'pending', 'nope'),
      true,
      400,
      10031,
    ],
  ] as const)('refuses %s', (_what, group, candidate, isNew, status, code) => {
    const err = refusal(() => checkValue(groups, group, candidate, { isNew }));
    expect([err.status, err.code]).toEqual([status, code]);
  });

  test('a record may keep its own name and identifiers; other groups do not count', () => {
    expect(() =>
      checkValue(groups, 'memberTypes', { ...memberType('mt1', 'REGULAR', 'PERMANENT') }, { isNew: false }),
    ).not.toThrow();
    expect(() =>
      checkValue(groups, 'companyGroups', { ...memberType('g1', 'Regular', 'x'), type: 'internal' } as SettingValue, {
        isNew: true,
      }),
    ).not.toThrow();
    expect(() =>
      checkValue(groups, 'memberSubTypes', subType('s2', 'Child', ['child'], 'pending', 'mt2'), { isNew: true }),
    ).not.toThrow();
  });
});

describe('status moves of setting values (spec 2.4, 3.3)', () => {
  const cases: [SettingStatus, unknown, SettingStatus | [number, number]][] = [
    ['pending', 'active', 'active'],
    ['pending', 'inactive', 'inactive'],
    ['pending', 'pending', [400, 10023]],
    ['active', 'inactive', 'inactive'],
    ['active', 'active', [409, 10024]],
    ['active', 'pending', [400, 10023]],
    ['inactive', 'active', 'active'],
    ['inactive', 'inactive', [409, 10024]],
    ['inactive', 'pending', [400, 10023]],
    ['active', 'archived', [400, 10023]],
    ['active', 'ACTIVE', [400, 10023]],
    ['active', 7, [400, 10023]],
  ];
  test.each(cases)('%s → %j: %j', (from, to, expected) => {
    if (typeof expected === 'string') {
      expect(checkStatusMove('memberTypes', 'x', from, to)).toBe(expected);
    } else {
      const err = refusal(() => checkStatusMove('memberTypes', 'x', from, to));
      expect([err.status, err.code]).toEqual(expected);
    }
  });
});

describe('look-ups for the HR sync', () => {
  const types = [memberType('mt1', 'Regular', 'Permanent'), memberType('mt2', 'Club', 'Temporary', 'inactive')];
  const subs = [subType('s1', 'Spouse', ['Spouse', 'Wife']), subType('s2', 'Child', ['Son'], 'pending')];

  test('member type by systemIdentifier: case-insensitive, active only unless asked', () => {
    expect(findMemberTypeBySystemIdentifier(types, ' permanent ')?.id).toBe('mt1');
    expect(findMemberTypeBySystemIdentifier(types, 'TEMPORARY')).toBeUndefined();
    expect(findMemberTypeBySystemIdentifier(types, 'TEMPORARY', true)?.id).toBe('mt2');
    expect(findMemberTypeBySystemIdentifier(types, 'Retire')).toBeUndefined();
  });

  test('member sub type by HR relation: case-insensitive, any mapped name, active only unless asked', () => {
    expect(findMemberSubTypeByRelation(subs, 'WIFE')?.id).toBe('s1');
    expect(findMemberSubTypeByRelation(subs, 'spouse')?.id).toBe('s1');
    expect(findMemberSubTypeByRelation(subs, 'son')).toBeUndefined();
    expect(findMemberSubTypeByRelation(subs, 'son', true)?.id).toBe('s2');
    expect(findMemberSubTypeByRelation(subs, 'parent')).toBeUndefined();
  });

  test('the program-management configuration holds active values only', () => {
    const config = activeConfig(groupsWith({ memberTypes: types, memberSubTypes: subs }));
    expect(config.memberTypes.map((v) => v.id)).toEqual(['mt1']);
    expect(config.memberSubTypes.map((v) => v.id)).toEqual(['s1']);
    expect(config).toMatchObject({
      companyGroups: [],
      tierTypes: [],
      paymentPeriods: DEFAULT_PAYMENT_PERIODS,
      tierGroups: ['base', 'upgrade', 'add_on'],
    });
  });
});

describe('payment periods and whole states', () => {
  test('keys are trimmed and must be unique (case-insensitive)', () => {
    expect(checkPaymentPeriods([{ key: 'monthly ', label: ' Monthly' }])).toEqual([
      { key: 'monthly', label: 'Monthly' },
    ]);
    const err = refusal(() =>
      checkPaymentPeriods([
        { key: 'm', label: 'a' },
        { key: 'x', label: 'b' },
        { key: 'M', label: 'c' },
      ]),
    );
    expect([err.status, err.code]).toEqual([400, 10032]);
    expect(err.details).toEqual({
      errors: [{ field: 'paymentPeriods.2.key', reason: 'duplicates paymentPeriods.0.key' }],
    });
  });

  test('stateProblems reports each clash with its position', () => {
    const groups = groupsWith({
      memberTypes: [memberType('a', 'One', 'x'), memberType('b', 'one', 'y'), memberType('a', 'Two', 'z')],
    });
    groups.tierConfig.value.paymentPeriods = [
      { key: 'k', label: 'a' },
      { key: 'k', label: 'b' },
    ];
    const problems = stateProblems(groups);
    expect(problems.map((p) => p.field)).toEqual([
      'groups.memberTypes.value.1',
      'groups.memberTypes.value.2',
      'groups.tierConfig.value.paymentPeriods',
    ]);
    expect(stateProblems(groupsWith({ memberTypes: [memberType('a', 'One', 'x')] }))).toEqual([]);
  });
});

describe('lists and projection', () => {
  test('a group list filters its own group; status, search (escaped, case-insensitive) and paging', () => {
    const q = settingListQuery('memberTypes', { status: 'active', search: ' a.b ', page: 2, limit: 5 });
    expect(q).toEqual({
      filter: {
        group: 'memberTypes',
        status: 'active',
        $or: ['name', 'description', 'systemIdentifier', 'hrmsMapping'].map((f) => ({
          [f]: { $regex: 'a\\.b', $options: 'i' },
        })),
      },
      sort: { nameKey: 1, id: 1 },
      page: 2,
      limit: 5,
      skip: 5,
    });
    expect(settingListQuery('listSettings', {})).toMatchObject({ filter: {}, page: 1, limit: 20 });
    expect(settingListQuery('listSettings', { search: '  ' }).filter).toEqual({});
  });

  test('tier types filter by tierGroup or its short name group; they must agree', () => {
    expect(settingListQuery('tierTypes', { group: 'add_on' }).filter).toEqual({
      group: 'tierTypes',
      tierGroup: 'add_on',
    });
    expect(settingListQuery('tierTypes', { tierGroup: 'base', group: 'base' }).filter).toEqual({
      group: 'tierTypes',
      tierGroup: 'base',
    });
    const err = refusal(() => settingListQuery('tierTypes', { tierGroup: 'base', group: 'upgrade' }));
    expect([err.status, err.code]).toEqual([400, 10028]);
    expect(err.details).toEqual({ errors: [{ field: 'group', reason: 'contradicts another filter on tierGroup' }] });
  });

  test('a GET query is coerced by the schema: numbers from strings, blank values not given', () => {
    expect(schemaRefusal('Setting', 'listMemberTypes', { page: '2', limit: '5', status: '' })).toEqual({
      input: { page: 2, limit: 5 },
      fields: [],
    });
  });

  test.each([
    ['listMemberTypes', 'page', { page: '0' }],
    ['listMemberTypes', 'limit', { limit: '101' }],
    ['listMemberTypes', 'limit', { limit: 'all' }],
    ['listMemberTypes', 'status', { status: 'deleted' }],
    ['listMemberTypes', 'tierGroup', { tierGroup: 'base' }],
    ['listTierTypes', 'tierGroup', { tierGroup: 'gold' }],
    ['listSettings', 'group', { group: 'tierConfig' }],
    ['listCompanyGroups', 'search', { search: 'x'.repeat(201) }],
  ] as const)('%s: the schema refuses a bad %s', (method, field, query) => {
    expect(schemaRefusal('Setting', method, query).fields).toEqual([field]);
  });

  test('a refused input is 400 10028 naming each field', () => {
    const err = invalidSettingQuery([{ field: 'page', reason: 'must be >= 1' }]);
    expect([err.status, err.code, err.message]).toEqual([400, 10028, 'Invalid list parameters: page must be >= 1']);
  });

  test('every record of the four list groups is a document with its group, sort key and pending approval', () => {
    const groups = groupsWith({
      memberTypes: [memberType('mt1', ' Regular  Staff', 'P')],
      memberSubTypes: [subType('s1', 'Spouse', ['wife'])],
    });
    const docs = settingDocuments({ groups, pendingApprovals: { 'memberTypes:mt1': 'ap1' } });
    expect(docs).toEqual([
      {
        collection: 'settings',
        id: 'memberTypes:mt1',
        doc: {
          ...groups.memberTypes.value[0],
          group: 'memberTypes',
          nameKey: 'regular staff',
          pendingApprovalId: 'ap1',
        },
      },
      {
        collection: 'settings',
        id: 'memberSubTypes:s1',
        doc: { ...groups.memberSubTypes.value[0], group: 'memberSubTypes', nameKey: 'spouse', pendingApprovalId: null },
      },
    ]);
    expect(settingDocuments(undefined)).toEqual([]);
    expect(
      pageOf([{ ...docs[0].doc, _id: 'x', _v: 1, _instance: 'default', _class: 'Setting' }], 41, {
        page: 1,
        limit: 20,
      }),
    ).toEqual({
      items: [{ ...groups.memberTypes.value[0], group: 'memberTypes', pendingApprovalId: 'ap1' }],
      totalCount: 41,
      page: 1,
      limit: 20,
      totalPages: 3,
    });
  });

  test('workflow entities carry the group; it is not stored', () => {
    const v = memberType('mt1', 'Regular', 'P');
    expect(asEntity('memberTypes', v)).toEqual({ ...v, group: 'memberTypes' });
    expect(fromEntity(asEntity('memberTypes', v))).toEqual(v);
    expect(normalise('  A   b ')).toBe('a b');
  });
});
