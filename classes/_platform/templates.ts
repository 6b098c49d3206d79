/**
 * Message templates (spec 1 rule 6: "Email, in-app and SMS notifications are
 * rendered from templates with {{parameter}} substitution"), on mustache.
 *
 *   const problems = checkTemplate(template.html, 'html', 'html');     // at save: [] or [{field, reason}]
 *   const fields = templateFields(template.subject);                   // ['firstName', 'otp']
 *   const r = renderParts({ subject: { template: t.subject, mode: 'text' },
 *                           html: { template: t.html, mode: 'html' } }, body.parameters);
 *   if (!r.ok) throw classError(r.reason === 'missing' ? 'MISSING' : 'NOT_STRING', ..., { errors: r.errors });
 *   r.rendered.subject, r.rendered.html
 *
 * Rules:
 *  - Parameters are a flat map of strings. A value of any other type is
 *    refused, naming the parameter (`parameters.<name>`). A parameter a
 *    template uses (any tag: `{{x}}`, `{{{x}}}`, `{{&x}}`, `{{#x}}`, `{{^x}}`)
 *    that the call lacks is refused too, listing every missing name.
 *    Parameters no template uses are ignored.
 *  - `html` mode escapes every value (mustache's HTML escape: & < > " ' / ` =);
 *    `text` mode (subjects, plain text, SMS) inserts values as they are.
 *  - checkTemplate, for templates being saved: mustache must parse it; no
 *    partials (`{{> x}}`: there are none to include); parameter names are
 *    plain names (letters, digits, `_`, `-`; no dotted paths, since values
 *    are flat strings); and in `html` mode no unescaped tags (`{{{x}}}`,
 *    `{{&x}}`), so a value can never inject markup into a mail.
 *  - templateFields lists the names a template uses, from mustache's own
 *    parser (Mustache.parse), in order of first use, without duplicates;
 *    `{{.}}` (the current section value) is no parameter.
 *
 * Values are looked up in a null-prototype copy of the parameters: a template
 * using `{{constructor}}` or `{{toString}}` needs a parameter of that name
 * like any other, never finds Object.prototype's.
 *
 * Mustache caches parsed templates in an unbounded map by default; this module
 * gives it a bounded one (MAX_CACHED_TEMPLATES, oldest dropped first), since
 * every template update is a new cache key.
 */
import Mustache from 'mustache';
import { LRUCache } from 'lru-cache';

export type TemplateMode = 'html' | 'text';

export interface TemplateProblem {
  field: string;
  reason: string;
}

/** A parsed template is a list of mustache tokens: [type, value, start, end, children?, ...]. */
type Token = [string, string, number, number, ...unknown[]];

export const MAX_CACHED_TEMPLATES = 500;

// mustache keeps every template it parsed; templates are written by users, so the parsed ones are bounded
Mustache.templateCache = new LRUCache<string, string>({ max: MAX_CACHED_TEMPLATES });

/** tags whose value is a parameter name */
const NAME_TAGS = new Set(['name', '&', '#', '^']);
/** a parameter name as templates may use it */
const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,99}$/;
/** mustache's name for the current section value */
const CURRENT = '.';

function parse(template: string): Token[] {
  return Mustache.parse(template);
}

function walk(tokens: Token[], visit: (token: Token) => void): void {
  for (const token of tokens) {
    visit(token);
    const children = token[4];
    if ((token[0] === '#' || token[0] === '^') && Array.isArray(children)) walk(children as Token[], visit);
  }
}

/**
 * The parameter names a template uses, in order of first use (mustache's
 * parser). Throws mustache's error when the template does not parse (use
 * checkTemplate first for a {field, reason}).
 */
export function templateFields(template: string): string[] {
  const names: string[] = [];
  const seen = new Set<string>();
  walk(parse(template), (token) => {
    const [type, name] = token;
    if (!NAME_TAGS.has(type) || name === CURRENT || seen.has(name)) return;
    seen.add(name);
    names.push(name);
  });
  return names;
}

/** The names used by several templates, in order of first use. */
export function fieldsOf(templates: readonly string[]): string[] {
  return [...new Set(templates.flatMap((t) => templateFields(t)))];
}

