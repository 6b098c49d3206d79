/**
 * `npx tsx scripts/input-examples.ts [--write]`: gives every input schema
 * (`schemas/<Class>/<method>.json`) without `examples` one valid example,
 * built from the schema (formats, patterns, bounds, enums) with values of the
 * example program (examples/seed.json: its member, company, tier, partner and
 * venue ids), so that Swagger UI's "Try it out" starts from a body the method
 * accepts and, on the quick start's service, often one it answers with data.
 * Each example is checked with the runtime's ajv before it is written; the
 * schemas it cannot satisfy are listed, to be given one by hand.
 * test/runtime/openapi-examples.test.ts checks every example.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createAjv } from '../runtime/actor/validation';

/** the parts of a JSON Schema this script reads (a schema may also be `true`: see sample) */
interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  multipleOf?: number;
  minItems?: number;
  uniqueItems?: boolean;
  items?: Schema;
  prefixItems?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  minProperties?: number;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  examples?: unknown[];
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  [keyword: string]: unknown;
}

/** the records of examples/seed.json whose ids the examples use */
type Records = { id: string }[];
interface Seed {
  members: { id: string; staffId: string }[];
  companies: Records;
  tiers: Records;
  tierTypes: Records;
  partners: Records;
  venues: Records;
  memberTypes: Records;
  memberSubTypes: Records;
  companyGroups: Records;
  partnerUsers: Records;
}

const ROOT = path.resolve(__dirname, '..');
const SEED = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples/seed.json'), 'utf8')) as Seed;
const MEMBER = SEED.members[0];

/** values by property name: the seed's ids where the name says which */
const BY_NAME: Record<string, unknown> = {
  memberId: MEMBER.id,
  staffId: MEMBER.staffId,
  employeeId: MEMBER.staffId,
  companyId: SEED.companies[0].id,
  company: SEED.companies[0].id,
  tierId: SEED.tiers[0].id,
  sourceTierId: SEED.tiers[0].id,
  tierTypeId: SEED.tierTypes[0].id,
  partnerId: SEED.partners[0].id,
  venueId: SEED.venues[0].id,
  memberType: SEED.memberTypes[0].id,
  memberTypeId: SEED.memberTypes[0].id,
  memberSubType: SEED.memberSubTypes[1].id,
  memberSubTypeId: SEED.memberSubTypes[1].id,
  companyGroupId: SEED.companyGroups[0].id,
  userId: SEED.partnerUsers[0].id,
  name: 'Amal',
  firstName: 'Amal',
  middleName: null,
  surname: 'Haddad',
  lastName: 'Haddad',
  fullName: 'Amal Haddad',
  email: 'amal.haddad@acme.example',
  phone: '+971500000001',
  contactPhone: '+971500000101',
  birthdate: '1990-05-01',
  birthDate: '1990-05-01',
  country: 'AE',
  city: 'Dubai',
  gender: 'F',
  grade: 'G7',
  password: 'Example-Passw0rd!2026',
  newPassword: 'Example-Passw0rd!2027',
  currentPassword: 'Example-Passw0rd!2026',
  otp: '123456',
  code: '123456',
  description: 'An example description',
  title: 'Example title',
  legalName: 'Sunrise Hospitality LLC',
  brandName: 'Sunrise',
  venueName: 'Sunrise Marina',
  address: '2 Marina Walk, Dubai',
  website: 'https://sunrise.example',
  url: 'https://sunrise.example',
  startDate: '2026-01-01T00:00:00.000Z',
  endDate: '2026-12-31T23:59:59.000Z',
  reason: 'An example reason',
  note: 'An example note',
  reviewNote: 'Looks right',
  search: 'Amal',
  page: 1,
  limit: 10,
  status: 'active',
  token: 'example-token',
  content: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  image: 'https://cdn.sunrise.example/offer.jpg',
  photo: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  mimeType: 'image/png',
  originalFilename: 'photo.png',
  filename: 'photo.png',
  fileExtension: 'png',
  paymentPeriod: 'monthly',
  partnerTier: 'gold',
  relation: 'son',
  hrmsMapping: 'son',
  systemIdentifier: 'Permanent',
  role: 'super',
  eligibleMemberType: SEED.memberTypes[0].id,
  classId: 'Member',
  latitude: 25.0805,
  longitude: 55.1403,
  expireTimeInSeconds: 300,
  order: 1,
  contractStartDate: '2026-01-01',
  contractEndDate: '2026-12-31',
  SAMLResponse: 'PHNhbWxwOlJlc3BvbnNlLz4=',
};

/** a body's own `name`, by class (a member's is the seed member's) */
const ROOT_NAMES: Record<string, string> = {
  Tier: 'Gold 2026',
  RoleManager: 'Support agents',
  BenefitCategory: 'Dining',
  Company: 'Example Airways',
  Setting: 'Example group',
  ProgramManagementUser: 'Hana Rahman',
};

/** an `id` inside these properties names one of the seed's records */
const ID_IN: Record<string, string> = {
  tierType: SEED.tierTypes[0].id,
  company: SEED.companies[0].id,
  tier: SEED.tiers[0].id,
  partner: SEED.partners[0].id,
};

