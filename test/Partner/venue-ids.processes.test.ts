/**
 * Venue ids are unique across partners, across two api-only processes with
 * no projector and no MongoDB (test/support/api-pair.ts): listVenues answers
 * nothing on either, and still, of partners creating one venue id at once,
 * exactly one gets it and the others 409 17008. The rule reads the id's
 * VenueOwner instance, never the listing. getLog, which reads one audit
 * entry, answers it from the entry's instance on such a process too.
 */
import { outcomes, startApiPair, type ApiPair } from '../support/api-pair';
import { waitFor } from '../support/harness';
import { PARTNER_ENV, partnerBody, venueBody } from './support';

let pair: ApiPair;
let c: string;
let superUser: Record<string, string>;
const PARTNERS = ['vp-1', 'vp-2', 'vp-3', 'vp-4'];

beforeAll(async () => {
  pair = await startApiPair('vid', PARTNER_ENV, 'worker,projector');
  c = `/${pair.projectId}/CALL`;
  superUser = { authorization: `Bearer ${pair.helper.token('program_management_user', 'pm1', ['super'])}` };
  // the system actor's creations are approved at once
  for (const id of PARTNERS) await pair.helper.rt.call('Partner', 'init', id, partnerBody());
}, 120_000);
afterAll(() => pair?.stop());

const createVenue = (on: 0 | 1, partnerId: string, body: Record<string, unknown>) =>
  pair.post(on, `${c}/Partner/createVenue/${partnerId}`, venueBody(body), superUser);

test('four partners creating one venue id at once through two processes: one 201, three 409 17008 naming the field', async () => {
  const answers = await Promise.all(
    PARTNERS.map((partnerId, i) => createVenue((i % 2) as 0 | 1, partnerId, { id: 'marina-1' })),
  );
  expect(outcomes(answers)).toEqual([
    [201, null],
    [409, 17008],
    [409, 17008],
    [409, 17008],
  ]);
  for (const refused of answers.filter((r) => r.status === 409))
    expect(refused.body.details.errors).toEqual([{ field: 'id', reason: 'is the id of another venue' }]);
  const owner = PARTNERS[answers.findIndex((r) => r.status === 201)]!;

  // no listing was there to read
  for (const on of [0, 1] as const)
    expect((await pair.get(on, `${c}/Partner/listVenues/${owner}`, superUser)).body.totalCount).toBe(0);

  // the id stays the owner's on both processes; only the owner has the venue
  const other = PARTNERS.find((p) => p !== owner)!;
  for (const on of [0, 1] as const) expect((await createVenue(on, other, { id: 'marina-1' })).body.code).toBe(17008);
  expect((await pair.get(1, `${c}/Partner/getVenue/${owner}?venueId=marina-1`, superUser)).body.venue).toMatchObject({
    id: 'marina-1',
    partnerId: owner,
  });
  expect((await pair.get(0, `${c}/Partner/getVenue/${other}?venueId=marina-1`, superUser)).body.code).toBe(17007);
  // another id is free to anyone
  expect((await createVenue(0, other, { id: 'marina-2' })).status).toBe(201);
}, 120_000);

test('a venue with a generated id claims it too: no partner may choose it afterwards', async () => {
  const made = await createVenue(1, 'vp-1', {});
  expect(made.status).toBe(201);
  expect((await createVenue(0, 'vp-2', { id: made.body.venue.id })).body.code).toBe(17008);
}, 60_000);

test('getLog answers a Partner audit entry by id from its instance, on processes without a listing', async () => {
  // the helper projects into a store of its own (neither api process reads it): the entry's id comes from there
  const listed = await waitFor(
    async () =>
      (
        await pair.helper.rt.documents.find<Record<string, unknown>>(
          'logs',
          { classId: 'Partner', entityId: 'vp-3' },
          { limit: 1 },
        )
      ).items[0],
    { what: 'an audit entry of partner vp-3 projected in the helper' },
  );
  const logId = String(listed._id);
  for (const on of [0, 1] as const) {
    expect((await pair.get(on, `${c}/Partner/getLogEntries?partnerId=vp-3`, superUser)).body.totalCount).toBe(0);
    const one = await pair.get(on, `${c}/Partner/getLog?logId=${logId}`, superUser);
    expect([one.status, one.body]).toEqual([
      200,
      expect.objectContaining({ id: logId, classId: 'Partner', entityType: 'partner', entityId: 'vp-3' }),
    ]);
  }
  // an entry of another class is not the Partner's to give
  await pair.helper.rt.call('LogManager', 'addLogEntry', undefined, {
    classId: 'Setting',
    entityType: 'setting',
    entityId: 'vp-3',
    before: null,
    after: { a: 1 },
  });
  const foreign = await waitFor(
    async () =>
      (
        await pair.helper.rt.documents.find<Record<string, unknown>>(
          'logs',
          { classId: { $ne: 'Partner' } },
          { limit: 1 },
        )
      ).items[0],
    { what: 'an audit entry of another class projected in the helper' },
  );
  expect((await pair.get(1, `${c}/Partner/getLog?logId=${String(foreign._id)}`, superUser)).body.code).toBe(17017);
  expect((await pair.get(0, `${c}/Partner/getLog?logId=no-such-log`, superUser)).body.code).toBe(17017);
}, 60_000);
