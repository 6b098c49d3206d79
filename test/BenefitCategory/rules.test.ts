/**
 * listCategories' input: the schema refuses what the class answers 400 18053
 * for (a GET query coerced as the runtime does), and categoryListQuery turns
 * the accepted input into the listing's query.
 */
import { queryInput, toFieldErrors } from '../../runtime/actor/validation';
import { methodValidator } from '../support/schema-check';
import { categoryListQuery, invalidCategoryQuery } from '../../classes/BenefitCategory/rules';

const validator = methodValidator('BenefitCategory', 'listCategories');

/** the fields refused in a POST body, as the class answers them */
function fieldsOf(err: { details?: unknown }): string[] {
  return (err.details as { errors: { field: string }[] }).errors.map((e) => e.field).sort();
}
function refusedBody(body: unknown): string[] {
  return validator(body) ? [] : fieldsOf(invalidCategoryQuery(toFieldErrors(validator.errors)));
}
/** the fields the schema refuses in a GET query, and the input it hands the handler otherwise */
function ofQuery(query: Record<string, unknown>): { refused: string[]; input: Record<string, unknown> } {
  const input = queryInput(query, validator);
  return { refused: refusedBody(input), input: { ...input } };
}

describe('listCategories input', () => {
  test('a query is coerced to the schema: page and limit as integers, blank values not given', () => {
    expect(ofQuery({ status: 'active', search: ' Spa ', page: '2', limit: '5', colour: undefined })).toEqual({
      refused: [],
      input: { status: 'active', search: ' Spa ', page: 2, limit: 5 },
    });
    expect(ofQuery({ status: '', page: '' })).toEqual({ refused: [], input: {} });
  });

  test('the schema refuses an unknown key, an unknown status, a limit out of 1-100, a page below 1, a long search', () => {
    expect(ofQuery({ status: 'gone', limit: '0', colour: 'red' }).refused).toEqual(['colour', 'limit', 'status']);
    expect(refusedBody({ limit: 101, page: 0 })).toEqual(['limit', 'page']);
    expect(refusedBody({ page: 'x', search: 'x'.repeat(201) })).toEqual(['page', 'search']);
    expect(refusedBody({ status: { $ne: null } })).toEqual(['status']);
  });

  test('categoryListQuery: page 1 and 20 a page unless given; the search trimmed, a blank one none', () => {
    expect(categoryListQuery({})).toEqual({ page: 1, limit: 20 });
    expect(categoryListQuery({ status: 'active', search: ' Spa ', page: 2, limit: 5 })).toEqual({
      page: 2,
      limit: 5,
      status: 'active',
      search: 'Spa',
    });
    expect(categoryListQuery({ search: '   ' })).toEqual({ page: 1, limit: 20 });
  });

  test("a refused input is the class's 400 18053 naming each field", () => {
    const err = invalidCategoryQuery([{ field: 'status', reason: 'must be one of: active, inactive' }]);
    expect(err).toMatchObject({
      code: 18053,
      status: 400,
      details: { errors: [{ field: 'status', reason: 'must be one of: active, inactive' }] },
    });
  });
});