/** Problems of a template about to be saved (see the module comment); `field` names it in each problem. */
export function checkTemplate(template: string, mode: TemplateMode, field: string): TemplateProblem[] {
  let tokens: Token[];
  try {
    tokens = parse(template);
  } catch (err) {
    return [{ field, reason: `is not a valid mustache template: ${(err as Error).message}` }];
  }
  const problems: TemplateProblem[] = [];
  const seen = new Set<string>();
  const once = (reason: string) => {
    if (seen.has(reason)) return;
    seen.add(reason);
    problems.push({ field, reason });
  };
  walk(tokens, (token) => {
    const [type, name] = token;
    if (type === '>') once(`uses the partial {{> ${name}}}; templates cannot include partials`);
    if (mode === 'html' && type === '&')
      once(
        `inserts {{${name}}} unescaped ({{{${name}}}} or {{&${name}}}); html templates escape every value, write {{${name}}}`,
      );
    if (NAME_TAGS.has(type) && name !== CURRENT && !PARAMETER_NAME.test(name)) {
      once(`uses the parameter name '${name}'; names are letters, digits, _ and - (at most 100, no dots)`);
    }
  });
  return problems;
}

export type ParametersCheck =
  | { ok: true; parameters: Record<string, string> }
  /** a value (or the map itself) is not a string (map) */
  | { ok: false; reason: 'not_string'; errors: TemplateProblem[] }
  /** names the templates use that the call lacks */
  | { ok: false; reason: 'missing'; missing: string[]; errors: TemplateProblem[] };

/**
 * Pure: the parameters of a call against the names its templates use.
 * Undefined or null parameters count as none. The answer's map has no prototype.
 */
export function checkParameters(parameters: unknown, needed: readonly string[]): ParametersCheck {
  const given = parameters ?? {};
  if (typeof given !== 'object' || Array.isArray(given)) {
    return {
      ok: false,
      reason: 'not_string',
      errors: [{ field: 'parameters', reason: 'must be an object whose values are strings' }],
    };
  }
  const view = Object.create(null) as Record<string, string>;
  const errors: TemplateProblem[] = [];
  for (const [name, value] of Object.entries(given)) {
    if (typeof value !== 'string')
      errors.push({
        field: `parameters.${name}`,
        reason: `must be a string, got ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}`,
      });
    else view[name] = value;
  }
  if (errors.length) return { ok: false, reason: 'not_string', errors };
  const missing = needed.filter((name) => !Object.prototype.hasOwnProperty.call(view, name));
  if (missing.length) {
    return {
      ok: false,
      reason: 'missing',
      missing,
      errors: missing.map((name) => ({
        field: `parameters.${name}`,
        reason: 'is used by the template but was not given',
      })),
    };
  }
  return { ok: true, parameters: view };
}

const AS_IS = { escape: (value: unknown) => String(value) };

/**
 * Renders one template with checked parameters (checkParameters' map): values
 * HTML-escaped in `html` mode, as they are in `text` mode. Partials render empty.
 */
export function renderTemplate(
  template: string,
  parameters: Readonly<Record<string, string>>,
  mode: TemplateMode,
): string {
  const view = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(parameters)) view[k] = v;
  return mode === 'html' ? Mustache.render(template, view, {}) : Mustache.render(template, view, {}, AS_IS);
}

export type RenderResult<K extends string> =
  { ok: true; rendered: Record<K, string> } | Exclude<ParametersCheck, { ok: true }>;

/**
 * Renders the parts of one message (subject, html, text, ...) with one set of
 * parameters: every parameter a string, every name any part uses given.
 */
export function renderParts<K extends string>(
  parts: Record<K, { template: string; mode: TemplateMode }>,
  parameters: unknown,
): RenderResult<K> {
  const keys = Object.keys(parts) as K[];
  const check = checkParameters(parameters, fieldsOf(keys.map((k) => parts[k].template)));
  if (!check.ok) return check;
  const rendered = {} as Record<K, string>;
  for (const k of keys) rendered[k] = renderTemplate(parts[k].template, check.parameters, parts[k].mode);
  return { ok: true, rendered };
}
