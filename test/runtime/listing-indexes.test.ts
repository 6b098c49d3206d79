/**
 * Listings and their indexes (runtime/stream/listing.ts): the derivation, and
 * a guard over the service's classes that every listing's filters and sort
 * have an index giving its order, so MongoDB never sorts a page in memory.
 */
import * as path from 'node:path';
import { projectRoot } from '../../runtime/config';
import { ClassRegistry } from '../../runtime/actor/registry';
import type { Filter, IndexSpec, Sort } from '../../runtime/stream/document-store';
import {
  collectionIndexes,
  equalityFields,
  listingKeys,
  MAX_FILTER_SETS,
  servesSort,
  servingIndex,
  type ListingSpec,
} from '../../runtime/stream/listing';
import { buildListFilter as approvalFilter, listQuery as approvalQuery } from '../../classes/ApprovalManager/rules';
import { buildCategoryListFilter } from '../../classes/BenefitCategory/rules';
import { companyListQuery } from '../../classes/Company/rules';
import { logListQuery } from '../../classes/LogManager/listing-rules';
import { listMembersFilter } from '../../classes/Member/listing-rules';
import { buildOfferListFilter, OFFER_ORDER } from '../../classes/Offer/rules';
import { partnerListQuery, venueListQuery } from '../../classes/Partner/rules';
import { buildListFilter as userFilter, LIST_USERS } from '../../classes/ProgramManagementUser/rules';
import { settingListQuery } from '../../classes/Setting/listing-rules';
import { buildListFilter as tierFilter } from '../../classes/Tier/rules';

describe('listing index derivation', () => {
  test('a filter set leads, the sort follows', () => {
    expect(listingKeys(['companyId', 'status'], { createdAt: -1, _id: 1 })).toEqual({
      companyId: 1,
      status: 1,
      createdAt: -1,
      _id: 1,
    });
    expect(Object.keys(listingKeys(['b', 'a'], { c: 1 }))).toEqual(['b', 'a', 'c']);
    expect(() => listingKeys(['createdAt'], { createdAt: -1 })).toThrow(/createdAt/);
  });

  test("a collection's indexes: each listing's sets, the tenant field alone, declared ones, and no plain index another begins with", () => {
    const indexes = collectionIndexes('members', {
      tenantField: 'companyId',
      indexes: [
        { keys: { status: 1 } },
        { keys: { createdAt: 1 } },
        { keys: { email: 1 } },
        { keys: { email: 1 }, unique: true },
        { keys: { name: 'text' } },
      ],
      listings: [{ name: 'list', sort: { createdAt: -1, _id: 1 }, filterSets: [[], ['status']] }],
    });
    expect(indexes.map((i) => i.keys)).toEqual([
      { createdAt: -1, _id: 1 },
      { status: 1, createdAt: -1, _id: 1 },
      { companyId: 1, createdAt: -1, _id: 1 },
      // the plain {email: 1} goes: the unique index on the same key serves it
      { email: 1 },
      { name: 'text' },
    ]);
    expect(indexes.find((i) => i.keys.email)).toMatchObject({ unique: true });
  });

  test('the tenant field is no set of its own when the sort holds it (a tenant sees one document)', () => {
    const indexes = collectionIndexes('companies', {
      tenantField: 'id',
      listings: [{ name: 'list', sort: { nameKey: 1, id: 1 } }],
    });
    expect(indexes.map((i) => i.keys)).toEqual([{ nameKey: 1, id: 1 }]);
  });

  test('refuses a listing it cannot serve', () => {
    const sets = Array.from({ length: MAX_FILTER_SETS + 1 }, (_, i) => [`f${i}`]);
    expect(() => collectionIndexes('c', { listings: [{ name: 'wide', sort: { a: 1 }, filterSets: sets }] })).toThrow(
      /wide declares 7 filter sets/,
    );
    expect(() => collectionIndexes('c', { listings: [{ name: 'unordered', sort: {} }] })).toThrow(
      /unordered declares no sort/,
    );
    expect(() => collectionIndexes('c', { listings: [{ name: 'odd', sort: { a: 1 }, filterSets: [['a']] }] })).toThrow(
      /odd: sort field 'a'/,
    );
    const many: ListingSpec[] = Array.from({ length: 11 }, (_, i) => ({
      name: `l${i}`,
      sort: { [`s${i}`]: 1 },
      filterSets: [[], ['a'], ['b'], ['c'], ['d'], ['e']],
    }));
    expect(() => collectionIndexes('c', { listings: many })).toThrow(/66 indexes/);
  });

  test('equality fields: values and $in of values, at the top and in $and; not ranges, patterns, $or or $ne', () => {
    const filter: Filter = {
      status: 'active',
      companyId: { $in: ['a', 'b'] },
      gone: null,
      n: { $eq: 3 },
      $and: [{ type: 'x' }, { $and: [{ deep: true }] }, { age: { $gt: 3 } }],
      name: { $regex: 'al', $options: 'i' },
      other: { $ne: 'x' },
      nested: { a: 1 },
      objects: { $in: [{ a: 1 }] },
      $or: [{ p: 1 }, { q: 2 }],
    };
    expect([...equalityFields(filter)].sort()).toEqual(['companyId', 'deep', 'gone', 'n', 'status', 'type']);
  });

  test('an index gives a sort after equality fields, walked either way, never past a field the filter leaves open', () => {
    const eq = new Set(['status', 'companyId']);
    expect(servesSort({ status: 1, createdAt: -1, _id: 1 }, eq, { createdAt: -1, _id: 1 })).toBe(1);
    expect(servesSort({ companyId: 1, status: 1, createdAt: -1, _id: 1 }, eq, { createdAt: 1, _id: -1 })).toBe(2);
    expect(servesSort({ createdAt: -1, _id: 1, extra: 1 }, eq, { createdAt: -1 })).toBe(0);
    expect(servesSort({ createdAt: -1, _id: -1 }, eq, { createdAt: -1, _id: 1 })).toBe(-1);
    expect(servesSort({ memberType: 1, createdAt: -1, _id: 1 }, eq, { createdAt: -1, _id: 1 })).toBe(-1);
    expect(servesSort({ status: 1 }, eq, { createdAt: -1 })).toBe(-1);
    const indexes: IndexSpec[] = [{ keys: { createdAt: -1, _id: 1 } }, { keys: { status: 1, createdAt: -1, _id: 1 } }];
    expect(servingIndex(indexes, { status: 'a', memberType: 'x' }, { createdAt: -1, _id: 1 })).toEqual({
      index: indexes[1],
      equalityPrefix: 1,
    });
    expect(servingIndex(indexes, {}, { name: 1 })).toBeUndefined();
  });
});

