/**
 * listOffers' input: the schema refuses what the class answers 400 18076 for
 * (a GET query coerced as the runtime does), and offerListQuery turns the
 * accepted input into the listing's query.
 */
import { queryInput, toFieldErrors } from '../../runtime/actor/validation';
import { methodValidator } from '../support/schema-check';
import { invalidOfferQuery, offerListQuery } from '../../classes/Offer/rules';

const validator = methodValidator('Offer', 'listOffers');

/** the fields refused in a POST body, as the class answers them */
function fieldsOf(err: { details?: unknown }): string[] {
  return (err.details as { errors: { field: string }[] }).errors.map((e) => e.field).sort();
}
function refusedBody(body: unknown): string[] {
  return validator(body) ? [] : fieldsOf(invalidOfferQuery(toFieldErrors(validator.errors)));
}
/** the fields the schema refuses in a GET query, and the input it hands the handler otherwise */
function ofQuery(query: Record<string, unknown>): { refused: string[]; input: Record<string, unknown> } {
  const input = queryInput(query, validator);
  return { refused: refusedBody(input), input: { ...input } };
}

describe('listOffers input', () => {
  test('a query is coerced to the schema: one status or a repeated one, page and limit as integers', () => {
    expect(ofQuery({ status: 'published', page: '3', limit: '10' })).toEqual({
      refused: [],
      input: { status: 'published', page: 3, limit: 10 },
    });
    expect(ofQuery({ status: ['published', 'expired'], search: 'x' })).toEqual({
      refused: [],
      input: { status: ['published', 'expired'], search: 'x' },
    });
  });

  test('the schema refuses an unknown status (alone or in a list), a page below 1, an unknown key, long texts', () => {
    expect(ofQuery({ status: 'live', page: '0' }).refused).toEqual(['page', 'status']);
    expect(refusedBody({ status: ['published', 'live'] })).toEqual(['status']);
    expect(refusedBody({ status: [] })).toEqual(['status']);
    expect(refusedBody({ colour: 'red', limit: 101 })).toEqual(['colour', 'limit']);
    expect(refusedBody({ partnerId: 'x'.repeat(201), search: 5 })).toEqual(['partnerId', 'search']);
    expect(refusedBody({ status: { $in: ['published'] } })).toEqual(['status']);
    // one reason a field, the one naming what it takes, for a body as for a query
    expect(invalidOfferQuery(toFieldErrors(validator.errors)).details).toEqual({
      errors: [{ field: 'status', reason: 'must be one of: published, unpublished, expired' }],
    });
    validator(queryInput({ status: 'live' }, validator));
    expect(invalidOfferQuery(toFieldErrors(validator.errors)).details).toEqual({
      errors: [{ field: 'status', reason: 'must be one of: published, unpublished, expired' }],
    });
  });

  test('offerListQuery: page 1 and 20 a page unless given; the status a list; the search trimmed', () => {
    expect(offerListQuery({})).toEqual({ page: 1, limit: 20 });
    expect(offerListQuery({ status: 'published' })).toEqual({ page: 1, limit: 20, status: ['published'] });
    expect(
      offerListQuery({
        status: ['published', 'expired'],
        partnerId: 'p',
        categoryId: 'c',
        offerType: 'discount',
        search: ' x ',
        page: 3,
        limit: 10,
      }),
    ).toEqual({
      page: 3,
      limit: 10,
      status: ['published', 'expired'],
      partnerId: 'p',
      categoryId: 'c',
      offerType: 'discount',
      search: 'x',
    });
  });

  test("a refused input is the class's 400 18076, one reason a field (an item's problem is its filter's)", () => {
    const err = invalidOfferQuery([
      { field: 'status', reason: 'must be one of: published, unpublished, expired' },
      { field: 'status.0', reason: 'must be one of: published, unpublished, expired' },
      { field: 'page', reason: 'must be >= 1' },
    ]);
    expect(err).toMatchObject({
      code: 18076,
      status: 400,
      details: {
        errors: [
          { field: 'status', reason: 'must be one of: published, unpublished, expired' },
          { field: 'page', reason: 'must be >= 1' },
        ],
      },
    });
  });
});
