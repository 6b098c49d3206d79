/**
 * `register-from-hr` (spec 2.9's last line): each email of
 * a file registered through Member.registerFromHr as the system actor, with
 * import's runner, over a real runtime seeded with examples/seed.json and the
 * local HR server the Member tests use (test/Member/fake-hr.ts, real HTTP).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runImport, type ImportOptions } from '../../classes/_platform/import/run';
import { registerFromHrSheet, type LoginMethod } from '../../classes/_platform/import/sheets/register-from-hr';
import { projectRoot } from '../../runtime/config';
import { RedisRateLimits } from '../../runtime/actor/rate-limit';
import { REGISTER_FROM_HR_TIMEOUT_SECONDS, REGISTRATION_LOCK } from '../../classes/Member/use-cases/registration';
import { waitFor, type TestRuntime } from '../support/harness';
import { FakeHr, hrEmployee } from '../Member/fake-hr';
import { startSeededRuntime } from './support';

const root = projectRoot();
const sample = path.join(root, 'examples/import/register-from-hr.csv');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'register-from-hr-'));
const errorLines = (file: string) =>
  fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').slice(1) : [];
const LOOKUP = '/employees/lookup';
const MEMBER_ID = '/employees/member-id';

/** an employee of the example program in the HR system: Acme Airlines (BG-100), permanent staff */
const acmeEmployee = (employeeId: string, email: string, over: Record<string, unknown> = {}) =>
  hrEmployee(employeeId, { email, companyId: 'BG-100', employmentType: 'Permanent', ...over });