describe("the service's listings have the indexes they are read in", () => {
  const root = projectRoot();
  const registry = ClassRegistry.fromDirectories([path.join(root, 'classes')], [path.join(root, 'schemas')], {
    ...process.env,
    WORKFLOW_CONFIG_DIR: path.join(root, 'workflow-configs'),
  });
  const collections = registry
    .list()
    .flatMap((cls) =>
      Object.entries(cls.options.stream?.collections ?? {}).map(([name, def]) => ({ classId: cls.id, name, def })),
    );

  const of = (collection: string) => {
    const found = collections.find((c) => c.name === collection);
    if (!found) throw new Error(`no class projects into ${collection}`);
    return { indexes: collectionIndexes(found.name, found.def), def: found.def };
  };
  const listing = (collection: string, name: string): ListingSpec => {
    const spec = of(collection).def.listings?.find((l) => l.name === name);
    if (!spec) throw new Error(`${collection} declares no listing ${name}`);
    return spec;
  };

  test('every collection with listings gets a bounded set of indexes, each filter set (and the tenant field) served in full', () => {
    const listed = collections.filter((c) => c.def.listings?.length);
    expect(listed.map((c) => c.name).sort()).toEqual(
      expect.arrayContaining([
        'approvals',
        'benefitCategories',
        'companies',
        'logs',
        'members',
        'offers',
        'partners',
        'programManagementUsers',
        'roles',
        'settings',
        'tiers',
        'venues',
      ]),
    );
    for (const { name, def } of listed) {
      const indexes = collectionIndexes(name, def);
      // every index slows every write to the collection
      expect({ name, count: indexes.length <= 12 }).toEqual({ name, count: true });
      for (const spec of def.listings ?? []) {
        const sets = [
          ...(spec.filterSets ?? [[]]),
          ...(def.tenantField && !(def.tenantField in spec.sort) ? [[def.tenantField]] : []),
        ];
        for (const set of sets) {
          const filter = Object.fromEntries(set.map((f) => [f, 'x']));
          expect({
            name,
            listing: spec.name,
            set,
            prefix: servingIndex(indexes, filter, spec.sort)?.equalityPrefix,
          }).toEqual({ name, listing: spec.name, set, prefix: set.length });
        }
      }
    }
  });

  // what each listing's own code builds, with the sort it passes: the declaration must name that sort, and an index must lead with the filter's fields
  const cases: { what: string; collection: string; listing: string; filter: Filter; sort?: Sort; prefix: number }[] = [
    {
      what: 'listMembers by status and company',
      collection: 'members',
      listing: 'listMembers',
      filter: listMembersFilter({ status: 'active', companyId: 'c1' }),
      prefix: 2,
    },
    {
      what: 'listMembers by statuses, searched',
      collection: 'members',
      listing: 'listMembers',
      filter: listMembersFilter({ status: ['active', 'inactive'], search: 'al', memberType: 't' }),
      prefix: 1,
    },
    {
      what: "a company user's listMembers (the platform adds its company)",
      collection: 'members',
      listing: 'listMembers',
      filter: { $and: [listMembersFilter({ status: 'pending' }), { companyId: 'c1' }] },
      prefix: 2,
    },
    {
      what: 'listMembers unfiltered',
      collection: 'members',
      listing: 'listMembers',
      filter: listMembersFilter({}),
      prefix: 0,
    },
    {
      what: 'listApprovals by status',
      collection: 'approvals',
      listing: 'listApprovals',
      filter: approvalFilter(approvalQuery({ approvalStatus: 'approved' }), {
        id: 'u1',
        type: 'program_management_user',
      }),
      prefix: 1,
    },
    {
      what: "an approver's actionable listApprovals",
      collection: 'approvals',
      listing: 'listApprovals',
      filter: approvalFilter(approvalQuery({ actionable: true }), { id: 'u1', type: 'program_management_user' }, [
        { id: 'r1', name: 'Reviewer' },
      ]),
      prefix: 2,
    },
    {
      what: 'listUsers by company',
      collection: 'programManagementUsers',
      listing: 'listUsers',
      filter: userFilter({ companyId: 'c1', page: 1, limit: 20 } as Parameters<typeof userFilter>[0]),
      sort: LIST_USERS.sort,
      prefix: 1,
    },
    {
      what: 'listOffers by partner',
      collection: 'offers',
      listing: 'listOffers',
      filter: buildOfferListFilter({ partnerId: 'p1', page: 1, limit: 20 } as Parameters<
        typeof buildOfferListFilter
      >[0]),
      sort: { ...OFFER_ORDER },
      prefix: 1,
    },
    {
      what: 'listActiveCategories',
      collection: 'benefitCategories',
      listing: 'listCategories',
      filter: buildCategoryListFilter({ status: 'active' }),
      prefix: 1,
    },
    (() => {
      const q = partnerListQuery({ type: ['t1', 't2'], search: 'x' });
      return { what: 'listPartners by type', collection: 'partners', listing: 'listPartners', ...q, prefix: 1 };
    })(),
    (() => {
      const q = venueListQuery({ status: 'active' }, 'p1');
      return { what: "a partner's listVenues by status", collection: 'venues', listing: 'listVenues', ...q, prefix: 2 };
    })(),
    (() => {
      const q = companyListQuery({ companyGroupId: 'g1' }, { kind: 'all' } as Parameters<typeof companyListQuery>[1]);
      return { what: 'listCompanies by group', collection: 'companies', listing: 'listCompanies', ...q, prefix: 1 };
    })(),
    (() => {
      const q = settingListQuery('memberTypes', { status: 'active' });
      return { what: "a group's settings by status", collection: 'settings', listing: 'listSettings', ...q, prefix: 2 };
    })(),
    (() => {
      const q = logListQuery({ entityId: 'm1', from: '2024-01-01T00:00:00Z' });
      return {
        what: "an entity's log entries from a date",
        collection: 'logs',
        listing: 'getLogEntries',
        ...q,
        prefix: 1,
      };
    })(),
    {
      what: 'listTiers by tier type',
      collection: 'tiers',
      listing: 'listTiers',
      filter: tierFilter({ tierTypeId: 'tt1', page: 1, limit: 20 } as Parameters<typeof tierFilter>[0]),
      prefix: 1,
    },
  ];

  test.each(cases)('$what', ({ collection, listing: name, filter, sort, prefix }) => {
    const spec = listing(collection, name);
    if (sort) expect(sort).toEqual(spec.sort);
    expect(servingIndex(of(collection).indexes, filter, spec.sort)?.equalityPrefix).toBe(prefix);
  });
});