/** a body's own `id`: a new one for a create, else the record of the class the seed has */
function rootId(cls: string, method: string): string {
  if (/^create|^init$/.test(method)) return `example-${cls.toLowerCase()}-2`;
  const seeded: Record<string, string> = {
    Company: SEED.companies[0].id,
    Setting: SEED.companyGroups[0].id,
    RoleManager: 'super',
  };
  return seeded[cls] ?? `example-${cls.toLowerCase()}`;
}

/** does a guessed value fit the format the schema names (the formats the schemas use) */
function formatFits(format: string | undefined, v: string): boolean {
  if (!format) return true;
  if (format === 'date') return /^\d{4}-\d{2}-\d{2}$/.test(v);
  if (format === 'date-time' || format === 'iso-date-time') return /^\d{4}-\d{2}-\d{2}T/.test(v);
  if (format === 'email') return /^[^@\s]+@[^@\s]+\.[a-z]+$/.test(v);
  if (format === 'uri' || format === 'url') return /^https?:\/\//.test(v);
  return false;
}

/** strings to try, in order, when a pattern refuses the first guess */
const CANDIDATES = [
  'example',
  'example-1',
  'E1001',
  'acme',
  'Example',
  'ex1',
  'a',
  'A1',
  '2026-03-01',
  '2026-03-01T09:00:00Z',
  'https://example.com/x',
  '+971500000001',
  'example.png',
  'png',
  'ACTIVE',
  'example@acme.example',
  'x.y',
  '12345',
  ' ',
];

function resolve(schema: Schema, root: Schema): Schema {
  let s = schema;
  for (let i = 0; i < 10 && typeof s?.$ref === 'string' && s.$ref.startsWith('#/'); i++) {
    const target = s.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')],
        root,
      ) as Schema | undefined;
    s = { ...target, ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$ref')) };
  }
  return s;
}

function fitString(s: Schema, name: string): string {
  const fits = (v: string) =>
    (s.minLength === undefined || v.length >= s.minLength) &&
    (s.maxLength === undefined || v.length <= s.maxLength) &&
    (!s.pattern || new RegExp(s.pattern, 'u').test(v));
  const byFormat: Record<string, string> = {
    email: 'amal.haddad@acme.example',
    date: '2026-03-01',
    'date-time': '2026-03-01T09:00:00.000Z',
    'iso-date-time': '2026-03-01T09:00:00.000Z',
    uri: 'https://example.com',
    url: 'https://example.com',
    uuid: '3f0c3a52-5d8e-4f4e-9a55-0c1b2f3d4e99',
    time: '09:00:00Z',
  };
  const guesses: unknown[] = [];
  if (name in BY_NAME && typeof BY_NAME[name] === 'string' && formatFits(s.format, BY_NAME[name]))
    guesses.push(BY_NAME[name]);
  if (s.format && byFormat[s.format]) guesses.push(byFormat[s.format]);
  if (/Id$/.test(name)) guesses.push(`example-${name.replace(/Id$/, '').toLowerCase()}`);
  if (/date$/i.test(name)) guesses.push('2026-03-01');
  if (/At$/.test(name)) guesses.push('2026-03-01T09:00:00.000Z');
  if (/email/i.test(name)) guesses.push('amal.haddad@acme.example');
  if (/url$/i.test(name)) guesses.push('https://example.com');
  if (/phone/i.test(name)) guesses.push('+971500000001');
  if (/name$/i.test(name)) guesses.push('Example name');
  guesses.push(name || 'example', ...CANDIDATES);
  for (const g of guesses) if (typeof g === 'string' && fits(g)) return g;
  // stretch or cut the first candidate to the bounds
  let v = 'example';
  if (s.minLength && v.length < s.minLength) v = v.padEnd(s.minLength, 'x');
  if (s.maxLength && v.length > s.maxLength) v = v.slice(0, s.maxLength);
  return v;
}

function numberFor(s: Schema, name: string): number {
  if (typeof BY_NAME[name] === 'number') {
    const v = BY_NAME[name];
    if ((s.minimum === undefined || v >= s.minimum) && (s.maximum === undefined || v <= s.maximum)) return v;
  }
  const inRange = (x: number) =>
    (s.minimum === undefined || x >= s.minimum) &&
    (s.maximum === undefined || x <= s.maximum) &&
    (s.exclusiveMinimum === undefined || x > s.exclusiveMinimum);
  let v = inRange(1) ? 1 : (s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1));
  if (s.maximum !== undefined && v > s.maximum) v = s.maximum;
  if (s.multipleOf) v = Math.ceil(v / s.multipleOf) * s.multipleOf;
  return v;
}

type Mode = 'all' | 'required';

interface Where {
  cls: string;
  method: string;
  parent: string;
}

