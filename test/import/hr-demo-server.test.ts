/**
 * docs/hr-integration.md's local `register-from-hr` walk-through ("A local HR system") against
 * scripts/hr-demo-server.ts (`npm run hr:demo`): the demo HR system started as that page starts it (its own
 * process, here on port 0, the URL read from its first stdout line, an HR_API_KEY it checks), and the sample
 * file registered through import's runner, as the CLI does and as test/import/register-from-hr.test.ts does
 * with the Member tests' HR server, over a real runtime seeded with examples/seed.json: a dry run, the run
 * (created 2, unchanged 1), a second run (unchanged 3); the demo HR holds the new members' ids.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runImport, type ImportOptions } from '../../classes/_platform/import/run';
import { registerFromHrSheet } from '../../classes/_platform/import/sheets/register-from-hr';
import { projectRoot } from '../../runtime/config';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/harness';
import { seedExample } from '../support/seed-example';

const root = projectRoot();
const sample = path.join(root, 'examples/import/register-from-hr.csv');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hr-demo-'));
const API_KEY = 'demo-key-for-the-test';

describe('the demo HR server (npm run hr:demo) with the sample of register-from-hr', () => {
  let hrProc: ChildProcess | undefined;
  let hrUrl = '';
  let out = '';
  let t: TestRuntime;
  let n = 0;
  const call = (classId: string, method: string, instanceId: string | undefined, body: unknown) =>
    t.rt.call(classId, method, instanceId, body);
  const run = (opts: ImportOptions = {}) =>
    runImport(registerFromHrSheet(), sample, call, { errorsFile: path.join(tmp, `run-${++n}.errors.csv`), ...opts });
  const errorLines = (file: string) =>
    fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').slice(1) : [];
  const hrPost = (pathname: string, body: unknown, key: string | null = API_KEY) =>
    fetch(hrUrl + pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
      body: JSON.stringify(body),
    });
  const recordedMemberIds = async () =>
    (await (await fetch(`${hrUrl}/employees/member-ids`, { headers: { 'x-api-key': API_KEY } })).json()) as Record<
      string,
      string
    >;
  const memberIdOf = async (staffId: string) =>
    ((await call('Member', 'resolveMemberId', `staffId!${staffId}`, {})).body as { id: string }).id;

  beforeAll(async () => {
    // as `npm run hr:demo -- 0` runs it: tsx on the script, port 0 on the command line, the key from HR_API_KEY
    hrProc = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/hr-demo-server.ts'), '0'], {
      cwd: root,
      env: { ...process.env, HR_API_KEY: API_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    hrProc.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    hrProc.stderr!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    await waitFor(
      () => {
        if (hrProc!.exitCode !== null) throw new Error(`the demo HR server exited (${hrProc!.exitCode}): ${out}`);
        return /HR demo server listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out)?.[1];
      },
      { what: 'the demo HR server to print its URL', timeoutMs: 30_000 },
    );
    hrUrl = /HR demo server listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out)![1]!;
    t = await startTestRuntime({
      env: {
        CLASS_DIRS: 'classes',
        SCHEMA_DIRS: 'schemas',
        HR_BASE_URL: hrUrl,
        HR_API_KEY: API_KEY,
        HR_TIMEOUT_MS: '5000',
        HR_RETRIES: '1',
        HR_RETRY_BASE_MS: '10',
      },
    });
    await seedExample(t);
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    if (hrProc && hrProc.exitCode === null) {
      const exited = new Promise((resolve) => hrProc!.once('exit', resolve));
      hrProc.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('it listens on the port it was given (0: a free one, the real one printed) and refuses a request without its API key', async () => {
    expect(hrUrl).not.toMatch(/:0$/);
    const noKey = await hrPost('/employees/lookup', { email: 'nadia.karim@acme.example' }, null);
    expect(noKey.status).toBe(401);
    const wrongKey = await hrPost('/employees/lookup', { email: 'nadia.karim@acme.example' }, 'another-key');
    expect(wrongKey.status).toBe(401);
    const nadia = await hrPost('/employees/lookup', { email: 'Nadia.Karim@acme.example' });
    expect(nadia.status).toBe(200);
    expect(await nadia.json()).toMatchObject({
      employeeId: 'E3001',
      email: 'nadia.karim@acme.example',
      status: 'Active',
      companyId: 'BG-100',
    });
    expect((await hrPost('/employees/lookup', { email: 'nobody@acme.example' })).status).toBe(404);
    expect((await hrPost('/employees/member-id', { employeeId: 'E9999', memberId: 'x' })).status).toBe(404);
    expect(await recordedMemberIds()).toEqual({});
  });

  test('the sequence of docs/hr-integration.md: a dry run predicts created 2 / unchanged 1, the run registers them, a second run finds all 3 unchanged', async () => {
    const dryErrors = path.join(tmp, 'dry.errors.csv');
    expect(await run({ dryRun: true, errorsFile: dryErrors })).toMatchObject({
      sheet: 'register-from-hr',
      rows: 3,
      created: 2,
      updated: 0,
      unchanged: 1,
      failed: 0,
      dryRun: true,
    });
    expect(errorLines(dryErrors)).toEqual([]);
    expect(await recordedMemberIds()).toEqual({});

    const errorsFile = path.join(tmp, 'run.errors.csv');
    expect(await run({ errorsFile })).toMatchObject({
      sheet: 'register-from-hr',
      rows: 3,
      created: 2,
      updated: 0,
      unchanged: 1,
      failed: 0,
    });
    expect(errorLines(errorsFile)).toEqual([]);
    // the member id of each new member reached the demo HR (inline, or through the queued retry)
    const expected = { E3001: await memberIdOf('E3001'), E3002: await memberIdOf('E3002') };
    const recorded = await waitFor(
      async () => {
        const ids = await recordedMemberIds();
        return Object.keys(ids).length === 2 && ids;
      },
      { what: 'the demo HR to hold both member ids', timeoutMs: 30_000 },
    );
    expect(recorded).toEqual(expected);

    expect(await run()).toMatchObject({
      sheet: 'register-from-hr',
      rows: 3,
      created: 0,
      updated: 0,
      unchanged: 3,
      failed: 0,
    });
    // its request log names what the service asked
    expect(out).toMatch(/POST \/employees\/member-id E3001 = \S+ → 200/);
  });
});

test("the demo HR server's employees and the members sample name different people by different staff ids", async () => {
  // docs/hr-integration.md runs both against one service: a staff id of one person in both would import over the other
  const { DEMO_EMPLOYEES } = await import('../../scripts/hr-demo-server');
  const rows = fs.readFileSync(path.join(root, 'examples/import/members.csv'), 'utf8').trim().split('\n').slice(1);
  const sampleIds = new Set(rows.map((r) => r.split(',')[0]));
  for (const e of DEMO_EMPLOYEES)
    expect([e.employeeId, sampleIds.has(e.employeeId as string)]).toEqual([e.employeeId, false]);
});
