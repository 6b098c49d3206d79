/**
 * A GET's input is its query: empty values are not given, the rest is coerced
 * to the method's schema types and then checked as a POST body is (the same
 * 400 with field and reason, or the method's own error). Unit tests of
 * queryInput, then real HTTP against a runtime with the Shelf fixture.
 */
import * as path from 'node:path';
import { createAjv, lazyValidator, queryInput } from '../../runtime/actor/validation';
import {
  EXAMPLE_CLASS_DIR,
  EXAMPLE_SCHEMA_DIR,
  startTestRuntime,
  TEST_API_KEY,
  type TestRuntime,
} from '../support/harness';

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    page: { type: 'integer', minimum: 1 },
    active: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    name: { type: 'string' },
  },
};

describe('queryInput', () => {
  const validator = () => lazyValidator(createAjv(), SCHEMA, 'Shelf.list');

  test('coerces to the schema: integer, boolean, a single value where a list is expected', () => {
    const input = queryInput({ page: '2', active: 'true', tags: 'a', name: '7' }, validator());
    expect({ ...input }).toEqual({ page: 2, active: true, tags: ['a'], name: '7' });
  });

  test('an empty value is not given; empty items of a repeated key are dropped', () => {
    const input = queryInput({ page: '', tags: ['a', '', 'b'], name: '' }, validator());
    expect({ ...input }).toEqual({ tags: ['a', 'b'] });
  });

  test('what does not read as its type stays as given, for the check to refuse', () => {
    const v = validator();
    const input = queryInput({ page: 'two', active: 'yes' }, v);
    expect({ ...input }).toEqual({ page: 'two', active: 'yes' });
    expect(v(input)).toBe(false);
    expect(v.errors!.map((e) => e.instancePath).sort()).toEqual(['/active', '/page']);
  });

  test('without a schema the strings are the input as they are', () => {
    expect({ ...queryInput({ page: '2', x: ['1', '2'] }, undefined) }).toEqual({ page: '2', x: ['1', '2'] });
  });

  test('keys land on an object without a prototype: __proto__ is a key like any other', () => {
    const raw = Object.create(null) as Record<string, unknown>;
    raw['__proto__'] = 'x';
    const input = queryInput(raw, undefined);
    expect(Object.getPrototypeOf(input)).toBeNull();
    expect(Object.keys(input)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('GET over HTTP', () => {
  const key = { 'x-api-key': TEST_API_KEY };
  const fixtures = path.join(__dirname, 'query-fixtures');
  let t: TestRuntime;
  let call: string;

  beforeAll(async () => {
    t = await startTestRuntime({
      env: {
        CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(fixtures, 'classes')}`,
        SCHEMA_DIRS: `${EXAMPLE_SCHEMA_DIR},${path.join(fixtures, 'schemas')}`,
      },
    });
    call = `/${t.projectId}/CALL/Shelf`;
  });
  afterAll(() => t.stop());

  test('the handler receives the coerced query as its input', async () => {
    const res = await t.get(`${call}/list?page=3&active=false&ratio=0.5&status=open&tags=x&tags=y&name=42`, key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      input: { page: 3, active: false, ratio: 0.5, status: 'open', tags: ['x', 'y'], name: '42' },
      prototype: true,
    });
  });

  test('blank values are not given (a form left empty)', async () => {
    const res = await t.get(`${call}/list?status=&page=&name=`, key);
    expect([res.status, res.body.input]).toEqual([200, {}]);
  });

  test('no query: an empty input', async () => {
    const res = await t.get(`${call}/list`, key);
    expect([res.status, res.body.input]).toEqual([200, {}]);
  });

  test('a value of the wrong type, out of range or of an unknown name: 400 with each field and reason', async () => {
    const res = await t.get(`${call}/list?page=0&active=maybe&status=lost&colour=red&tags=a&tags=b&tags=c&tags=d`, key);
    expect(res.status).toBe(400);
    const fields = (res.body.details.errors as { field: string }[]).map((e) => e.field).sort();
    expect(fields).toEqual(['active', 'colour', 'page', 'status', 'tags']);
    const reasons = Object.fromEntries(
      (res.body.details.errors as { field: string; reason: string }[]).map((e) => [e.field, e.reason]),
    );
    expect(reasons.colour).toBe('is not allowed');
    expect(reasons.status).toBe('must be one of: open, closed');
  });

  test('a repeated key where one value is expected is refused, not silently cut to one', async () => {
    const res = await t.get(`${call}/list?page=1&page=2`, key);
    expect(res.status).toBe(400);
    expect(res.body.details.errors[0].field).toBe('page');
  });

  test("a method's own validation error answers a bad query as it answers a bad body", async () => {
    const bad = await t.get(`${call}/listOwnError?page=x`, key);
    const badBody = await t.post(`${call}/listOwnError`, { page: 'x' }, key);
    expect([bad.status, bad.body.code]).toEqual([400, 4711]);
    expect([badBody.status, badBody.body.code]).toEqual([400, 4711]);
    expect(bad.body.details).toEqual(badBody.body.details);
  });

  test('a READ of an instance gets its query the same way', async () => {
    const res = await t.get(`${call}/read/shelf-1?page=2&tags=z`, key);
    expect([res.status, res.body]).toEqual([200, { input: { page: 2, tags: ['z'] } }]);
  });

  test('a method without a schema gets the strings as given', async () => {
    const res = await t.get(`${call}/unchecked?page=2&page=3&x=`, key);
    expect([res.status, res.body]).toEqual([200, { input: { page: ['2', '3'] } }]);
  });

  test('__proto__ in a query is refused by name, and pollutes nothing', async () => {
    const res = await t.get(`${call}/list?__proto__=x&constructor=y`, key);
    expect(res.status).toBe(400);
    expect((res.body.details.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([
      '__proto__',
      'constructor',
    ]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
