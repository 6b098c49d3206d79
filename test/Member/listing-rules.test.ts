/**
 * listMembers' and listMemberships' input: their schemas refuse what the class
 * answers 400 5005 for (a GET query coerced as the runtime does), and the
 * rules turn the accepted input into the listing's query.
 */
import { queryInput, toFieldErrors } from '../../runtime/actor/validation';
import { methodValidator } from '../support/schema-check';
import { invalidQuery, listMembersQuery, membershipListQuery } from '../../classes/Member/listing-rules';

function validatorOf(method: string) {
  const v = methodValidator('Member', method);
  /** the fields refused, as the class answers them: a body, or a query as the runtime coerces it */
  const refused = (input: unknown): string[] =>
    v(input)
      ? []
      : (invalidQuery(toFieldErrors(v.errors)).details as { errors: { field: string }[] }).errors
          .map((e) => e.field)
          .sort();
  return {
    body: refused,
    query: (q: Record<string, unknown>) => refused(queryInput(q, v)),
    coerced: (q: Record<string, unknown>) => ({ ...queryInput(q, v) }),
  };
}

describe('listMembers input', () => {
  const s = validatorOf('listMembers');

  test('a query: a repeated filter is a list, a single one stays a value, page and flags are coerced', () => {
    expect(s.coerced({ status: ['active', 'inactive'], companyId: 'c1', primaryOnly: 'true', page: '2' })).toEqual({
      status: ['active', 'inactive'],
      companyId: 'c1',
      primaryOnly: true,
      page: 2,
    });
    expect(s.query({ status: ['active', 'inactive'], companyId: 'c1', primaryOnly: 'false', limit: '100' })).toEqual(
      [],
    );
    expect(s.body({ status: 'active', membershipStatus: ['active', 'expired'], search: 'amal' })).toEqual([]);
  });

  test('refused: unknown statuses (alone or in a list), operators, a non-string or repeated search, bad paging, unknown keys', () => {
    expect(s.query({ status: 'sleeping' })).toEqual(['status']);
    expect(s.body({ status: ['active', 'sleeping'] })).toEqual(['status']);
    expect(s.body({ membershipStatus: 'gone' })).toEqual(['membershipStatus']);
    expect(s.body({ companyId: { $regex: '.*' }, primaryMemberId: { $ne: null } })).toEqual([
      'companyId',
      'primaryMemberId',
    ]);
    expect(s.body({ search: 5, primaryOnly: 'maybe', colour: 'red' })).toEqual(['colour', 'primaryOnly', 'search']);
    expect(s.query({ search: ['a', 'b'] })).toEqual(['search']);
    for (const bad of [{ limit: '500' }, { limit: '0' }, { page: '0' }, { page: 'x' }])
      expect(s.query(bad)).toEqual(Object.keys(bad));
    expect(s.body({ companyId: [] })).toEqual(['companyId']);
    expect(s.body({ search: 'x'.repeat(201) })).toEqual(['search']);
  });

  test('one reason a field, naming the statuses a status may be', () => {
    const v = methodValidator('Member', 'listMembers');
    // as a query: the coercion pass leaves the value a one-item list
    v(queryInput({ status: 'sleeping' }, v));
    const err = invalidQuery(toFieldErrors(v.errors));
    expect(err).toMatchObject({ code: 5005, status: 400 });
    const errors = (err.details as { errors: { field: string; reason: string }[] }).errors;
    expect(errors).toHaveLength(1);
    expect(errors[0].reason).toContain('pending_invite');
  });

  test('listMembersQuery: page 1 and 20 a page unless given, the search trimmed (a blank one none)', () => {
    expect(listMembersQuery({})).toEqual({ page: 1, limit: 20, skip: 0 });
    expect(listMembersQuery({ status: ['active'], search: ' amal ', page: 3, limit: 10 })).toEqual({
      status: ['active'],
      search: 'amal',
      page: 3,
      limit: 10,
      skip: 20,
    });
    expect(listMembersQuery({ search: '  ', primaryOnly: false })).toEqual({
      primaryOnly: false,
      page: 1,
      limit: 20,
      skip: 0,
    });
  });
});

describe('listMemberships input', () => {
  const s = validatorOf('listMemberships');

  test('refused: unknown status or tier group, a non-string tier id, an unknown filter, a limit of 0', () => {
    expect(s.query({ status: 'gone', tierGroup: 'premium', colour: 'red', limit: '0' })).toEqual([
      'colour',
      'limit',
      'status',
      'tierGroup',
    ]);
    expect(s.body({ tierId: 5 })).toEqual(['tierId']);
    expect(s.query({ status: 'active', tierGroup: 'base', tierId: 't1', page: '2' })).toEqual([]);
  });

  test('membershipListQuery: page 1 and 10 a page unless given', () => {
    expect(membershipListQuery({})).toEqual({ page: 1, limit: 10, skip: 0 });
    expect(membershipListQuery({ status: 'active', tierGroup: 'base', tierId: 't', page: 2, limit: 5 })).toEqual({
      status: 'active',
      tierGroup: 'base',
      tierId: 't',
      page: 2,
      limit: 5,
      skip: 5,
    });
  });
});
