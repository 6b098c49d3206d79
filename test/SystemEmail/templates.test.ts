/**
 * Message templates (classes/_platform/templates.ts, spec 1 rule 6): mustache
 * substitution, HTML escaping in html mode only, string-only parameters,
 * missing parameters listed by name, the fields a template uses, and the
 * checks of a template being saved.
 */
import Mustache from 'mustache';
import {
  checkParameters,
  checkTemplate,
  fieldsOf,
  MAX_CACHED_TEMPLATES,
  renderParts,
  renderTemplate,
  templateFields,
} from '../../classes/_platform/templates';

describe('renderTemplate', () => {
  test('substitutes {{parameter}}', () => {
    expect(renderTemplate('Hello {{ name }}, your code is {{code}}.', { name: 'Ann', code: '123456' }, 'text')).toBe(
      'Hello Ann, your code is 123456.',
    );
  });

  test('html mode escapes every value; text mode inserts it as it is', () => {
    const value = `<script>alert("x")</script> & 'q' / \`b\` =`;
    expect(renderTemplate('<p>{{v}}</p>', { v: value }, 'html')).toBe(
      '<p>&lt;script&gt;alert(&quot;x&quot;)&lt;&#x2F;script&gt; &amp; &#39;q&#39; &#x2F; &#x60;b&#x60; &#x3D;</p>',
    );
    expect(renderTemplate('Subject: {{v}}', { v: value }, 'text')).toBe(`Subject: ${value}`);
  });

  test('the template text itself is never escaped', () => {
    expect(renderTemplate('<a href="x?a=1&b=2">{{v}}</a>', { v: 'go' }, 'html')).toBe('<a href="x?a=1&b=2">go</a>');
  });

  test('sections show on a non-empty string and hide on an empty one', () => {
    const t = 'Dear {{name}}{{#middle}} {{middle}}{{/middle}}{{^middle}}!{{/middle}}';
    expect(renderTemplate(t, { name: 'Ann', middle: 'B' }, 'text')).toBe('Dear Ann B');
    expect(renderTemplate(t, { name: 'Ann', middle: '' }, 'text')).toBe('Dear Ann!');
  });

  test("Object.prototype's members are not parameters", () => {
    expect(renderTemplate('[{{constructor}}][{{toString}}]', { constructor: 'c', toString: 't' }, 'text')).toBe(
      '[c][t]',
    );
    expect(renderTemplate('[{{hasOwnProperty}}]', {}, 'text')).toBe('[]');
  });
});

describe('checkParameters and renderParts', () => {
  const parts = {
    subject: { template: 'Welcome {{name}}', mode: 'text' as const },
    html: { template: '<p>{{name}} joined {{company}}</p>', mode: 'html' as const },
  };

  test('renders every part with one set of parameters; unused parameters are ignored', () => {
    const r = renderParts(parts, { name: 'Tom & Jerry', company: 'ACME <HQ>', unused: 'x' });
    expect(r).toEqual({
      ok: true,
      rendered: { subject: 'Welcome Tom & Jerry', html: '<p>Tom &amp; Jerry joined ACME &lt;HQ&gt;</p>' },
    });
  });

  test('a parameter that is not a string is refused, naming the parameter', () => {
    const r = renderParts(parts, {
      name: 'Ann',
      company: 42,
      flag: true,
      list: ['a'],
      nothing: null,
      nested: { a: 'b' },
    });
    expect(r).toEqual({
      ok: false,
      reason: 'not_string',
      errors: [
        { field: 'parameters.company', reason: 'must be a string, got number' },
        { field: 'parameters.flag', reason: 'must be a string, got boolean' },
        { field: 'parameters.list', reason: 'must be a string, got array' },
        { field: 'parameters.nothing', reason: 'must be a string, got null' },
        { field: 'parameters.nested', reason: 'must be a string, got object' },
      ],
    });
  });

  test('parameters that are no map are refused', () => {
    expect(checkParameters('name=Ann', ['name'])).toMatchObject({
      ok: false,
      reason: 'not_string',
      errors: [{ field: 'parameters' }],
    });
    expect(checkParameters(['Ann'], ['name'])).toMatchObject({
      ok: false,
      reason: 'not_string',
      errors: [{ field: 'parameters' }],
    });
  });

  test('names a template uses that the call lacks are refused, every one listed', () => {
    const r = renderParts(parts, { other: 'x' });
    expect(r).toEqual({
      ok: false,
      reason: 'missing',
      missing: ['name', 'company'],
      errors: [
        { field: 'parameters.name', reason: 'is used by the template but was not given' },
        { field: 'parameters.company', reason: 'is used by the template but was not given' },
      ],
    });
    // no parameters at all
    expect(checkParameters(undefined, ['a'])).toMatchObject({ ok: false, reason: 'missing', missing: ['a'] });
    // an inherited name is not a given one
    expect(checkParameters({}, ['toString'])).toMatchObject({ ok: false, reason: 'missing', missing: ['toString'] });
  });

  test('an empty string is a given parameter', () => {
    expect(renderParts(parts, { name: '', company: '' })).toEqual({
      ok: true,
      rendered: { subject: 'Welcome ', html: '<p> joined </p>' },
    });
  });

  test('a template without tags needs no parameters', () => {
    expect(renderParts({ s: { template: 'Plain', mode: 'text' } }, undefined)).toEqual({
      ok: true,
      rendered: { s: 'Plain' },
    });
  });
});

