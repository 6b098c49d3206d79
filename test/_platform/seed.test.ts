import * as fs from 'node:fs';
import * as path from 'node:path';
import { applySeed, checkSeedDocument, type SeedDocument } from '../../classes/_platform/seed';
import { projectRoot } from '../../runtime/config';
import { startTestRuntime, type TestRuntime } from '../support/harness';

const seedFile = path.join(projectRoot(), 'examples/seed.json');

test('the seed document shape is checked before anything is written', () => {
  expect(checkSeedDocument([])).toEqual(['the seed file must hold a JSON object']);
  expect(checkSeedDocument({ companys: [] })[0]).toContain("unknown key 'companys'");
  expect(checkSeedDocument({ tiers: {} })).toEqual(["'tiers' must be a list"]);
  expect(checkSeedDocument({ tiers: [1] })).toEqual(['tiers[0] must be an object']);
  expect(checkSeedDocument(JSON.parse(fs.readFileSync(seedFile, 'utf8')))).toEqual([]);
});

describe('seeding a program', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await startTestRuntime({ env: { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas' } });
  });
  afterAll(() => t.stop());
  const call = (classId: string, method: string, instanceId: string | undefined, body: unknown) =>
    t.rt.call(classId, method, instanceId, body);

  test('the example file is applied as the system actor with nothing left pending, and a second run skips what exists', async () => {
    const doc = JSON.parse(fs.readFileSync(seedFile, 'utf8')) as SeedDocument;
    const first = await applySeed(doc, call);
    expect(first.filter((o) => o.result !== 'created')).toEqual([]);
    expect(first).toHaveLength(14);

    const company = (await call('Company', 'getCompany', 'default', { bgId: 'BG-100' })).body as Record<
      string,
      unknown
    >;
    expect(company).toMatchObject({ id: 'acme', status: 'active', companyGroupId: 'cg-internal' });
    expect(company.pendingApprovalId ?? null).toBeNull();
    const memberType = (
      await call('Setting', 'findMemberTypeBySystemIdentifier', 'default', { systemIdentifier: 'permanent' })
    ).body;
    expect(memberType).toMatchObject({ id: 'mt-permanent', status: 'active' });
    const tier = (await call('Tier', 'getTier', 'tier-base-2026', {})).body as {
      tier: Record<string, unknown>;
      pendingApproval: unknown;
    };
    expect(tier.tier).toMatchObject({ status: 'active', tierType: { id: 'tt-base', group: 'base' } });

    const member = (await call('Member', 'getMemberPersonal', 'staffId!E1001', {})).body as Record<string, unknown>;
    expect(member).toMatchObject({ name: 'Amal', surname: 'Haddad' });

    const partner = (await call('Partner', 'getPartnerDetails', 'partner-sunrise', {})).body as {
      partner: Record<string, unknown>;
      pendingApproval: unknown;
    };
    expect(partner).toMatchObject({
      partner: { id: 'partner-sunrise', status: 'active', contractStartDate: '2026-01-01T00:00:00.000Z' },
      pendingApproval: null,
    });
    for (const venueId of ['venue-sunrise-marina', 'venue-sunrise-downtown']) {
      const venue = (await call('Partner', 'getVenue', 'partner-sunrise', { venueId })).body as Record<string, unknown>;
      expect(venue).toMatchObject({
        venue: { id: venueId, partnerId: 'partner-sunrise', status: 'active', type: 'venue' },
        pendingApproval: null,
      });
    }

    // the member app's screens: ContentManager's singleton exists, empty, so getContents answers instead of a 500
    const contents = await t.post(`/${t.projectId}/CALL/ContentManager/getContents/default`, {});
    expect(contents.status).toBe(200);

    const again = await applySeed(doc, call);
    expect(again.filter((o) => o.result === 'failed')).toEqual([]);
    expect(again.filter((o) => o.result === 'skipped').length).toBeGreaterThanOrEqual(12);
  });

  test('a record that fails is reported and the rest still goes in', async () => {
    const out = await applySeed(
      {
        memberTypes: [{ id: 'mt-x', name: 'X', systemIdentifier: 'X' }, { id: 'mt-bad' }],
      },
      call,
    );
    expect(out.map((o) => o.result)).toEqual(['created', 'failed']);
    expect(out[1].error?.message).toMatch(/name/);
  });

  test('partners and venues take the status of the file; a venue of no partner fails alone', async () => {
    const venue = (id: string, partnerId: string, status?: string) => ({
      id,
      partnerId,
      venueName: id,
      address: '1 Road',
      contactName: 'Contact',
      contactEmail: 'contact@example.com',
      contactPhone: '+1000',
      mapCoordinates: { latitude: 1, longitude: 2 },
      ...(status ? { status } : {}),
    });
    const partner = {
      id: 'seed-partner-2',
      legalName: 'Seed Partner LLC',
      brandName: 'Seed',
      businessAddress: '1 Road',
      city: 'Dubai',
      country: 'AE',
      primaryContact: { name: 'P', email: 'p@example.com', phone: '+1' },
      contractId: 'C-1',
      contractStartDate: '2026-01-01',
      contractEndDate: '2027-01-01',
      status: 'inactive',
    };
    const out = await applySeed(
      {
        partners: [partner],
        venues: [venue('seed-venue-2', 'seed-partner-2', 'inactive'), venue('seed-venue-3', 'no-such-partner')],
      },
      call,
    );
    expect(out.map((o) => [o.kind, o.id, o.result])).toEqual([
      ['partner', 'seed-partner-2', 'created'],
      ['venue', 'seed-venue-2', 'created'],
      ['venue', 'seed-venue-3', 'failed'],
    ]);
    expect(
      ((await call('Partner', 'getPartnerDetails', 'seed-partner-2', {})).body as { partner: { status: string } })
        .partner.status,
    ).toBe('inactive');
    const v = (await call('Partner', 'getVenue', 'seed-partner-2', { venueId: 'seed-venue-2' })).body as {
      venue: { status: string };
      pendingApproval: unknown;
    };
    expect(v).toMatchObject({ venue: { status: 'inactive' }, pendingApproval: null });
    // again: both exist, skipped
    const again = await applySeed({ partners: [partner], venues: [venue('seed-venue-2', 'seed-partner-2')] }, call);
    expect(again.map((o) => o.result)).toEqual(['skipped', 'skipped']);
  });

  test('members go in side by side with --concurrency, outcomes stay in file order, and a taken staff id still fails alone', async () => {
    const members = Array.from({ length: 24 }, (_, i) => ({
      id: `seed-par-${i}`,
      name: `Par${i}`,
      surname: 'Seed',
      staffId: i === 23 ? 'SP-0' : `SP-${i}`, // the last one repeats the first one's staff id
      email: `seed-par-${i}@example.com`,
      company: { id: 'acme' },
      memberType: 'mt-permanent',
    }));
    const out = await applySeed({ members }, call, { concurrency: 8 });
    expect(out.map((o) => o.id)).toEqual(members.map((m) => m.id));
    expect(out.slice(0, 23).every((o) => o.result === 'created')).toBe(true);
    expect(out[23]).toMatchObject({ result: 'failed', error: { message: expect.stringMatching(/SP-0/) } });
    const last = (await call('Member', 'getMemberPersonal', 'staffId!SP-22', {})).body as Record<string, unknown>;
    expect(last).toMatchObject({ id: 'seed-par-22', name: 'Par22' });
  });
});
