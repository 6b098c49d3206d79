/**
 * The examples of the input schemas (what Swagger UI's "Try it out" starts
 * from, and what a reader of the document copies): every input schema has
 * one, every example passes its schema under the runtime's own ajv, and sent
 * over HTTP to a runtime serving the service's classes on the example program
 * (examples/seed.json), as a caller each method admits, none is refused by
 * validation (a domain error, an unknown instance or a refusal of the
 * example's made-up token is fine: the input was accepted). The answers of
 * those calls that succeed are checked against the methods' answer schemas
 * too, so this file also keeps the answer schemas truthful for every method
 * an example reaches.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { answerValidator } from '../../runtime/actor/answers';
import type { RegisteredMethod } from '../../runtime/actor/registry';
import type { IdentityType } from '../../runtime/types/identity';
import { createAjv } from '../../runtime/actor/validation';
import { projectRoot } from '../../runtime/config';
import { runtimeError, type ActorError } from '../../runtime/errors';
import { TEST_API_KEY, startTestRuntime, waitFor, type TestRuntime } from '../support/harness';
import { EXAMPLE_SEED, seedExample } from '../support/seed-example';

const ROOT = projectRoot();
const SCHEMAS = path.join(ROOT, 'schemas');

type Json = Record<string, any>;

/** every input schema file: schemas/<Class>/<name>.json but the answer schemas */
function inputSchemas(): { cls: string; name: string; schema: Json }[] {
  const out: { cls: string; name: string; schema: Json }[] = [];
  for (const cls of fs.readdirSync(SCHEMAS).sort()) {
    const dir = path.join(SCHEMAS, cls);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const file of fs.readdirSync(dir).sort()) {
      if (!file.endsWith('.json') || file.endsWith('.answer.json')) continue;
      out.push({
        cls,
        name: file.slice(0, -'.json'.length),
        schema: JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Json,
      });
    }
  }
  return out;
}

describe('input schema examples', () => {
  const ajv = createAjv();
  const compile = (schema: Json) => {
    const { $id: _id, ...rest } = schema;
    return ajv.compile(rest);
  };

  it('every input schema has an example, and every example passes its schema', () => {
    const schemas = inputSchemas();
    expect(schemas.length).toBeGreaterThan(200);
    const problems: string[] = [];
    for (const { cls, name, schema } of schemas) {
      if (!Array.isArray(schema.examples) || schema.examples.length === 0) {
        problems.push(`${cls}/${name}: no examples`);
        continue;
      }
      const check = compile(schema);
      schema.examples.forEach((ex: unknown, i: number) => {
        if (!check(ex)) problems.push(`${cls}/${name} example ${i}: ${JSON.stringify(check.errors)}`);
      });
    }
    const fix = 'give the schema a valid `examples` entry (`npx tsx scripts/input-examples.ts --write` builds one)';
    expect({ fix: problems.length ? fix : 'none', problems }).toEqual({ fix: 'none', problems: [] });
  });

  it('an example the schema refuses is seen (the check can fail)', () => {
    const { schema } = inputSchemas().find((s) => s.cls === 'Member' && s.name === 'hrUpdateEmployee')!;
    const check = compile(schema);
    expect(check(schema.examples[0])).toBe(true);
    expect(check({ ...schema.examples[0], email: 'not-an-email' })).toBe(false);
    const { employeeId: _gone, ...withoutId } = schema.examples[0];
    expect(check(withoutId)).toBe(false);
  });
});

// ---------------------------------------------------------------- over HTTP

const MEMBER_ID = EXAMPLE_SEED.members![0]!.id as string;

/** the instance an example is sent to: the example program's record of the class, or its singleton */
const INSTANCE: Record<string, string> = {
  Member: MEMBER_ID,
  UserNotification: `M${MEMBER_ID}`,
  Tier: EXAMPLE_SEED.tiers![0]!.id as string,
  Partner: EXAMPLE_SEED.partners![0]!.id as string,
  PartnerUser: EXAMPLE_SEED.partnerUsers![0]!.id as string,
  Workflow: 'Member',
};

/**
 * Methods whose example is not sent: they ask the HR system (none runs
 * here, so each would wait out its client's time-outs) — their examples are
 * still checked against their schemas above.
 */
const NOT_SENT = new Set(['Member.registerFromHr', 'Member.checkRegistrationFromHr']);

