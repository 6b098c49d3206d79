/**
 * docs/hr-integration.md's ID card walk-through ("A local ID card system") against
 * scripts/id-card-demo-server.ts (`npm run idcard:demo`): the demo started as that page starts it (its own
 * process, port 0, the URL read from its first stdout line, an ID_CARD_API_KEY it checks), its cards read
 * through the service's own adapter (IdCardClient), and the registration of the hr:demo employees over a
 * runtime seeded with examples/seed.json: Nadia Karim (E3001) with her card's photo waiting for approval, Omar
 * Farouk (E3002) without a photo.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { IdCardClient, idCardClientConfig } from '../../classes/Member/id-card-client';
import { projectRoot } from '../../runtime/config';
import { startHrDemo, type HrDemo } from '../../scripts/hr-demo-server';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/harness';
import { seedExample } from '../support/seed-example';
import { memberState } from '../Member/support';

const root = projectRoot();
const API_KEY = 'demo-card-key-for-the-test';

describe('the demo ID card server (npm run idcard:demo)', () => {
  let proc: ChildProcess | undefined;
  let url = '';
  let out = '';
  let hr: HrDemo | undefined;
  let t: TestRuntime | undefined;
  const cardsClient = (key: string | null = API_KEY) =>
    new IdCardClient(
      idCardClientConfig({ ID_CARD_BASE_URL: url, ID_CARD_API_KEY: key ?? undefined, ID_CARD_RETRIES: '0' }),
    );

  beforeAll(async () => {
    // as `npm run idcard:demo -- 0` runs it: tsx on the script, port 0 on the command line, the key from ID_CARD_API_KEY
    proc = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/id-card-demo-server.ts'), '0'], {
      cwd: root,
      env: { ...process.env, ID_CARD_API_KEY: API_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    url = (await waitFor(
      () => {
        if (proc!.exitCode !== null) throw new Error(`the demo ID card server exited (${proc!.exitCode}): ${out}`);
        return /ID card demo server listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out)?.[1];
      },
      { what: 'the demo ID card server to print its URL', timeoutMs: 30_000 },
    ))!;
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await hr?.stop();
    if (proc && proc.exitCode === null) {
      const exited = new Promise((resolve) => proc!.once('exit', resolve));
      proc.kill('SIGTERM');
      await exited;
    }
  });

  test('it refuses a request without its key, and its cards are what the service accepts: E3001 with a PNG photo, E3002 without, others none', async () => {
    expect(url).not.toMatch(/:0$/);
    expect(
      await cardsClient(null)
        .lookupCard('E3001')
        .catch((e: { kind: string; status: number }) => [e.kind, e.status]),
    ).toEqual(['http', 401]);
    expect(
      await cardsClient('another-key')
        .lookupCard('E3001')
        .catch((e: { kind: string; status: number }) => [e.kind, e.status]),
    ).toEqual(['http', 401]);
    const nadia = await cardsClient().lookupCard('E3001');
    expect(nadia).toMatchObject({
      cardNumber: 'ACME-3001-7',
      validFrom: '2026-01-05',
      validUntil: '2029-01-04',
      photo: { mimeType: 'image/png' },
    });
    expect(Buffer.from(nadia!.photo!.contentBase64, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(await cardsClient().lookupCard('E3002')).toEqual({
      cardNumber: 'ACME-3002-4',
      validFrom: '2026-02-10',
      validUntil: '2029-02-09',
    });
    expect(await cardsClient().lookupCard('E9999')).toBeNull();
    // its request log names what was asked, never the photo
    expect(out).toMatch(/GET \/cards\/E3001 \(with photo\) → 200/);
    expect(out).not.toContain(nadia!.photo!.contentBase64.slice(0, 40));
  });

  test("with hr:demo, the registration of E3001 leaves her card's photo waiting for approval; E3002 has none", async () => {
    hr = await startHrDemo({ port: 0 });
    t = await startTestRuntime({
      env: {
        CLASS_DIRS: 'classes',
        SCHEMA_DIRS: 'schemas',
        HR_BASE_URL: hr.url,
        HR_RETRY_BASE_MS: '10',
        ID_CARD_BASE_URL: url,
        ID_CARD_API_KEY: API_KEY,
      },
    });
    await seedExample(t);
    const register = async (email: string) =>
      (await t!.rt.call('Member', 'registerFromHr', undefined, { email })).body as Record<string, any>;
    const nadia = await register('nadia.karim@acme.example');
    expect([nadia.warnings, nadia.idCard]).toEqual([
      [],
      {
        lookup: 'found',
        cardNumber: 'ACME-3001-7',
        validFrom: '2026-01-05',
        validUntil: '2029-01-04',
        photo: 'pending_approval',
        approvalId: expect.any(String),
      },
    ]);
    const { state } = await memberState(t, nadia.member.id);
    expect(state.private.pendingPhoto).toMatchObject({ approvalId: nadia.idCard.approvalId, source: 'id_card' });
    const omar = await register('omar.farouk@acme.example');
    expect([omar.warnings, omar.idCard]).toEqual([
      [],
      { lookup: 'found', cardNumber: 'ACME-3002-4', validFrom: '2026-02-10', validUntil: '2029-02-09', photo: 'none' },
    ]);
  }, 60_000);
});
