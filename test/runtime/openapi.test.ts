/**
 * The generated OpenAPI document (runtime/http/openapi.ts) of the service's
 * own classes: valid OpenAPI 3.1, every registered method in it, the HR route
 * aliases with their own error bodies, and the two pages it is served on.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { answerValidator } from '../../runtime/actor/answers';
import { projectRoot } from '../../runtime/config';
import { RuntimeCodes, UNKNOWN_INSTANCE_CODE } from '../../runtime/errors';
import { discoverErrorTables } from '../../runtime/http/openapi';
import { hrUpdateEmployee, type HrEmployeeBody } from '../../clients/example';
import { startTestRuntime, type TestRuntime } from '../support/harness';

const VALIDATOR = path.join(projectRoot(), 'node_modules/@seriousme/openapi-schema-validator/bin/validate-api-cli.js');

/** the validator is an ES module: it runs in its own node process, on the document written to a file */
function validate(doc: unknown): Promise<{ valid: boolean; errors?: unknown; out: string }> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-')), 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(doc));
  return new Promise((resolve) => {
    execFile(process.execPath, [VALIDATOR, file], (_err, stdout, stderr) => {
      try {
        resolve({ ...(JSON.parse(stdout) as { valid: boolean; errors?: unknown }), out: stdout });
      } catch {
        resolve({ valid: false, out: stdout + stderr });
      }
    });
  });
}

type Op = {
  operationId: string;
  'x-kind': string;
  'x-access': string[];
  security: object[];
  requestBody?: any;
  parameters: any[];
  responses: Record<string, any>;
};