describe('examples sent to the service', () => {
  let t: TestRuntime;
  let headersFor: (m: RegisteredMethod) => Record<string, string> | undefined;

  beforeAll(async () => {
    t = await startTestRuntime({ env: { CLASS_DIRS: path.join(ROOT, 'classes'), SCHEMA_DIRS: 'schemas' } });
    await seedExample(t);
    const pm = { authorization: `Bearer ${t.token('program_management_user', 'pm-examples', ['super'])}` };
    const tokens: Partial<Record<IdentityType | 'public', Record<string, string>>> = {
      program_management_user: pm,
      integration_user: { 'x-api-key': TEST_API_KEY },
      enduser: { authorization: `Bearer ${t.token('enduser', MEMBER_ID)}` },
      member_otp: { authorization: `Bearer ${t.token('member_otp', MEMBER_ID)}` },
      public: {},
    };
    // the first identity the method admits that an HTTP caller can have (class-only methods: none)
    headersFor = (m) => {
      for (const a of ['program_management_user', 'integration_user', 'enduser', 'member_otp', 'public'] as const)
        if (m.options.access.includes(a)) return tokens[a];
      return undefined;
    };
    // the listings read the projection: the seed's records are there before the examples change them
    await waitFor(
      async () => ((await t.rt.call('Member', 'listMembers', undefined, {})).body as any)?.members?.length >= 1,
      { what: 'members projected' },
    );
  }, 60_000);
  afterAll(() => t?.stop());

  it('none is refused by validation; the answers of those that succeed match their answer schemas', async () => {
    const sent: string[] = [];
    const refused: unknown[] = [];
    const answered: string[] = [];
    const wrong: unknown[] = [];
    const methods = t.rt.registry
      .list()
      .flatMap((cls) => [...cls.methodsByName.values()].map((m) => ({ cls, m })))
      .filter(
        ({ cls, m }) => m.kind !== 'INTERNAL' && !NOT_SENT.has(`${cls.id}.${m.name}`) && headersFor(m) && m.validate,
      )
      // reads first, on the example program as seeded; then what changes it
      .sort((a, b) => Number(a.m.kind !== 'READ') - Number(b.m.kind !== 'READ'));
    for (const { cls, m } of methods) {
      const schema = m.validate!.schema as Json;
      const example = schema.examples?.[0];
      const withInstance = m.kind !== 'STATIC' && m.kind !== 'INIT';
      const url = `/${t.projectId}/CALL/${cls.id}/${m.name}${withInstance ? `/${INSTANCE[cls.id] ?? 'default'}` : ''}`;
      const res = await t.post(url, example, headersFor(m));
      const key = `${cls.id}.${m.name}`;
      sent.push(key);
      // what a refused input answers: the platform's VALIDATION, or the method's own envelope of it
      const validation = runtimeError('VALIDATION', 'x', { errors: [] });
      const shaped = (m.options.errorShape ? m.options.errorShape(validation) : validation) as ActorError;
      if (res.status === shaped.status && (res.body?.code ?? res.body?.error?.code) === shaped.code)
        refused.push({ key, example, body: res.body });
      if (res.status >= 200 && res.status < 300 && m.answer && !m.answer.contentType) {
        const check = answerValidator(cls.id, m.answer);
        const body = res.status === 204 ? null : res.body;
        if (!check(body))
          wrong.push({
            key,
            status: res.status,
            errors: check.errors?.slice(0, 5),
            body: JSON.stringify(body).slice(0, 600),
          });
        if (!m.answer.statuses.includes(res.status))
          wrong.push({ key, status: res.status, declared: m.answer.statuses });
        answered.push(key);
      }
    }
    expect(refused).toEqual([]);
    expect(wrong).toEqual([]);
    expect(sent.length).toBeGreaterThan(150);
    // the examples use the example program's ids: many of them are answered, and their answers checked
    expect(answered.length).toBeGreaterThan(60);
  }, 120_000);

  it('a refused example would be seen (the check can fail)', async () => {
    const res = await t.post(
      '/members/hr/employee',
      {
        ...JSON.parse(fs.readFileSync(path.join(ROOT, 'clients/example-employee.json'), 'utf8')),
        birthdate: '0311-89-48',
      },
      { 'x-api-key': TEST_API_KEY },
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(10001);
  });
});
