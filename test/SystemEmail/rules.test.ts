/** SystemEmail's pure rules (classes/SystemEmail/rules.ts). */
import {
  applyUpdate,
  buildListFilter,
  buildTemplate,
  DEFAULT_PAGE_SIZE,
  fieldsOfTemplate,
  invalidQuery,
  listQuery,
  recipientsFor,
  renderMail,
  sameContent,
  statusMove,
  subjectLine,
  templateDocument,
  templateProblems,
  uniqueAddresses,
} from '../../classes/SystemEmail/rules';
import type { CreateSystemEmailTemplateInput } from '../../schemas/SystemEmail/inputs';
import { schemaRefusal } from './support';

const input: CreateSystemEmailTemplateInput = {
  templateId: 'WELCOME',
  type: 'member',
  status: 'active',
  to: ['ops@example.com', 'OPS@example.com', 'hr@example.com'],
  title: 'Welcome',
  subject: 'Welcome {{name}}',
  html: '<p>Hello {{name}}, welcome to {{company}}</p>',
  json: { blocks: [{ type: 'text' }] },
};
const creator = { id: 'pm1', type: 'program_management_user' };
const T0 = '2030-01-01T00:00:00.000Z';
const T1 = '2030-01-02T00:00:00.000Z';

test('buildTemplate keeps the input, recipients once each, and stamps creator and times', () => {
  expect(buildTemplate(input, creator, T0)).toEqual({
    templateId: 'WELCOME',
    type: 'member',
    status: 'active',
    to: ['ops@example.com', 'hr@example.com'],
    title: 'Welcome',
    subject: 'Welcome {{name}}',
    html: '<p>Hello {{name}}, welcome to {{company}}</p>',
    json: { blocks: [{ type: 'text' }] },
    createdBy: creator,
    createdAt: T0,
    updatedAt: T0,
  });
  expect(buildTemplate({ ...input, to: undefined }, creator, T0).to).toEqual([]);
});

test('applyUpdate replaces the content; `to` absent keeps the recipients, [] removes them', () => {
  const t = buildTemplate(input, creator, T0);
  const body = { title: 'New', subject: 'Hi {{name}}', html: '<p>{{name}}</p>', json: {} };
  expect(applyUpdate(t, body, T1)).toEqual({ ...t, ...body, updatedAt: T1 });
  expect(applyUpdate(t, { ...body, to: [] }, T1).to).toEqual([]);
  expect(applyUpdate(t, { ...body, to: ['a@example.com', 'A@example.com'] }, T1).to).toEqual(['a@example.com']);
});

test('sameContent ignores updatedAt only', () => {
  const t = buildTemplate(input, creator, T0);
  expect(sameContent(t, { ...t, updatedAt: T1 })).toBe(true);
  expect(sameContent(t, { ...t, json: { blocks: [] } })).toBe(false);
  expect(sameContent(t, { ...t, to: [] })).toBe(false);
});

test('statusMove: active and inactive move to each other; the same status is no move', () => {
  expect(statusMove('active', 'inactive')).toEqual({ ok: true, to: 'inactive' });
  expect(statusMove('inactive', 'active')).toEqual({ ok: true, to: 'active' });
  expect(statusMove('active', 'active')).toEqual({ ok: false, reason: 'the template is active already' });
});

test('templateProblems checks subject as text and html as html', () => {
  expect(templateProblems({ subject: 'Hi {{{name}}}', html: '<p>{{name}}</p>' })).toEqual([]);
  expect(templateProblems({ subject: 'Hi {{#x}}', html: '<p>{{{name}}}</p>' })).toEqual([
    { field: 'subject', reason: expect.stringContaining('not a valid mustache template') },
    { field: 'html', reason: expect.stringContaining('unescaped') },
  ]);
});