describe('register-from-hr', () => {
  let t: TestRuntime;
  let hr: FakeHr;
  let n = 0;
  const call = (classId: string, method: string, instanceId: string | undefined, body: unknown) =>
    t.rt.call(classId, method, instanceId, body);
  const run = (file: string, opts: ImportOptions & { loginMethod?: LoginMethod } = {}) =>
    runImport(registerFromHrSheet(opts.loginMethod), file, call, {
      errorsFile: path.join(tmp, `run-${++n}.errors.csv`),
      ...opts,
    });
  const csv = (name: string, rows: string[]) => {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, `${['email,loginMethod', ...rows].join('\n')}\n`);
    return file;
  };
  /** the member holding an email, or undefined */
  const memberByEmail = async (email: string) => {
    try {
      return (await call('Member', 'getMemberPersonal', `email!${email.toLowerCase()}`, {})).body as Record<
        string,
        any
      >;
    } catch (err) {
      if ((err as { code?: unknown }).code === 'UNKNOWN_INSTANCE') return undefined;
      throw err;
    }
  };

  beforeAll(async () => {
    hr = await new FakeHr().start();
    t = await startSeededRuntime(hr);
    for (const [id, email] of [
      ['E2001', 'nadia.karim@acme.example'],
      ['E2002', 'omar.farouk@acme.example'],
    ]) {
      hr.employees.set(email!, acmeEmployee(id!, email!));
    }
  });
  afterAll(async () => {
    await t?.stop();
    await hr?.stop();
  });

  test('the sample: a dry run predicts and writes nothing, the run registers, a second run changes nothing', async () => {
    const dryErrors = path.join(tmp, 'sample-dry.errors.csv');
    expect(await run(sample, { dryRun: true, errorsFile: dryErrors })).toMatchObject({
      sheet: 'register-from-hr',
      rows: 3,
      created: 2,
      updated: 0,
      unchanged: 1, // amal.haddad is a member of the seed
      failed: 0,
      dryRun: true,
    });
    expect(errorLines(dryErrors)).toEqual([]);
    // the dry run asked the HR system's lookup, and nothing else
    expect(hr.count(LOOKUP)).toBe(2);
    expect(hr.count(MEMBER_ID)).toBe(0);
    expect(await memberByEmail('nadia.karim@acme.example')).toBeUndefined();
    expect(await memberByEmail('omar.farouk@acme.example')).toBeUndefined();

    const errorsFile = path.join(tmp, 'sample.errors.csv');
    const summary = await run(sample, { errorsFile });
    expect(summary).toMatchObject({
      sheet: 'register-from-hr',
      rows: 3,
      created: 2,
      updated: 0,
      unchanged: 1,
      failed: 0,
    });
    expect(summary.dryRun).toBeUndefined();
    expect(Object.keys(summary).sort()).toEqual([
      'created',
      'failed',
      'rows',
      'seconds',
      'sheet',
      'unchanged',
      'updated',
    ]);
    expect(errorLines(errorsFile)).toEqual([]);
    const nadia = await memberByEmail('nadia.karim@acme.example');
    const omar = await memberByEmail('omar.farouk@acme.example');
    expect(nadia).toBeDefined();
    expect(omar).toBeDefined();
    const nadiaId = (await call('Member', 'resolveMemberId', 'staffId!E2001', {})).body as { id: string };
    const omarId = (await call('Member', 'resolveMemberId', 'staffId!E2002', {})).body as { id: string };
    // registered through registerFromHr: the HR system holds each new member's id
    expect(Object.fromEntries(hr.memberIds)).toEqual({ E2001: nadiaId.id, E2002: omarId.id });
    // omar's row names sso; nadia's none: registerFromHr's default
    const loginMethodOf = async (id: string) =>
      ((await call('Member', 'hrPrimaryInfo', id, {})).body as { loginMethod: string }).loginMethod;
    expect([await loginMethodOf(nadiaId.id), await loginMethodOf(omarId.id)]).toEqual(['email_password', 'sso']);

    const lookups = hr.count(LOOKUP);
    expect(await run(sample)).toMatchObject({ rows: 3, created: 0, updated: 0, unchanged: 3, failed: 0 });
    // members found by their email: the HR system is not asked again
    expect(hr.count(LOOKUP)).toBe(lookups);
  });

  test('a run stopped half-way and started again registers the rest, nobody twice', async () => {
    hr.employees.set('lina.saad@acme.example', acmeEmployee('E2101', 'lina.saad@acme.example'));
    hr.employees.set('karim.aziz@acme.example', acmeEmployee('E2102', 'karim.aziz@acme.example'));
    const all = ['lina.saad@acme.example,', 'karim.aziz@acme.example,'];
    // what the first run got through before it stopped
    expect(await run(csv('half.csv', all.slice(0, 1)))).toMatchObject({ rows: 1, created: 1, failed: 0 });
    // started again with --login-method sso: the rows that name none take it
    expect(await run(csv('all.csv', all), { loginMethod: 'sso' })).toMatchObject({
      rows: 2,
      created: 1,
      unchanged: 1,
      failed: 0,
    });
    expect([...hr.memberIds.keys()]).toEqual(expect.arrayContaining(['E2101', 'E2102']));
    const loginMethodOf = async (staffId: string) =>
      ((await call('Member', 'hrPrimaryInfo', `staffId!${staffId}`, {})).body as { loginMethod: string }).loginMethod;
    expect([await loginMethodOf('E2101'), await loginMethodOf('E2102')]).toEqual(['email_password', 'sso']);
  });

  test('a row whose member id is only queued for HR is registered, not half-done: a re-run counts it unchanged, the same in a dry run', async () => {
    const email = 'rana.adel@acme.example';
    const dependant = 'E2151-D1';
    hr.employees.set(
      email,
      acmeEmployee('E2151', email, {
        dependants: [
          { id: dependant, type: 'Wife', name: 'Huda', surname: 'Adel', email: null, birthdate: '1991-01-01' },
        ],
      }),
    );
    // the HR system refuses every member-id update until the script is cleared: the first run registers the
    // member and leaves its member id to the background retry; the registration itself is finished
    hr.answer(MEMBER_ID, ...Array.from({ length: 100 }, () => ({ status: 503 })));
    try {
      const file = csv('queued.csv', [`${email},`]);
      expect(await run(file)).toMatchObject({ rows: 1, created: 1, updated: 0, unchanged: 0, failed: 0 });
      const { id } = (await call('Member', 'resolveMemberId', 'staffId!E2151', {})).body as { id: string };
      expect(hr.memberIds.has('E2151')).toBe(false);
      expect((await call('Member', 'hrRegistrationOf', id, {})).body).toMatchObject({
        resumable: false,
        hrMemberIdRecordedAt: null,
        hrRegistrationFinishedAt: expect.any(String),
      });
      expect(await run(file, { dryRun: true })).toMatchObject({
        rows: 1,
        created: 0,
        updated: 0,
        unchanged: 1,
        failed: 0,
        dryRun: true,
      });
      expect(await run(file)).toMatchObject({ rows: 1, created: 0, updated: 0, unchanged: 1, failed: 0 });
      // still one member for the employee, its dependant listed once
      expect(((await call('Member', 'resolveMemberId', 'staffId!E2151', {})).body as { id: string }).id).toBe(id);
      const { dependants } = (await call('Member', 'getMemberDependants', id, {})).body as {
        dependants: { id: string }[];
      };
      expect(dependants.map((f) => f.id)).toEqual([dependant]);

      hr.script.delete(MEMBER_ID);
      await waitFor(() => hr.memberIds.get('E2151') === id, {
        what: 'the background member-id update',
        timeoutMs: 60_000,
      });
      await waitFor(
        async () =>
          ((await call('Member', 'hrRegistrationOf', id, {})).body as { hrMemberIdRecordedAt: string | null })
            .hrMemberIdRecordedAt,
        { what: 'the member id recorded on the member' },
      );
      expect(await run(file)).toMatchObject({ rows: 1, created: 0, updated: 0, unchanged: 1, failed: 0 });
    } finally {
      hr.script.delete(MEMBER_ID);
    }
  }, 90_000);

  test('a row whose registration is still running fails with the reason (in progress), so a later run deals with it; once done, unchanged', async () => {
    const email = 'sami.nasser@acme.example';
    hr.employees.set(email, acmeEmployee('E2161', email));
    // a registration of the employee still running (another run, an operator) holds the employee's
    // registration lock; held here from outside, as such a call holds it, so it lasts as long as the test
    // needs whatever the machine's load (the lock itself is tested with two real calls in
    // test/Member/hr-registration-crash.test.ts)
    const lock = new RedisRateLimits(t.rt.store.redis, t.rt.store.keys.base);
    expect(
      (await lock.hit(REGISTRATION_LOCK, 'E2161', { max: 1, windowSeconds: REGISTER_FROM_HR_TIMEOUT_SECONDS })).allowed,
    ).toBe(true);
    try {
      const file = csv('in-progress.csv', [`${email},`]);
      const errorsFile = path.join(tmp, 'in-progress.errors.csv');
      expect(await run(file, { errorsFile })).toMatchObject({
        rows: 1,
        created: 0,
        updated: 0,
        unchanged: 0,
        failed: 1,
      });
      expect(errorLines(errorsFile)).toEqual([
        expect.stringMatching(
          /^2,email,sami\.nasser@acme\.example,"?A registration of employee 'E2161' is in progress/,
        ),
      ]);
      expect(await memberByEmail(email)).toBeUndefined();
      // the running call ends and lets go: the next run registers the employee, and the one after finds nothing to do
      await lock.reset(REGISTRATION_LOCK, 'E2161');
      expect(await run(file)).toMatchObject({ rows: 1, created: 1, updated: 0, unchanged: 0, failed: 0 });
      expect(await run(file)).toMatchObject({ rows: 1, created: 0, updated: 0, unchanged: 1, failed: 0 });
    } finally {
      await lock.reset(REGISTRATION_LOCK, 'E2161');
    }
  }, 60_000);

  test('refused rows go to the error file with row, column, value and reason, the same in a dry run; an existing member by staff id is unchanged', async () => {
    hr.employees.set(
      'left.company@acme.example',
      acmeEmployee('E2201', 'left.company@acme.example', { status: 'Terminated' }),
    );
    hr.employees.set(
      'elsewhere@acme.example',
      acmeEmployee('E2202', 'elsewhere@acme.example', { companyId: 'BG-999' }),
    );
    hr.employees.set('intern@acme.example', acmeEmployee('E2203', 'intern@acme.example', { employmentType: 'Intern' }));
    // the HR system holds the seed's member E1001 under another email: registerFromHr's "already a member"
    hr.employees.set('amal.h@acme.example', acmeEmployee('E1001', 'amal.h@acme.example'));
    hr.employees.set('sami.noor@acme.example', acmeEmployee('E2204', 'sami.noor@acme.example'));
    const file = csv('refused.csv', [
      'nobody@acme.example,', // 2: not in HR
      'not-an-email,', // 3
      'left.company@acme.example,', // 4: HR status not active
      'elsewhere@acme.example,', // 5: no company for the BG_ID
      'intern@acme.example,', // 6: no member type for the employment type
      'amal.h@acme.example,', // 7: already a member (staff id)
      'sami.noor@acme.example,', // 8
      'Sami.Noor@acme.example,', // 9: duplicate of row 8
      'sami.noor@acme.example,phone', // 10: no such login method
    ]);
    const dryErrors = path.join(tmp, 'refused-dry.errors.csv');
    const realErrors = path.join(tmp, 'refused-real.errors.csv');
    expect(await run(file, { dryRun: true, errorsFile: dryErrors })).toMatchObject({
      rows: 9,
      created: 1,
      unchanged: 1,
      failed: 7,
    });
    expect(await memberByEmail('sami.noor@acme.example')).toBeUndefined();
    expect(await run(file, { errorsFile: realErrors })).toMatchObject({ rows: 9, created: 1, unchanged: 1, failed: 7 });
    expect(await memberByEmail('sami.noor@acme.example')).toBeDefined();
    const lines = errorLines(realErrors).sort();
    expect(lines).toEqual([
      '10,loginMethod,phone,"not one of sso, email_password"',
      "2,email,nobody@acme.example,The HR system knows no employee with email 'nobody@acme.example'",
      expect.stringMatching(/^3,email,not-an-email,.*email.*format/),
      "4,email,left.company@acme.example,Employee 'E2201' has HR status 'Terminated'; only active employees register",
      "5,email,elsewhere@acme.example,No company has BG_ID 'BG-999'",
      "6,email,intern@acme.example,Employment type 'Intern' matches no active member type",
      '9,email,sami.noor@acme.example,duplicate of row 8',
    ]);
    expect(errorLines(dryErrors).sort()).toEqual(lines);
    expect(await memberByEmail('nobody@acme.example')).toBeUndefined();
    expect(await memberByEmail('left.company@acme.example')).toBeUndefined();
  });

  test('the HR system down: each row fails with the reason, the run goes on to the end', async () => {
    hr.employees.set('late.joiner@acme.example', acmeEmployee('E2301', 'late.joiner@acme.example'));
    hr.employees.set('later.joiner@acme.example', acmeEmployee('E2302', 'later.joiner@acme.example'));
    const file = csv('hr-down.csv', [
      'late.joiner@acme.example,',
      'later.joiner@acme.example,',
      'amal.haddad@acme.example,',
    ]);
    await hr.stop();
    for (const dryRun of [true, false]) {
      const errorsFile = path.join(tmp, `hr-down-${dryRun}.errors.csv`);
      expect(await run(file, { dryRun, errorsFile })).toMatchObject({ rows: 3, created: 0, unchanged: 1, failed: 2 });
      const lines = errorLines(errorsFile).sort();
      expect(lines).toEqual([
        expect.stringMatching(
          /^2,email,late\.joiner@acme\.example,The HR system could not be used: HR system unreachable/,
        ),
        expect.stringMatching(
          /^3,email,later\.joiner@acme\.example,The HR system could not be used: HR system unreachable/,
        ),
      ]);
    }
    expect(await memberByEmail('late.joiner@acme.example')).toBeUndefined();
  });
});