describe('OpenAPI document of the service classes', () => {
  let t: TestRuntime;
  let doc: any;

  beforeAll(async () => {
    t = await startTestRuntime({ env: { CLASS_DIRS: path.join(projectRoot(), 'classes'), SCHEMA_DIRS: 'schemas' } });
    const res = await t.get('/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(() => t?.stop());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(doc);
    expect(result.out).toContain('"valid"');
    expect(result.errors ?? null).toBeNull();
    expect(result.valid).toBe(true);
  });

  it("is titled and versioned as the project's package.json says, as the committed clients/openapi.json is", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8'));
    const committed = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'clients/openapi.json'), 'utf8'));
    expect([doc.info.title, doc.info.version]).toEqual([pkg.name, pkg.version]);
    expect(doc.info).toEqual(committed.info);
  });

  it('the validator refuses a broken document (the check can fail)', async () => {
    const broken = { ...doc, paths: { ...doc.paths, 'no-leading-slash': { get: { responses: 'none' } } } };
    expect((await validate(broken)).valid).toBe(false);
  });

  it('lists every registered method: an operation for each callable one, INTERNAL ones on their class tag', () => {
    const tags = new Map<string, any>(doc.tags.map((tg: any) => [tg.name, tg]));
    const classes = t.rt.registry.list();
    expect(classes.length).toBeGreaterThan(10);
    for (const cls of classes) {
      expect(tags.has(cls.id)).toBe(true);
      for (const m of cls.methodsByName.values()) {
        if (m.kind === 'INTERNAL') {
          expect(tags.get(cls.id)['x-internal-methods']).toContain(m.name);
          continue;
        }
        const withInstance = m.kind !== 'STATIC' && m.kind !== 'INIT';
        const item = doc.paths[`/{projectId}/CALL/${cls.id}/${m.name}${withInstance ? '/{instanceId}' : ''}`];
        expect({ method: `${cls.id}.${m.name}`, found: !!item?.post }).toEqual({
          method: `${cls.id}.${m.name}`,
          found: true,
        });
        const op = item.post as Op;
        expect(op['x-kind']).toBe(m.kind);
        expect(op['x-access']).toEqual([...m.options.access]);
        expect(!!item.get).toBe(m.kind === 'READ' || m.kind === 'STATIC');
        if (m.kind === 'QUEUED_WRITE') expect(op.responses['202']).toBeDefined();
        if (m.kind === 'INIT')
          expect(doc.paths[`/{projectId}/CALL/${cls.id}/${m.name}/{instanceId}`]?.post?.['x-kind']).toBe('INIT');
      }
    }
  });

  it('gives every method callable over HTTP the schema of its answer (a QUEUED_WRITE: its job, a 204: no body)', () => {
    // INTERNAL methods are not in the document (no HTTP caller reads their answer): the only ones without a schema
    const without: string[] = [];
    let answered = 0;
    for (const cls of t.rt.registry.list()) {
      for (const m of cls.methodsByName.values()) {
        if (m.kind === 'INTERNAL') continue;
        const withInstance = m.kind !== 'STATIC' && m.kind !== 'INIT';
        const op = doc.paths[`/{projectId}/CALL/${cls.id}/${m.name}${withInstance ? '/{instanceId}' : ''}`].post as Op;
        const ok = Object.entries(op.responses).filter(([s]) => /^[23]\d\d$/.test(s));
        const typed =
          ok.length > 0 &&
          ok.every(([s, r]) =>
            s === '204' || s === '304'
              ? !r.content
              : Object.values<any>(r.content ?? {}).every((c) => c.schema && Object.keys(c.schema).length > 0),
          );
        if (!typed || (m.kind !== 'QUEUED_WRITE' && !m.answer)) without.push(`${cls.id}.${m.name}`);
        else answered += 1;
        if (m.kind === 'QUEUED_WRITE' && !m.answer)
          expect(op.responses['202'].content['application/json'].schema).toEqual({
            $ref: '#/components/schemas/QueuedJob',
          });
      }
    }
    const fix =
      'add schemas/<Class>/<method>.answer.json (`npx tsx scripts/answer-drafts.ts <Class> --write` drafts it from the handler)';
    expect({ fix: without.length ? fix : 'none', without }).toEqual({ fix: 'none', without: [] });
    expect(answered).toBeGreaterThan(240);
    // statuses and media types an answer file declares
    const status = (p: string) => Object.keys(doc.paths[p].post.responses).filter((s) => /^[23]/.test(s));
    expect(status('/{projectId}/CALL/Tier/createTier')).toEqual(['201']);
    expect(
      doc.paths['/{projectId}/CALL/UserNotification/deleteNotification/{instanceId}'].post.responses['204'],
    ).toEqual({
      description: expect.stringContaining('no body'),
      headers: { 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } },
    });
    expect(
      Object.keys(doc.paths['/{projectId}/CALL/FileManager/downloadFile/{instanceId}'].get.responses['200'].content),
    ).toEqual(['application/octet-stream']);
    expect(
      doc.paths['/{projectId}/CALL/ProgramManagementUser/singleSignOn'].post.responses['303'].headers.Location,
    ).toBeDefined();
    // the sign-ins answer their session, not `{}`
    const login = doc.components.schemas['ProgramManagementUser.checkOtp.answer'];
    expect(login.required).toEqual(expect.arrayContaining(['accessToken', 'expiresAt', 'user']));
  });

  it("documents the runtime's own routes: a queued job's status and the refresh-token exchange", () => {
    const job = doc.paths['/{projectId}/JOBS/{jobId}']?.get;
    expect(job.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/JobStatus' });
    expect(job.responses['404']['x-error-codes']).toContainEqual({ code: 1019, name: 'UNKNOWN_JOB' });
    expect(doc.components.schemas.QueuedJob.properties.statusUrl).toBeDefined();
    const refresh = doc.paths['/{projectId}/auth/refresh']?.post;
    expect(refresh.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RefreshRequest',
    });
    expect(doc.components.schemas.RefreshedSession.required).toEqual(['token', 'expiresAt', 'refreshToken']);
    expect(refresh.responses['401']['x-error-codes']).toContainEqual({ code: 1007, name: 'UNAUTHENTICATED' });
  });

  it('gives each method its input schema, security and error codes', () => {
    const update = doc.paths['/{projectId}/CALL/Member/updateEmployeePhoto/{instanceId}'].post as Op;
    expect(update.security).toEqual([{ apiKey: [] }]);
    const ref = update.requestBody.content['application/json'].schema.$ref as string;
    const schema = doc.components.schemas[ref.replace('#/components/schemas/', '')];
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties).length).toBeGreaterThan(0);
    // a method with its own envelope: the bodies its shaper answers, and the class's codes
    const photo401 = Object.values(update.responses['401'].content['application/json'].examples).map(
      (e: any) => e.value,
    );
    expect(photo401[0]).toMatchObject({ code: 10072 });
    // a method without: the class's own table (classes/Member/errors.ts) and the platform's codes, by status
    const plain = [...t.rt.registry.get('Member')!.methodsByName.values()].find(
      (m) => m.kind === 'WRITE' && !m.options.errorShape,
    )!;
    const op = doc.paths[`/{projectId}/CALL/Member/${plain.name}/{instanceId}`].post as Op;
    const resolve = (r: any) => (r.$ref ? doc.components.responses[r.$ref.replace('#/components/responses/', '')] : r);
    const codes = Object.values(op.responses).flatMap((r: any) =>
      (resolve(r)['x-error-codes'] ?? []).map((c: any) => c.code),
    );
    expect(codes).toEqual(expect.arrayContaining([5000, 1002, 1007, 1012, 'UNKNOWN_INSTANCE']));
    expect(resolve(op.responses['404']).description).toContain('5000 MEMBER_NOT_FOUND');
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    // a class's schema with local $refs resolves inside the document
    const text = JSON.stringify(doc);
    const refs = [...text.matchAll(/"\$ref":"#\/components\/(schemas|responses|parameters)\/([^"/]+)((?:\/[^"]+)?)"/g)];
    expect(refs.length).toBeGreaterThan(100);
    // a component, or a pointer into one (`…/Role.types.answer.StoredRole/properties/id`)
    const at = (node: any, pointer: string) =>
      pointer
        .split('/')
        .slice(1)
        .reduce((n, k) => n?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], node);
    for (const m of refs)
      expect({ ref: m[0], found: at(doc.components[m[1]!][m[2]!], m[3]!) !== undefined }).toEqual({
        ref: m[0],
        found: true,
      });
  });

  it("gives a GET its query parameters from the method's input schema (a list as the key repeated)", () => {
    const get = doc.paths['/{projectId}/CALL/Tier/listTiers'].get as Op;
    const params = Object.fromEntries(
      (get.parameters as any[]).filter((p) => p.in === 'query').map((p) => [p.name, p]),
    );
    expect(Object.keys(params).sort()).toEqual(['limit', 'page', 'search', 'status', 'tierGroup', 'tierTypeId']);
    expect(params.limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(params.status.schema.enum).toContain('active');
    expect(params.page.required).toBe(false);
    expect(get.requestBody).toBeUndefined();
    // every query parameter of every GET is a property of the same method's POST body
    for (const [p, item] of Object.entries(doc.paths as Record<string, any>)) {
      if (!item.get || !p.includes('/CALL/')) continue;
      const names = (item.get.parameters as any[]).filter((q) => q.in === 'query').map((q) => q.name);
      const body = item.post.requestBody?.content['application/json'].schema;
      const schema = body?.$ref ? doc.components.schemas[body.$ref.replace('#/components/schemas/', '')] : body;
      expect({ p, names }).toEqual({ p, names: Object.keys(schema?.properties ?? {}) });
      for (const q of item.get.parameters as any[])
        if (q.schema?.type === 'array')
          expect({ p, q: q.name, explode: q.explode }).toEqual({ p, q: q.name, explode: true });
    }
  });

  it('documents the HR endpoints (spec 4.2, 4.3) with their request and error bodies', () => {
    for (const [route, method] of [
      ['/members/hr/employee', 'hrUpdateEmployee'],
      ['/members/hr/dependant', 'hrUpsertDependant'],
    ] as const) {
      const op = doc.paths[route]?.post as Op;
      expect(op).toBeDefined();
      expect(op.security).toEqual([{ apiKey: [] }]);
      expect(op.requestBody.required).toBe(true);
      expect(op.requestBody.content['application/json'].schema.$ref).toBe(`#/components/schemas/Member.${method}`);
      // "Try it out" starts from the schema's example (a body the endpoint accepts)
      expect(op.requestBody.content['application/json'].example).toEqual(
        doc.components.schemas[`Member.${method}`].examples[0],
      );
      expect(op.requestBody.content['application/json'].example.birthdate).toMatch(/^(19|20)\d\d-\d\d-\d\d$/);
      const bad = op.responses['400'].content['application/json'].examples;
      const body = Object.values(bad).map((e: any) => e.value)[0];
      expect(body).toMatchObject({ success: false, error: { code: 10001, message: 'Validation failed' } });
      expect(
        Object.values(op.responses['401'].content['application/json'].examples).map((e: any) => e.value),
      ).toContainEqual({
        success: false,
        error: { code: 10072, message: 'Invalid or missing API key' },
      });
    }
  });

  it("every CALL operation lists its class's error codes (those it declares it answers) and every platform code", () => {
    const platform = [...Object.values(RuntimeCodes).map((e) => e.code), UNKNOWN_INSTANCE_CODE];
    const tables = discoverErrorTables(t.rt.registry);
    const resolve = (r: any) => (r.$ref ? doc.components.responses[r.$ref.replace('#/components/responses/', '')] : r);
    let checked = 0;
    for (const cls of t.rt.registry.list()) {
      const table = tables.get(cls.id)!;
      expect({ cls: cls.id, table: !!table }).toEqual({ cls: cls.id, table: true });
      for (const m of cls.methodsByName.values()) {
        if (m.kind === 'INTERNAL') continue;
        const declared = m.options.errors;
        // a declared error names one of the class's table (a typo would drop it silently)
        for (const e of declared ?? [])
          expect({
            method: `${cls.id}.${m.name}`,
            error: e,
            known: Object.entries(table).some(([n, d]) => n === e || d.code === e),
          }).toMatchObject({ known: true });
        const own = Object.entries(table)
          .filter(([n, d]) => !declared || declared.includes(n) || declared.includes(d.code))
          .map(([, d]) => d.code);
        const withInstance = m.kind !== 'STATIC' && m.kind !== 'INIT';
        const op = doc.paths[`/{projectId}/CALL/${cls.id}/${m.name}${withInstance ? '/{instanceId}' : ''}`].post;
        const listed = new Set<unknown>();
        // a platform error a shaper answers with another code counts by its platformCode
        for (const r of Object.values<any>(op.responses))
          for (const c of resolve(r)['x-error-codes'] ?? []) listed.add(c.code).add(c.platformCode);
        // a STATIC or INIT method with its own envelope has no instance that could be unknown
        const expected = [
          ...own,
          ...platform.filter((c) => withInstance || !m.options.errorShape || c !== UNKNOWN_INSTANCE_CODE),
        ];
        expect({ method: `${cls.id}.${m.name}`, missing: expected.filter((c) => !listed.has(c)) }).toEqual({
          method: `${cls.id}.${m.name}`,
          missing: [],
        });
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('gives the HR endpoints exactly the error statuses and codes of spec 7.2, in the contract envelope', () => {
    const member = t.rt.registry.get('Member')!;
    // with the Idempotency-Key's refusals (beyond the spec: 409 and 422, in the same envelope, no code of the class's own)
    const spec: Record<string, Record<string, number[]>> = {
      '/members/hr/employee': {
        400: [10001],
        401: [10072],
        404: [10073, 11016],
        409: [11017],
        422: [],
        500: [10000],
        503: [],
      },
      '/members/hr/dependant': {
        400: [10001],
        401: [10072],
        403: [10074],
        404: [10075],
        409: [],
        422: [],
        500: [10000],
        503: [],
      },
    };
    for (const [route, statuses] of Object.entries(spec)) {
      const op = doc.paths[route].post as Op;
      const errors = Object.fromEntries(
        Object.entries(op.responses)
          .filter(([s]) => !s.startsWith('2'))
          .map(([s, r]) => [
            s,
            r['x-error-codes'].filter((c: any) => c.platformCode === undefined).map((c: any) => c.code),
          ]),
      );
      expect({ route, errors }).toEqual({ route, errors: statuses });
      const method = member.methodsByName.get(op.operationId.replace(/^Member_(\w+?)_route_post$/, '$1'))!;
      const check = answerValidator('Member', method.errorAnswer!);
      for (const [status, r] of Object.entries(op.responses)) {
        if (status.startsWith('2')) continue;
        expect(r.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Member.hrError.answer' });
        // every body the document shows is one the contract's schema admits; platform errors answer the contract's codes only
        for (const [name, ex] of Object.entries<any>(r.content['application/json'].examples ?? {})) {
          expect({ route, status, name, valid: check(ex.value) }).toEqual({ route, status, name, valid: true });
          expect([10000, 10001, 10072]).toContain(ex.value.error.code);
        }
      }
      expect(Object.keys(op.responses['503'].content['application/json'].examples).length).toBeGreaterThan(0);
    }
    // the photo endpoint (spec 4.1): its envelope, and the unknown instance's body with only `message` (rule 3)
    const photo = doc.paths['/{projectId}/CALL/Member/updateEmployeePhoto/{instanceId}'].post as Op;
    expect(photo.responses['400']['x-error-codes'].map((c: any) => c.code)).toEqual(
      expect.arrayContaining([10001, 10005]),
    );
    const unknown = photo.responses['500'].content['application/json'];
    expect(unknown.schema.anyOf).toContainEqual({ $ref: '#/components/schemas/Member.photoError.answer' });
    expect(unknown.schema.anyOf).toContainEqual(
      expect.objectContaining({ required: ['message'], additionalProperties: false }),
    );
    expect(Object.keys(unknown.examples.unknown_instance.value)).toEqual(['message']);
  });

  it('every POST operation and the HR route aliases take an optional Idempotency-Key, with the 409 and 422 it can cause and the replay header', () => {
    expect(doc.components.parameters.idempotencyKey).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', maxLength: 255 },
    });
    expect(doc.components.headers.IdempotentReplayed).toMatchObject({ schema: { const: 'true' } });
    const resolve = (r: any) => (r.$ref ? doc.components.responses[r.$ref.replace('#/components/responses/', '')] : r);
    const keyParam = { $ref: '#/components/parameters/idempotencyKey' };
    let posts = 0;
    for (const [p, item] of Object.entries<any>(doc.paths)) {
      // the runtime's own routes (job status, refresh) are not class calls: no key
      if (Object.values<any>(item).some((op) => op.tags?.includes('Runtime'))) continue;
      for (const [verb, op] of Object.entries<any>(item)) {
        const where = `${verb} ${p}`;
        if (verb === 'get') {
          expect({ where, keyed: op.parameters.some((x: any) => x.$ref === keyParam.$ref) }).toEqual({
            where,
            keyed: false,
          });
          continue;
        }
        posts += 1;
        expect({ where, keyed: op.parameters.filter((x: any) => x.$ref === keyParam.$ref).length }).toEqual({
          where,
          keyed: 1,
        });
        for (const [status, code] of [
          ['409', 'IDEMPOTENCY_KEY_IN_PROGRESS'],
          ['422', 'IDEMPOTENCY_KEY_REUSED'],
        ] as const) {
          const codes = (resolve(op.responses[status] ?? {})['x-error-codes'] ?? []).flatMap((c: any) => [
            c.code,
            c.platformCode,
          ]);
          expect({ where, status, listed: codes.includes(code) }).toEqual({ where, status, listed: true });
        }
        for (const [status, r] of Object.entries<any>(op.responses)) {
          if (status.startsWith('2'))
            expect({ where, status, header: r.headers?.['Idempotent-Replayed'] }).toEqual({
              where,
              status,
              header: { $ref: '#/components/headers/IdempotentReplayed' },
            });
        }
      }
    }
    expect(posts).toBeGreaterThan(200);
    // the HR endpoints answer them in their own envelope (spec 7.2), keeping the status
    for (const route of ['/members/hr/employee', '/members/hr/dependant']) {
      const op = doc.paths[route].post;
      expect(op.parameters).toContainEqual(keyParam);
      expect(
        op.responses['409'].content['application/json'].examples.from_IDEMPOTENCY_KEY_IN_PROGRESS.value,
      ).toMatchObject({ success: false, error: { code: 10000 } });
      expect(op.responses['422'].content['application/json'].examples.from_IDEMPOTENCY_KEY_REUSED.value).toMatchObject({
        success: false,
        error: { code: 10000 },
      });
    }
  });

  it('serves the interactive page and its assets from the installed Swagger UI', async () => {
    const page = await fetch(`${t.base}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
    const bundle = await fetch(`${t.base}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    const init = await (await fetch(`${t.base}/docs/init.js`)).text();
    expect(init).toContain('/openapi.json');
    // several hundred operations: a filter, operations folded, and the authorization kept across reloads
    expect(init).toMatch(/filter: true/);
    expect(init).toMatch(/persistAuthorization: true/);
    expect(init).toMatch(/docExpansion: 'none'/);
  });

  it('the typed client generated from it (clients/) calls the HR endpoint and reads its error envelope', async () => {
    const body: HrEmployeeBody = {
      employeeId: 'E1001',
      name: 'Ana',
      surname: 'Lima',
      email: 'ana@example.com',
      phone: '+351900000000',
      grade: 'G1',
      employmentType: 'Permanent',
      status: 'active',
      address: { country: 'PT', address: 'Rua 1' },
      birthdate: '1990-01-01',
      gender: 'F',
      maritalStatus: 'Single',
      coreGrade: 'C1',
      dependantsExists: 'N',
      companyId: 'BG1',
    };
    const res = await hrUpdateEmployee(t.base, 'not-a-key', body);
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.status).toBe(401);
    expect(res.error.success).toBe(false);
    expect(res.error.error).toEqual({ code: 10072, message: 'Invalid or missing API key' });
  });

  it('clients/example.ts runs as docs/api.md says, on the record in clients/example-employee.json', async () => {
    const root = projectRoot();
    const run = (args: string[]) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', path.join(root, 'clients/example.ts'), ...args],
          { cwd: root },
          (err, stdout, stderr) =>
            resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
        );
      });
    const refused = await run([t.base, 'not-a-key', 'clients/example-employee.json']);
    expect(refused).toEqual({ code: 1, out: '401 error 10072: Invalid or missing API key\n' });
    const usage = await run([t.base]);
    expect(usage.code).toBe(2);
    expect(usage.out).toMatch(/^usage: /);
  }, 60_000);
});