describe('templateFields', () => {
  test("lists every name a template uses, from mustache's parser, in order of first use", () => {
    const t =
      '{{! a comment }}Hi {{name}}, {{#vip}}level {{level}}{{/vip}}{{^vip}}{{name}}{{/vip}} {{{raw}}} {{&amp}} {{#list}}{{.}}{{/list}}';
    expect(templateFields(t)).toEqual(['name', 'vip', 'level', 'raw', 'amp', 'list']);
  });

  test('changed delimiters are followed', () => {
    expect(templateFields('{{=<% %>=}}Hi <% name %> and {{not}}')).toEqual(['name']);
  });

  test('a template without tags uses nothing; fieldsOf merges several', () => {
    expect(templateFields('<p>Hello</p>')).toEqual([]);
    expect(fieldsOf(['{{a}} {{b}}', '{{b}} {{c}}'])).toEqual(['a', 'b', 'c']);
  });

  test('agrees with Mustache.parse on what is a tag', () => {
    const t = 'x {{a}} {{{b}}} {{#c}}{{d}}{{/c}}';
    const names = (Mustache.parse(t) as unknown as unknown[][]).filter((tok) => tok[0] !== 'text').map((tok) => tok[1]);
    expect(names).toEqual(['a', 'b', 'c']);
    expect(templateFields(t)).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('checkTemplate', () => {
  test('a plain template passes', () => {
    expect(checkTemplate('<p>Hi {{name}} {{#x}}{{y}}{{/x}}</p>', 'html', 'html')).toEqual([]);
    expect(checkTemplate('Hi {{{name}}}', 'text', 'subject')).toEqual([]);
  });

  test('a template mustache cannot parse is refused with its reason', () => {
    expect(checkTemplate('Hi {{#open}}', 'html', 'html')).toEqual([
      { field: 'html', reason: expect.stringMatching(/^is not a valid mustache template: Unclosed section "open"/) },
    ]);
    expect(checkTemplate('Hi {{name', 'text', 'subject')).toEqual([
      { field: 'subject', reason: expect.stringMatching(/^is not a valid mustache template: Unclosed tag/) },
    ]);
  });

  test('html templates may not insert values unescaped', () => {
    expect(checkTemplate('<p>{{{a}}}</p>', 'html', 'html')).toEqual([
      { field: 'html', reason: expect.stringContaining('unescaped') },
    ]);
    expect(checkTemplate('<p>{{&a}}</p>', 'html', 'html')).toEqual([
      { field: 'html', reason: expect.stringContaining('unescaped') },
    ]);
  });

  test('no partials, no dotted names', () => {
    expect(checkTemplate('{{> footer}}', 'text', 'subject')).toEqual([
      { field: 'subject', reason: expect.stringContaining('partial') },
    ]);
    expect(checkTemplate('{{user.name}}', 'text', 'subject')).toEqual([
      { field: 'subject', reason: expect.stringContaining("'user.name'") },
    ]);
  });
});

test('parsed templates are cached in a bounded cache', () => {
  const cache = Mustache.templateCache as unknown as { get(k: string): unknown };
  for (let i = 0; i <= MAX_CACHED_TEMPLATES; i++) templateFields(`{{p${i}}}`);
  const key = (i: number) => `{{p${i}}}:{{:}}`;
  expect(cache.get(key(0))).toBeUndefined();
  expect(cache.get(key(MAX_CACHED_TEMPLATES))).toBeDefined();
});
