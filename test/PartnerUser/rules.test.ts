/** PartnerUser's pure rules (classes/PartnerUser/rules.ts). */
import { schemaRefusal } from '../support/schema-check';
import {
  addVenues,
  buildListFilter,
  membershipProblems,
  newPartnerUser,
  newReferences,
  normalizeEmail,
  listQuery,
  partnerUserDocument,
  removeVenues,
  replaceUser,
  roleOptions,
  statusMove,
  takesEmail,
} from '../../classes/PartnerUser/rules';
import type { PartnerUserRecord } from '../../classes/PartnerUser/types';

const schemaCheck = (method: string, raw: Record<string, unknown>) => schemaRefusal('PartnerUser', method, raw);

const user = (over: Partial<PartnerUserRecord> = {}): PartnerUserRecord => ({
  ...newPartnerUser(
    {
      fullName: ' Pat Lee ',
      email: ' Pat@Example.COM ',
      partners: [
        { partnerId: 'p1', role: 'admin' },
        { partnerId: 'p2', role: 'staff' },
      ],
      venues: [{ partnerId: 'p1', venueId: 'v1' }],
    },
    'maker',
    1000,
    'u1',
  ),
  ...over,
});

describe('records', () => {
  test('a new user is pending, trimmed, its email lower-cased, times as numbers, createdBy the actor id', () => {
    expect(user()).toEqual({
      id: 'u1',
      fullName: 'Pat Lee',
      email: 'pat@example.com',
      partners: [
        { partnerId: 'p1', role: 'admin' },
        { partnerId: 'p2', role: 'staff' },
      ],
      venues: [{ partnerId: 'p1', venueId: 'v1' }],
      status: 'pending',
      statusReason: null,
      createdBy: 'maker',
      updatedBy: 'maker',
      createdAt: 1000,
      updatedAt: 1000,
    });
    expect(newPartnerUser({ fullName: 'A', email: 'a@b.c', partners: [] }, 'x', 1, 'u').venues).toEqual([]);
    expect(normalizeEmail('  A@B.C ')).toBe('a@b.c');
  });

  test('replaceUser replaces every field and names what changed; the same values change nothing', () => {
    const current = user();
    const same = replaceUser(
      current,
      { fullName: 'Pat Lee', email: 'PAT@example.com', partners: current.partners, venues: current.venues },
      'editor',
      2000,
    );
    expect(same).toEqual({ next: current, changed: [] });
    const r = replaceUser(
      current,
      { fullName: 'Pat Lee', email: 'new@example.com', partners: [{ partnerId: 'p1', role: 'manager' }], venues: [] },
      'editor',
      2000,
    );
    expect(r.changed).toEqual(['email', 'partners', 'venues']);
    expect(r.next).toMatchObject({
      email: 'new@example.com',
      partners: [{ partnerId: 'p1', role: 'manager' }],
      venues: [],
      updatedBy: 'editor',
      updatedAt: 2000,
      createdBy: 'maker',
      createdAt: 1000,
      status: 'pending',
    });
  });
});

describe('partners and venues', () => {
  test('each partner once; each venue once and of a partner of the user', () => {
    expect(membershipProblems([{ partnerId: 'p1', role: 'admin' }], [{ partnerId: 'p1', venueId: 'v1' }])).toEqual([]);
    expect(
      membershipProblems(
        [
          { partnerId: 'p1', role: 'admin' },
          { partnerId: 'p1', role: 'staff' },
        ],
        [
          { partnerId: 'p1', venueId: 'v1' },
          { partnerId: 'p9', venueId: 'v2' },
          { partnerId: 'p1', venueId: 'v1' },
        ],
      ),
    ).toEqual([
      { field: 'partners[1].partnerId', reason: "'p1' is given twice" },
      { field: 'venues[1].partnerId', reason: "'p9' is not a partner of this user" },
      { field: 'venues[2].venueId', reason: "'v1' is given twice" },
    ]);
  });

  test('newReferences: what a change adds, with its index in the new lists', () => {
    const current = user();
    expect(newReferences(null, current)).toEqual({
      partners: [
        { partnerId: 'p1', index: 0 },
        { partnerId: 'p2', index: 1 },
      ],
      venues: [{ partnerId: 'p1', venueId: 'v1', index: 0 }],
    });
    const next = {
      partners: [
        { partnerId: 'p3', role: 'staff' as const },
        { partnerId: 'p1', role: 'staff' as const },
      ],
      venues: [
        { partnerId: 'p1', venueId: 'v1' },
        { partnerId: 'p3', venueId: 'v3' },
      ],
    };
    expect(newReferences(current, next)).toEqual({
      partners: [{ partnerId: 'p3', index: 0 }],
      venues: [{ partnerId: 'p3', venueId: 'v3', index: 1 }],
    });
  });

  test('addVenues prevents duplicates: a venue held, or given twice, is added once', () => {
    const r = addVenues(user(), [
      { partnerId: 'p1', venueId: 'v1' },
      { partnerId: 'p2', venueId: 'v2' },
      { partnerId: 'p2', venueId: 'v2' },
      { partnerId: 'p1', venueId: 'v1' },
    ]);
    expect(r).toEqual({
      venues: [
        { partnerId: 'p1', venueId: 'v1' },
        { partnerId: 'p2', venueId: 'v2' },
      ],
      added: [{ partnerId: 'p2', venueId: 'v2' }],
      alreadyAssigned: [{ partnerId: 'p1', venueId: 'v1' }],
      problems: [],
    });
  });

  test('addVenues refuses venues of partners the user does not belong to, and a venue under two partners', () => {
    const r = addVenues(user(), [
      { partnerId: 'p9', venueId: 'v9' },
      { partnerId: 'p2', venueId: 'v1' },
    ]);
    expect(r.problems).toEqual([
      { field: 'venues[0].partnerId', reason: "'p9' is not a partner of this user" },
      { field: 'venues[1].venueId', reason: "'v1' is given with partner 'p1' elsewhere" },
    ]);
    expect(r.added).toEqual([]);
  });

  test('removeVenues removes those named and reports the others', () => {
    const current = user({
      venues: [
        { partnerId: 'p1', venueId: 'v1' },
        { partnerId: 'p2', venueId: 'v2' },
      ],
    });
    expect(removeVenues(current, ['v2', 'v7', 'v2'])).toEqual({
      venues: [{ partnerId: 'p1', venueId: 'v1' }],
      removed: [{ partnerId: 'p2', venueId: 'v2' }],
      notAssigned: ['v7'],
    });
    expect(removeVenues(current, ['v7']).removed).toEqual([]);
  });
});

