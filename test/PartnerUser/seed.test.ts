/**
 * Partner users in the program seed (classes/_platform/seed.ts):
 * created through PartnerUser.init as the system (approved at once:
 * `active`), moved to the file's status, skipped when their id exists, and
 * failed alone when a partner or venue they name does not exist; and the
 * partner user of examples/seed.json.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { applySeed, checkSeedDocument, type SeedDocument } from '../../classes/_platform/seed';
import { projectRoot } from '../../runtime/config';
import { startTestRuntime, type TestRuntime } from '../support/harness';
import { uid } from './support';

// the seed starts with the Setting singleton: every class of the service runs
let t: TestRuntime;
beforeAll(async () => {
  t = await startTestRuntime({ env: { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas' } });
});
afterAll(() => t.stop());

const call = (rt: TestRuntime) => (classId: string, method: string, instanceId: string | undefined, body: unknown) =>
  rt.rt.call(classId, method, instanceId, body);

describe('partner users in a seed file', () => {
  test('created active (or with the status of the file), skipped once they exist; one naming no partner fails alone', async () => {
    const [partnerId, venueId, activeId, inactiveId, strayId] = [uid('sp'), uid('sv'), uid('su'), uid('su'), uid('su')];
    const partner = {
      id: partnerId,
      legalName: 'Seeded LLC',
      brandName: 'Seeded',
      businessAddress: 'x',
      city: 'y',
      country: 'AE',
      primaryContact: { name: 'n', email: 'n@example.com', phone: '+1' },
      contractId: 'C',
      contractStartDate: '2030-01-01',
      contractEndDate: '2031-01-01',
    };
    const venue = {
      id: venueId,
      partnerId,
      venueName: 'Seeded venue',
      address: 'a',
      contactName: 'c',
      contactEmail: 'c@example.com',
      contactPhone: '+1',
      mapCoordinates: { latitude: 1, longitude: 2 },
    };
    const user = (id: string, extra: Record<string, unknown> = {}) => ({
      id,
      fullName: `User ${id}`,
      email: `${id}@example.com`,
      partners: [{ partnerId, role: 'manager' }],
      venues: [{ partnerId, venueId }],
      ...extra,
    });
    const doc: SeedDocument = {
      partners: [partner],
      venues: [venue],
      partnerUsers: [
        user(activeId),
        user(inactiveId, { status: 'inactive' }),
        user(strayId, { partners: [{ partnerId: 'no-such-partner', role: 'staff' }], venues: [] }),
      ],
    };
    expect(checkSeedDocument(doc)).toEqual([]);
    const first = await applySeed(doc, call(t));
    expect(first.filter((o) => o.kind === 'partnerUser').map((o) => [o.id, o.result, o.error?.code])).toEqual([
      [activeId, 'created', undefined],
      [inactiveId, 'created', undefined],
      [strayId, 'failed', 17106],
    ]);
    const active = (await t.rt.call('PartnerUser', 'getUser', activeId, {})).body as Record<string, any>;
    expect(active).toMatchObject({
      user: {
        id: activeId,
        status: 'active',
        createdBy: 'system',
        partners: [{ partnerId, role: 'manager' }],
        venues: [{ partnerId, venueId }],
      },
      pendingApproval: null,
    });
    expect(((await t.rt.call('PartnerUser', 'getUser', inactiveId, {})).body as Record<string, any>).user.status).toBe(
      'inactive',
    );
    const again = await applySeed({ partnerUsers: [user(activeId)] }, call(t));
    expect(again.map((o) => [o.id, o.result])).toEqual([[activeId, 'skipped']]);
  });
});

describe('examples/seed.json', () => {
  test('carries a partner user of its partner, with both venues, active once seeded', async () => {
    const doc = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'examples/seed.json'), 'utf8')) as SeedDocument;
    const outcomes = await applySeed(doc, call(t));
    expect(outcomes.filter((o) => o.kind === 'partnerUser').map((o) => [o.id, o.result])).toEqual([
      ['partner-user-sunrise-lina', 'created'],
    ]);
    const r = (await t.rt.call('PartnerUser', 'getUser', 'partner-user-sunrise-lina', {})).body as Record<string, any>;
    expect(r.user).toMatchObject({
      email: 'lina.haddad@sunrise.example',
      status: 'active',
      partners: [{ partnerId: 'partner-sunrise', role: 'admin' }],
      venues: [
        { partnerId: 'partner-sunrise', venueId: 'venue-sunrise-marina' },
        { partnerId: 'partner-sunrise', venueId: 'venue-sunrise-downtown' },
      ],
    });
  });
});