function sample(
  schema: Schema,
  root: Schema,
  name: string,
  mode: Mode,
  depth = 0,
  where: Where = { cls: '', method: '', parent: '' },
): unknown {
  const s = resolve(schema, root);
  if (depth === 1 && name === 'name' && ROOT_NAMES[where.cls] && (s.type === 'string' || s.type?.includes?.('string')))
    return ROOT_NAMES[where.cls];
  if (
    name === 'id' &&
    (s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'))) &&
    !s.enum &&
    !('const' in s)
  ) {
    const v = depth === 1 ? rootId(where.cls, where.method) : (ID_IN[where.parent] ?? 'example-1');
    if ((!s.pattern || new RegExp(s.pattern, 'u').test(v)) && (!s.maxLength || v.length <= s.maxLength)) return v;
  }
  if (s === undefined || s === null || (s as unknown) === true) return 'example';
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum.find((v: unknown) => v !== null) ?? s.enum[0];
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.allOf))
    return sample(
      Object.assign({}, ...s.allOf.map((x) => resolve(x, root)), { ...s, allOf: undefined }) as Schema,
      root,
      name,
      mode,
      depth,
      where,
    );
  for (const k of ['oneOf', 'anyOf'] as const) {
    const branches = s[k];
    if (Array.isArray(branches)) {
      const branch = branches.map((x) => resolve(x, root)).find((x) => x.type !== 'null') ?? branches[0];
      const { [k]: _drop, ...rest } = s;
      return sample({ ...rest, ...branch }, root, name, mode, depth, where);
    }
  }
  let type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? 'null') : s.type;
  if (!type) type = s.properties ? 'object' : s.items ? 'array' : 'string';
  if (depth > 8) return type === 'object' ? {} : type === 'array' ? [] : 'example';
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return name in BY_NAME ? BY_NAME[name] : false;
    case 'integer':
    case 'number':
      return numberFor(s, name);
    case 'string':
      return fitString(s, name);
    case 'array': {
      const n = Math.max(1, s.minItems ?? 1);
      const items = Array.isArray(s.prefixItems) ? s.prefixItems : Array.from({ length: n }, () => s.items ?? {});
      const singular = name.replace(/ies$/, 'y').replace(/s$/, '');
      return items.map((it, i) => {
        const v = sample(it, root, singular, mode, depth + 1, { ...where, parent: name });
        return typeof v === 'string' && i > 0 && s.uniqueItems ? `${v}-${i + 1}` : v;
      });
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = s.properties ?? {};
      const required = s.required ?? [];
      for (const [k, p] of Object.entries(props)) {
        if (mode === 'required' && !required.includes(k)) continue;
        out[k] = sample(p, root, k, mode, depth + 1, { ...where, parent: name });
      }
      for (const k of required) if (!(k in out)) out[k] = 'example';
      // at least minProperties
      if (s.minProperties && Object.keys(out).length < s.minProperties) {
        for (const [k, p] of Object.entries(props)) {
          if (Object.keys(out).length >= s.minProperties) break;
          if (!(k in out)) out[k] = sample(p, root, k, 'required', depth + 1, { ...where, parent: name });
        }
      }
      return out;
    }
    default:
      return 'example';
  }
}

function main(): void {
  const write = process.argv.includes('--write');
  const ajv = createAjv();
  const failed: string[] = [];
  let wrote = 0;
  for (const cls of fs.readdirSync(path.join(ROOT, 'schemas')).sort()) {
    if (!fs.statSync(path.join(ROOT, 'schemas', cls)).isDirectory()) continue;
    const dir = path.join(ROOT, 'schemas', cls);
    for (const file of fs.readdirSync(dir).sort()) {
      if (!file.endsWith('.json') || file.endsWith('.answer.json')) continue;
      const full = path.join(dir, file);
      const schema = JSON.parse(fs.readFileSync(full, 'utf8')) as Schema;
      if (Array.isArray(schema.examples) && schema.examples.length) continue;
      const { $id: _id, ...compiled } = schema;
      const check = ajv.compile(compiled);
      const name = file.replace(/\.json$/, '');
      const where = { cls, method: name, parent: '' };
      const value = (['all', 'required'] as const)
        .map((mode) => sample(schema, schema, '', mode, 0, where))
        .find((v) => check(v));
      if (value === undefined) {
        check(sample(schema, schema, '', 'required', 0, where));
        failed.push(`${cls}/${name}: ${JSON.stringify(check.errors?.slice(0, 3))}`);
        continue;
      }
      wrote++;
      if (write) {
        // inserted into the text, before the top-level properties (else first), so the file keeps its own layout
        const text = fs.readFileSync(full, 'utf8');
        const indent = /\n(\s+)"/.exec(text)?.[1] ?? '  ';
        const entry = `${indent}"examples": ${JSON.stringify([value], null, 2).replace(/\n/g, `\n${indent}`)},\n`;
        const at = text.search(new RegExp(`\\n${indent}"properties":`));
        const next =
          at >= 0 ? text.slice(0, at + 1) + entry + text.slice(at + 1) : text.replace(/^\{\n/, `{\n${entry}`);
        JSON.parse(next);
        fs.writeFileSync(full, next);
      } else console.log(`${cls}/${name}: ${JSON.stringify(value)}`);
    }
  }
  console.error(
    `${wrote} examples${write ? ' written' : ''}; ${failed.length} schemas need one by hand:\n${failed.join('\n')}`,
  );
}

main();