test('recipientsFor: the call wins, else the template; none is null', () => {
  expect(recipientsFor(['a@example.com'], ['t@example.com'])).toEqual(['a@example.com']);
  expect(recipientsFor(undefined, ['t@example.com', 'T@example.com'])).toEqual(['t@example.com']);
  expect(recipientsFor([], ['t@example.com'])).toEqual(['t@example.com']);
  expect(recipientsFor(undefined, [])).toBeNull();
  expect(uniqueAddresses(['b@x.io', 'a@x.io', 'B@X.io'])).toEqual(['b@x.io', 'a@x.io']);
});

test('renderMail: subject as text on one line, html escaped', () => {
  const r = renderMail(input, { name: 'Tom <T>\r\nBcc: x@evil.example', company: 'A&B' });
  expect(r).toEqual({
    ok: true,
    rendered: {
      subject: 'Welcome Tom <T> Bcc: x@evil.example',
      html: '<p>Hello Tom &lt;T&gt;\r\nBcc: x@evil.example, welcome to A&amp;B</p>',
    },
  });
  expect(subjectLine('  a\n\nb\rc  ')).toBe('a b c');
  expect(renderMail(input, { name: 'x' })).toMatchObject({ ok: false, reason: 'missing', missing: ['company'] });
  expect(renderMail(input, { name: 1, company: 'c' })).toMatchObject({
    ok: false,
    reason: 'not_string',
    errors: [{ field: 'parameters.name' }],
  });
});

test('fieldsOfTemplate lists all fields, subject first, and per part', () => {
  expect(fieldsOfTemplate({ subject: '{{a}} {{b}}', html: '{{b}} {{#c}}{{d}}{{/c}}' })).toEqual({
    fields: ['a', 'b', 'c', 'd'],
    subject: ['a', 'b'],
    html: ['b', 'c', 'd'],
  });
});

test('templateDocument: no html or json; a lower-cased search column', () => {
  const doc = templateDocument(buildTemplate(input, creator, T0), null);
  expect(doc).not.toHaveProperty('html');
  expect(doc).not.toHaveProperty('json');
  expect(doc).toMatchObject({
    templateId: 'WELCOME',
    status: 'active',
    type: 'member',
    title: 'Welcome',
    pendingApproval: null,
    search: 'welcome welcome',
  });
});

describe('listQuery and buildListFilter', () => {
  test('defaults: page 1, limit 10, no filter', () => {
    expect(listQuery({})).toEqual({ page: 1, limit: DEFAULT_PAGE_SIZE });
    expect(listQuery({ search: '  ' })).toEqual({ page: 1, limit: DEFAULT_PAGE_SIZE });
    expect(buildListFilter({ page: 1, limit: 10 })).toEqual({});
  });

  test('filters, a trimmed search and paging', () => {
    const q = listQuery({ status: 'active', type: 'system', search: ' OTP* ', page: 2, limit: 100 });
    expect(q).toEqual({ status: 'active', type: 'system', search: 'OTP*', page: 2, limit: 100 });
    expect(buildListFilter(q)).toEqual({
      $and: [{ status: 'active' }, { type: 'system' }, { search: { $regex: 'otp\\*' } }],
    });
  });

  test('a GET query is coerced by the schema: numbers from strings, blank values not given', () => {
    expect(schemaRefusal('SystemEmail', 'listSystemEmailTemplates', { page: '2', limit: '100', type: '' })).toEqual({
      input: { page: 2, limit: 100 },
      fields: [],
    });
  });

  test('the schema names every bad value; the class answers them as 400 11009', () => {
    const raw = { status: 'pending', type: 'x', page: 0, limit: 101, search: { $ne: 1 }, sort: 'x' };
    expect(schemaRefusal('SystemEmail', 'listSystemEmailTemplates', raw, false).fields.sort()).toEqual([
      'limit',
      'page',
      'search',
      'sort',
      'status',
      'type',
    ]);
    const err = invalidQuery([{ field: 'page', reason: 'must be >= 1' }]);
    expect([err.status, err.code, err.message]).toEqual([400, 11009, 'Invalid listing: page must be >= 1']);
  });
});