describe('status and email', () => {
  test('statusMove: any of the three, never the same, nothing else', () => {
    expect(statusMove('pending', 'active')).toEqual({ ok: true, to: 'active' });
    expect(statusMove('active', 'pending')).toEqual({ ok: true, to: 'pending' });
    expect(statusMove('active', 'inactive')).toEqual({ ok: true, to: 'inactive' });
    expect(statusMove('inactive', 'active')).toEqual({ ok: true, to: 'active' });
    expect(statusMove('active', 'active')).toEqual({ ok: false, reason: 'the user is already active' });
    expect(statusMove('active', 'expired').ok).toBe(false);
  });

  test('takesEmail: a new user, a new address, or leaving inactive', () => {
    const a = user({ status: 'active' });
    expect(takesEmail(null, a)).toBe(true);
    const renamed: PartnerUserRecord = { ...a, fullName: 'x' };
    expect(takesEmail(a, renamed)).toBe(false);
    expect(takesEmail(a, { ...a, email: 'other@example.com' })).toBe(true);
    expect(takesEmail({ ...a, status: 'inactive' }, a)).toBe(true);
    expect(takesEmail(a, { ...a, status: 'inactive' })).toBe(false);
  });
});

describe('roles, document, listing', () => {
  test('getRoles: key, value and label of admin, manager, staff', () => {
    expect(roleOptions()).toEqual([
      { key: 'ADMIN', value: 'admin', label: 'Admin' },
      { key: 'MANAGER', value: 'manager', label: 'Manager' },
      { key: 'STAFF', value: 'staff', label: 'Staff' },
    ]);
  });

  test('the document carries the partner ids and a lower-cased search column', () => {
    const d = partnerUserDocument(user(), null);
    expect(d).toMatchObject({
      id: 'u1',
      partnerIds: ['p1', 'p2'],
      search: 'pat lee pat@example.com',
      pendingApproval: null,
    });
  });

  test('listQuery: defaults, the search trimmed (blank: none)', () => {
    expect(listQuery({ status: 'active', partnerId: 'p1', search: ' Pat ', page: 2, limit: 5 })).toEqual({
      status: 'active',
      partnerId: 'p1',
      search: 'Pat',
      page: 2,
      limit: 5,
    });
    expect(listQuery({})).toEqual({ page: 1, limit: 20 });
    expect(listQuery({ search: '  ' })).toEqual({ page: 1, limit: 20 });
  });

  test('the schema reads a GET query as its types and refuses what the listing cannot take', () => {
    expect(schemaCheck('listPartnerUsers', { status: 'active', partnerId: 'p1', page: '2', limit: '5' })).toEqual({
      input: { status: 'active', partnerId: 'p1', page: 2, limit: 5 },
      fields: [],
    });
    const bad = schemaCheck('listPartnerUsers', {
      status: 'gone',
      limit: 500,
      page: 0,
      colour: 'red',
      search: { $ne: 1 },
    });
    expect(bad.fields.sort()).toEqual(['colour', 'limit', 'page', 'search', 'status']);
    expect(schemaCheck('listPartnerUsers', { search: 'x'.repeat(201) }).fields).toEqual(['search']);
  });

  test('buildListFilter: every filter anded; search is a literal', () => {
    expect(buildListFilter({ page: 1, limit: 20 })).toEqual({});
    expect(buildListFilter({ page: 1, limit: 20, status: 'active', partnerId: 'p1', search: 'A.B(' })).toEqual({
      $and: [{ status: 'active' }, { partnerIds: 'p1' }, { search: { $regex: 'a\\.b\\(' } }],
    });
  });
});
