/**
 * Importing the partner and partner location sheets (spec 2.9) over
 * a real runtime seeded with examples/seed.json, through Partner's own
 * operations as the system actor: nothing is left pending.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runImport } from '../../classes/_platform/import/run';
import { SHEETS } from '../../classes/_platform/import/sheets';
import { applySeed, type SeedDocument } from '../../classes/_platform/seed';
import { projectRoot } from '../../runtime/config';
import { startTestRuntime, type TestRuntime } from '../support/harness';

const root = projectRoot();
const sample = (name: string) => path.join(root, 'examples/import', name);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'import-partners-'));
const errorLines = (file: string) =>
  fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').slice(1) : [];

describe('importing the partner sheets', () => {
  let t: TestRuntime;
  let n = 0;
  const call = (classId: string, method: string, instanceId: string | undefined, body: unknown) =>
    t.rt.call(classId, method, instanceId, body);
  const run = (sheet: string, file: string, opts: { dryRun?: boolean; errorsFile?: string } = {}) =>
    runImport(SHEETS[sheet]!, file, call, { errorsFile: path.join(tmp, `${sheet}-${++n}.errors.csv`), ...opts });

  beforeAll(async () => {
    t = await startTestRuntime({ env: { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas' } });
    const seed = JSON.parse(fs.readFileSync(path.join(root, 'examples/seed.json'), 'utf8')) as SeedDocument;
    expect((await applySeed(seed, call)).filter((o) => o.result === 'failed')).toEqual([]);
  });
  afterAll(() => t.stop());

  test('the partner sample imports cleanly, active with nothing pending, and a second run changes nothing', async () => {
    const errorsFile = path.join(tmp, 'partners.errors.csv');
    expect(await run('partners', sample('partners.csv'), { dryRun: true })).toMatchObject({
      rows: 2,
      created: 2,
      failed: 0,
    });
    await expect(call('Partner', 'getPartnerDetails', 'partner-oasis', {})).rejects.toMatchObject({
      code: 'UNKNOWN_INSTANCE',
    });
    expect(await run('partners', sample('partners.csv'), { errorsFile })).toMatchObject({
      rows: 2,
      created: 2,
      updated: 0,
      unchanged: 0,
      failed: 0,
    });
    expect(errorLines(errorsFile)).toEqual([]);
    const oasis = (await call('Partner', 'getPartnerDetails', 'partner-oasis', {})).body as {
      partner: Record<string, unknown>;
      pendingApproval: unknown;
    };
    expect(oasis).toMatchObject({
      partner: {
        legalName: 'Oasis Fitness FZ LLC',
        businessAddress: '5 Sports City Road',
        partnerTypeId: 'pt-fitness',
        partnerSubtypeIds: ['pst-gym', 'pst-pool'],
        primaryContact: { name: 'Rami Aziz', email: 'rami@oasis.example', phone: '+971500000200' },
        contractId: 'CON-2026-014',
        contractStartDate: '2026-03-01T00:00:00.000Z',
        status: 'active',
      },
      pendingApproval: null,
    });
    const palm = (await call('Partner', 'getPartnerDetails', 'partner-palm', {})).body as {
      partner: Record<string, unknown>;
    };
    expect(palm.partner).toMatchObject({ primaryContact: { name: 'Palm Kitchen' } });
    expect(await run('partners', sample('partners.csv'))).toMatchObject({
      rows: 2,
      created: 0,
      updated: 0,
      unchanged: 2,
      failed: 0,
    });
  });

  test('a changed partner row goes through the update operations', async () => {
    const file = path.join(tmp, 'partners-changed.csv');
    const lines = fs.readFileSync(sample('partners.csv'), 'utf8').trim().split('\n');
    fs.writeFileSync(
      file,
      `${[lines[0], lines[1]!.replace('rami@oasis.example', 'rami.aziz@oasis.example').replace('2027-02-28', '2027-06-30')].join('\n')}\n`,
    );
    expect(await run('partners', file)).toMatchObject({ rows: 1, updated: 1, failed: 0 });
    const oasis = (await call('Partner', 'getPartnerDetails', 'partner-oasis', {})).body as {
      partner: Record<string, unknown>;
    };
    expect(oasis.partner).toMatchObject({
      primaryContact: { email: 'rami.aziz@oasis.example' },
      contractEndDate: '2027-06-30T00:00:00.000Z',
    });
    expect(await run('partners', file)).toMatchObject({ rows: 1, unchanged: 1 });
  });

  test('the location sample imports as venues of their partner, an inactive one inactive, and re-imports unchanged', async () => {
    const errorsFile = path.join(tmp, 'locations.errors.csv');
    expect(await run('locations', sample('locations.csv'), { errorsFile })).toMatchObject({
      rows: 2,
      created: 2,
      failed: 0,
    });
    expect(errorLines(errorsFile)).toEqual([]);
    const jbr = (await call('Partner', 'getVenue', 'partner-sunrise', { venueId: 'venue-sunrise-jbr' })).body as Record<
      string,
      unknown
    >;
    expect(jbr).toMatchObject({
      venue: {
        venueName: '3 The Walk, JBR, Dubai',
        contactName: 'Sara Nasser',
        mapCoordinates: { latitude: 25.078, longitude: 55.133 },
        status: 'active',
      },
      pendingApproval: null,
    });
    const abuDhabi = (await call('Partner', 'getVenue', 'partner-sunrise', { venueId: 'venue-sunrise-abudhabi' }))
      .body as Record<string, unknown>;
    expect(abuDhabi).toMatchObject({ venue: { status: 'inactive' }, pendingApproval: null });
    expect(await run('locations', sample('locations.csv'))).toMatchObject({
      rows: 2,
      created: 0,
      updated: 0,
      unchanged: 2,
      failed: 0,
    });
  });

  test('bad location and partner rows are refused with row, column, value and reason, the same in a dry run', async () => {
    const file = path.join(tmp, 'locations-bad.csv');
    fs.writeFileSync(
      file,
      [
        'id,partnerId,status,address,coordinateLat,coordinateLong,contactPersonFullName,contactPersonEmail,contactPersonPhone',
        'venue-x1,partner-nowhere,active,1 Road,25.1,55.1,A B,a@b.example,+971500000999',
        'venue-x2,partner-sunrise,active,1 Road,north,55.1,A B,a@b.example,+971500000999',
        'venue-x3,partner-sunrise,closed,1 Road,25.1,55.1,A B,a@b.example,+971500000999',
      ].join('\n') + '\n',
    );
    const dryErrors = path.join(tmp, 'locations-bad-dry.errors.csv');
    const realErrors = path.join(tmp, 'locations-bad-real.errors.csv');
    expect(await run('locations', file, { dryRun: true, errorsFile: dryErrors })).toMatchObject({ rows: 3, failed: 3 });
    expect(await run('locations', file, { errorsFile: realErrors })).toMatchObject({ rows: 3, created: 0, failed: 3 });
    expect(errorLines(realErrors).sort()).toEqual([
      '2,partnerId,partner-nowhere,no partner with this id',
      '3,coordinateLat,north,not a number',
      '4,status,closed,"not one of active, inactive"',
    ]);
    expect(errorLines(dryErrors).sort()).toEqual(errorLines(realErrors).sort());

    const partnersFile = path.join(tmp, 'partners-bad.csv');
    const header = fs.readFileSync(sample('partners.csv'), 'utf8').split('\n')[0];
    fs.writeFileSync(
      partnersFile,
      `${header}\npartner-bad,Bad LLC,Bad,,,,,1 Road,,,AE,Dubai,,,bad@bad.example,+971500000998,"CON-9, 2026-01-01"\n`,
    );
    const partnerErrors = path.join(tmp, 'partners-bad.errors.csv');
    expect(await run('partners', partnersFile, { errorsFile: partnerErrors })).toMatchObject({ rows: 1, failed: 1 });
    expect(errorLines(partnerErrors)).toEqual([
      '2,contracts,"CON-9,2026-01-01","not ""contract id, start date, end date"" (ISO 8601 dates)"',
    ]);
  });

  test('the partner staff sample imports as partner users of their partner and venues, with their status, and re-imports unchanged', async () => {
    const errorsFile = path.join(tmp, 'staff.errors.csv');
    expect(await run('partner-staff', sample('partner-staff.csv'), { errorsFile })).toMatchObject({
      rows: 2,
      created: 2,
      failed: 0,
    });
    expect(errorLines(errorsFile)).toEqual([]);
    const omar = (await call('PartnerUser', 'getUser', 'partner-user-sunrise-omar', {})).body as Record<
      string,
      unknown
    >;
    expect(omar).toMatchObject({
      user: {
        fullName: 'Omar Saleh',
        email: 'omar.saleh@sunrise.example',
        partners: [{ partnerId: 'partner-sunrise', role: 'manager' }],
        venues: [{ partnerId: 'partner-sunrise', venueId: 'venue-sunrise-marina' }],
        status: 'active',
      },
      pendingApproval: null,
    });
    const maya = (await call('PartnerUser', 'getUser', 'partner-user-sunrise-maya', {})).body as {
      user: Record<string, unknown>;
    };
    expect(maya.user).toMatchObject({
      status: 'inactive',
      partners: [{ partnerId: 'partner-sunrise', role: 'staff' }],
    });
    expect(maya.user.venues).toHaveLength(2);
    expect(await run('partner-staff', sample('partner-staff.csv'))).toMatchObject({
      rows: 2,
      created: 0,
      updated: 0,
      unchanged: 2,
      failed: 0,
    });

    const file = path.join(tmp, 'staff-bad.csv');
    fs.writeFileSync(
      file,
      [
        'id,name,email,partnerId,role,locationIds,status',
        'pu-x1,A B,a1@b.example,partner-sunrise,owner,,active',
        'pu-x2,A B,a2@b.example,partner-sunrise,staff,"venue-sunrise-marina, venue-nowhere",active',
        'pu-x3,A B,,partner-sunrise,staff,,active',
      ].join('\n') + '\n',
    );
    const badErrors = path.join(tmp, 'staff-bad.errors.csv');
    expect(await run('partner-staff', file, { errorsFile: badErrors })).toMatchObject({
      rows: 3,
      created: 0,
      failed: 3,
    });
    expect(errorLines(badErrors).sort()).toEqual([
      '2,role,owner,"not one of admin, manager, staff"',
      '3,locationIds,"venue-sunrise-marina,venue-nowhere",no location venue-nowhere of partner partner-sunrise',
      '4,email,,required',
    ]);
  });
});
