/**
 * Answer schemas (MethodOptions.answer): the registry reads them with the
 * sibling files they refer to, the OpenAPI document shows them as the methods'
 * successful responses, and the real answers of the service's classes match
 * them: the HR endpoints and the main reads are called here (on the example
 * program of examples/seed.json) and their answers checked (answerValidator,
 * test-only); openapi-answers-flows, -sign-in and openapi-examples check the
 * other methods'.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ActorClass, Read, Write, type Ctx } from '../../runtime';
import { answerValidator } from '../../runtime/actor/answers';
import { classDefOf } from '../../runtime/actor/decorators';
import { ClassRegistry } from '../../runtime/actor/registry';
import { projectRoot } from '../../runtime/config';
import { buildOpenApi } from '../../runtime/http/openapi';
import { TEST_API_KEY, startTestRuntime, waitFor, type TestRuntime } from '../support/harness';
import { EXAMPLE_SEED, exampleEmployee as employee, seedExample } from '../support/seed-example';

const ROOT = projectRoot();

// ---------------------------------------------------------------- the mechanism, on fixture classes

@ActorClass({ id: 'Gadget' })
class Gadget {
  // schema: false: the fixture reads no input
  @Read({ access: ['class'], schema: false, answer: 'look.answer' })
  look() {
    return { colour: 'red' };
  }

  @Write({
    access: ['class'],
    schema: false,
    answer: { type: 'object', required: ['ok'], properties: { ok: { const: true } } },
    answerStatuses: [200, 201],
  })
  paint(ctx: Ctx) {
    return { ok: ctx.request.body !== undefined };
  }
}

@ActorClass({ id: 'Gadget' })
class GadgetByConvention {
  // schema: false: the fixtures read no input; their answers are found by name (<method>.answer.json)
  @Read({ access: ['class'], schema: false })
  look() {
    return { colour: 'red' };
  }

  @Write({ access: ['class'], schema: false })
  remove(ctx: Ctx) {
    ctx.response.status = 204;
    return null;
  }

  @Read({ access: ['class'], schema: false })
  download() {
    return 'bytes';
  }

  @Read({ access: ['class'], schema: false })
  unanswered() {
    return {};
  }
}

@ActorClass({ id: 'Gadget' })
class GadgetBadStatuses {
  @Read({ access: ['class'], schema: false })
  broken() {
    return {};
  }
}

@ActorClass({ id: 'Gadget' })
class GadgetMissingAnswer {
  // schema: false: the fixture reads no input
  @Read({ access: ['class'], schema: false, answer: 'nowhere.answer' })
  look() {
    return {};
  }
}

describe('answer schemas: the registry and the document', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'answers-'));
    fs.mkdirSync(path.join(dir, 'Gadget'));
    const write = (name: string, schema: object) =>
      fs.writeFileSync(path.join(dir, 'Gadget', name), JSON.stringify(schema));
    write('look.answer.json', {
      type: 'object',
      required: ['colour'],
      properties: { colour: { $ref: 'shared.answer.json#/$defs/colour' } },
    });
    write('shared.answer.json', { $defs: { colour: { enum: ['red', 'green'] } } });
    write('remove.answer.json', { 'x-answer-statuses': [204], description: 'gone', type: 'null' });
    write('download.answer.json', {
      'x-answer-content-type': 'application/octet-stream',
      type: 'string',
      contentMediaType: 'application/octet-stream',
    });
    write('broken.answer.json', { 'x-answer-statuses': [404], type: 'object' });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const register = (cls: unknown) => {
    const registry = new ClassRegistry([dir], {});
    registry.add(classDefOf(cls)!);
    return registry;
  };

  it('reads a named answer with the sibling files it refers to, and validates answers against them', () => {
    const look = register(Gadget).get('Gadget')!.methodsByName.get('look')!;
    expect(look.answer!.name).toBe('look.answer');
    expect(Object.keys(look.answer!.files)).toEqual(['shared.answer']);
    const check = answerValidator('Gadget', look.answer!);
    expect(check({ colour: 'red' })).toBe(true);
    expect(check({ colour: 'blue' })).toBe(false);
    expect(check({})).toBe(false);
  });

  it('takes <method>.answer.json by convention, with the statuses and media type the file declares', () => {
    const methods = register(GadgetByConvention).get('Gadget')!.methodsByName;
    expect(methods.get('look')!.answer!.name).toBe('look.answer');
    expect(methods.get('remove')!.answer).toMatchObject({ statuses: [204], schema: { type: 'null' } });
    // the keywords about the answer are not part of its body's schema
    expect(methods.get('remove')!.answer!.schema['x-answer-statuses']).toBeUndefined();
    expect(methods.get('download')!.answer).toMatchObject({ statuses: [200], contentType: 'application/octet-stream' });
    expect(methods.get('unanswered')!.answer).toBeUndefined();
    const doc = buildOpenApi(register(GadgetByConvention), { projectId: 'p', errorTables: new Map() }) as any;
    const ops = (m: string) => doc.paths[`/{projectId}/CALL/Gadget/${m}/{instanceId}`].post.responses;
    expect(ops('remove')['204'].content).toBeUndefined();
    expect(Object.keys(ops('download')['200'].content)).toEqual(['application/octet-stream']);
    expect(ops('look')['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Gadget.look.answer',
    });
  });

  it('stops the start when an answer file declares statuses that are not 2xx or 3xx', () => {
    expect(() => register(GadgetBadStatuses)).toThrow(
      "Gadget.broken: x-answer-statuses of 'broken.answer' must list 2xx or 3xx statuses",
    );
  });

  it('stops the start when a named answer file is missing, naming it', () => {
    expect(() => register(GadgetMissingAnswer)).toThrow(
      `Gadget.look: no answer schema 'nowhere.answer' (declared by answer; looked for ${path.join(dir, 'Gadget', 'nowhere.answer.json')})`,
    );
  });

  it('refuses answerStatuses that are not 2xx', () => {
    expect(() => {
      @ActorClass({ id: 'Bad' })
      class Bad {
        @Read({ access: ['class'], schema: false, answerStatuses: [404] })
        look() {
          return {};
        }
      }
      return Bad;
    }).toThrow('method look: answerStatuses must list 2xx statuses');
  });

  it('shows them in the document: a file and its siblings as components, an inline schema, each declared status', () => {
    const doc = buildOpenApi(register(Gadget), { projectId: 'p', errorTables: new Map() }) as any;
    const look = doc.paths['/{projectId}/CALL/Gadget/look/{instanceId}'].post.responses['200'];
    expect(look.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Gadget.look.answer' });
    expect(doc.components.schemas['Gadget.look.answer'].properties.colour).toEqual({
      $ref: '#/components/schemas/Gadget.shared.answer.colour',
    });
    expect(doc.components.schemas['Gadget.shared.answer.colour']).toEqual({ enum: ['red', 'green'] });
    const paint = doc.paths['/{projectId}/CALL/Gadget/paint/{instanceId}'].post.responses;
    expect(Object.keys(paint).filter((s) => s.startsWith('2'))).toEqual(['200', '201']);
    expect(
      doc.components.schemas[paint['201'].content['application/json'].schema.$ref.replace('#/components/schemas/', '')],
    ).toMatchObject({ required: ['ok'] });
  });
});

// ---------------------------------------------------------------- the service's classes

const MEMBER_ID = EXAMPLE_SEED.members![0]!.id as string;
const STAFF_ID = EXAMPLE_SEED.members![0]!.staffId as string;
const PARTNER_ID = EXAMPLE_SEED.partners![0]!.id as string;
const VENUE_ID = EXAMPLE_SEED.venues![0]!.id as string;
const COMPANY = EXAMPLE_SEED.companies![0]!;
const TIER_ID = EXAMPLE_SEED.tiers![0]!.id as string;
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const API_KEY = { 'x-api-key': TEST_API_KEY };

describe('answers of the service classes match their declared schemas', () => {
  let t: TestRuntime;
  /** class.method → the answers seen (status, body) */
  const seen = new Map<string, { status: number; body: unknown }[]>();

  const record = (classId: string, method: string, status: number, body: unknown) => {
    const key = `${classId}.${method}`;
    seen.set(key, [...(seen.get(key) ?? []), { status, body }]);
  };
  const call = async (classId: string, method: string, instanceId: string | undefined, body?: unknown) => {
    const res = await t.rt.call(classId, method, instanceId, body);
    expect({ call: `${classId}.${method}`, status: res.status }).toEqual({ call: `${classId}.${method}`, status: 200 });
    record(classId, method, res.status, res.body);
    return res.body as any;
  };
  const http = async (classId: string, method: string, pathname: string, body: unknown, expected: number) => {
    const res = await t.post(pathname, body, API_KEY);
    expect({ call: pathname, status: res.status, body: res.status === expected ? undefined : res.body }).toEqual({
      call: pathname,
      status: expected,
      body: undefined,
    });
    record(classId, method, res.status, res.body);
    return res.body;
  };

  beforeAll(async () => {
    t = await startTestRuntime({ env: { CLASS_DIRS: path.join(ROOT, 'classes'), SCHEMA_DIRS: 'schemas' } });
    await seedExample(t);
  });
  afterAll(() => t?.stop());

  it('HR endpoints (spec 4.1-4.3): employee update, dependant added (201) and updated (200), photo', async () => {
    const p = t.projectId;
    const updated = (await http('Member', 'hrUpdateEmployee', '/members/hr/employee', employee(), 200)) as any;
    expect(updated.body.memberId).toBe(MEMBER_ID);
    const dependant = {
      id: randomUUID(),
      employeeId: STAFF_ID,
      status: 'Active',
      name: 'Rana',
      surname: 'Haddad',
      email: null,
      phone: null,
      type: 'spouse',
      birthdate: '1992-02-29',
    };
    await http('Member', 'hrUpsertDependant', '/members/hr/dependant', dependant, 201);
    await http('Member', 'hrUpsertDependant', '/members/hr/dependant', { ...dependant, name: 'Rania' }, 200);
    await http(
      'Member',
      'hrUpsertDependant',
      '/members/hr/dependant',
      { ...dependant, id: randomUUID(), type: 'cousin' },
      201,
    );
    await http(
      'Member',
      'updateEmployeePhoto',
      `/${p}/CALL/Member/updateEmployeePhoto/staffId!${STAFF_ID}`,
      { photo: PNG, fileExtension: 'png' },
      200,
    );
  });

  it('HR error answers match the contract envelopes they declare (errorAnswer: spec 7.2, 4.1)', async () => {
    const member = t.rt.registry.get('Member')!.methodsByName;
    const hr = answerValidator('Member', member.get('hrUpdateEmployee')!.errorAnswer!);
    const photo = answerValidator('Member', member.get('updateEmployeePhoto')!.errorAnswer!);
    const answers = [
      [hr, await t.post('/members/hr/employee', { ...employee(), email: 'not-an-email' }, API_KEY), 400],
      [hr, await t.post('/members/hr/employee', employee(), { 'x-api-key': 'wrong' }), 401],
      [hr, await t.post('/members/hr/employee', { ...employee(), employeeId: 'E-NOBODY' }, API_KEY), 404],
      [
        hr,
        await t.post(
          '/members/hr/dependant',
          {
            id: randomUUID(),
            employeeId: 'E-NOBODY',
            status: 'Active',
            name: 'A',
            surname: 'B',
            email: null,
            type: 'spouse',
            birthdate: '1992-02-29',
          },
          API_KEY,
        ),
        404,
      ],
      [
        photo,
        await t.post(
          `/${t.projectId}/CALL/Member/updateEmployeePhoto/staffId!${STAFF_ID}`,
          { photo: PNG, fileExtension: 'bmp' },
          API_KEY,
        ),
        400,
      ],
      [
        photo,
        await t.post(`/${t.projectId}/CALL/Member/updateEmployeePhoto/staffId!${STAFF_ID}`, { photo: PNG }, API_KEY),
        400,
      ],
    ] as const;
    for (const [check, res, status] of answers) {
      expect({ status: res.status, valid: check(res.body), body: res.body }).toEqual({
        status,
        valid: true,
        body: res.body,
      });
    }
    expect(
      hr({ success: false, error: { code: 10001, message: 'x' }, details: { errors: { email: 'not a list' } } }),
    ).toBe(false);
  });

  it("Member's sections, own profile and listing", async () => {
    for (const m of ['getMemberPersonal', 'getMemberEmployment', 'getMemberContact', 'getMemberProfile'])
      await call('Member', m, MEMBER_ID);
    await waitFor(
      async () => ((await t.rt.call('Member', 'listMembers', undefined, {})).body as any)?.members?.length >= 3,
      { what: 'members projected' },
    );
    await call('Member', 'listMembers', undefined, {});
  });

  it("Company's company and listing", async () => {
    await call('Company', 'getCompany', 'default', { id: COMPANY.id });
    await waitFor(
      async () => ((await t.rt.call('Company', 'listCompanies', 'default', {})).body as any)?.items?.length >= 1,
      { what: 'companies projected' },
    );
    await call('Company', 'listCompanies', 'default', {});
  });

  it("Tier's tier and listing", async () => {
    await call('Tier', 'getTier', TIER_ID, {});
    await waitFor(async () => ((await t.rt.call('Tier', 'listTiers', undefined, {})).body as any)?.items?.length >= 1, {
      what: 'tiers projected',
    });
    await call('Tier', 'listTiers', undefined, {});
  });

  it("Partner's details, contact, contract, venue and listings", async () => {
    for (const m of ['getPartnerDetails', 'getPartnerContact', 'getPartnerContract'])
      await call('Partner', m, PARTNER_ID, {});
    await call('Partner', 'getVenue', PARTNER_ID, { venueId: VENUE_ID });
    await waitFor(
      async () => ((await t.rt.call('Partner', 'listPartners', undefined, {})).body as any)?.partners?.length >= 1,
      { what: 'partners projected' },
    );
    await call('Partner', 'listPartners', undefined, {});
    await waitFor(
      async () => ((await t.rt.call('Partner', 'listVenues', PARTNER_ID, {})).body as any)?.venues?.length >= 2,
      { what: 'venues projected' },
    );
    await call('Partner', 'listVenues', PARTNER_ID, {});
  });

  it('every answer seen matches its schema and comes with a declared status', () => {
    const declared = t.rt.registry
      .list()
      .flatMap((c) =>
        [...c.methodsByName.values()]
          .filter((m) => m.answer)
          .map((m) => ({ key: `${c.id}.${m.name}`, classId: c.id, m })),
      );
    // every method callable over HTTP declares one (openapi.test.ts); the flows and examples tests check the others' answers
    expect(declared.length).toBeGreaterThanOrEqual(200);
    // the methods called above
    for (const key of [
      'Member.hrUpdateEmployee',
      'Member.hrUpsertDependant',
      'Member.updateEmployeePhoto',
      'Member.listMembers',
      'Company.getCompany',
      'Tier.listTiers',
      'Partner.listVenues',
    ]) {
      expect(seen.has(key)).toBe(true);
    }
    for (const { key, classId, m } of declared.filter((d) => seen.has(d.key))) {
      const check = answerValidator(classId, m.answer!);
      for (const { status, body } of seen.get(key)!) {
        const ok = check(body);
        expect({ key, status, errors: ok ? null : check.errors, body: ok ? null : body }).toEqual({
          key,
          status,
          errors: null,
          body: null,
        });
        expect(m.answer!.statuses).toContain(status);
      }
    }
    // the warnings of an unrecognised relationship type appear, as the schema's optional field
    expect(seen.get('Member.hrUpsertDependant')!.some((a) => (a.body as any).body.warnings?.length)).toBe(true);
  });

  it('a changed answer fails its schema (the check can fail)', () => {
    const m = t.rt.registry.get('Member')!.methodsByName.get('hrUpdateEmployee')!;
    const check = answerValidator('Member', m.answer!);
    const good = seen.get('Member.hrUpdateEmployee')![0]!.body as any;
    expect(check(good)).toBe(true);
    expect(check({ ...good, success: false })).toBe(false);
    expect(check({ ...good, body: { ...good.body, extra: 1 } })).toBe(false);
    const tier = t.rt.registry.get('Tier')!.methodsByName.get('getTier')!;
    const tierAnswer = seen.get('Tier.getTier')![0]!.body as any;
    expect(answerValidator('Tier', tier.answer!)({ ...tierAnswer, tier: { ...tierAnswer.tier, status: 'gone' } })).toBe(
      false,
    );
  });
});
