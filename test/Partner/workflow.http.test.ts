/**
 * Each of the nine partner and venue workflow events (spec 6) through a
 * manual approval and an auto approval. The rules are replaced at run time
 * (Workflow.updateWorkflowConfiguration, as the system identity) so that
 * every event waits for an `approver`: a program management user's change
 * then waits for the approver's review; the same change made by the system
 * identity is approved at once (the system actor always is, whatever the
 * rule).
 */
import { waitFor, type TestRuntime } from '../support/harness';
import { bearer, freshId, partnerBody, PNG, startPartnerRuntime, venueBody, writePartnerRoles } from './support';

let t: TestRuntime;
let p: string;
let superUser: Record<string, string>;
let approver: Record<string, string>;

const manualRules = (events: string[]) =>
  events.map((event) => ({
    event,
    currentStatus: '*',
    targetStatus: event.endsWith('_create') ? 'active' : '*',
    conditions: [],
    approvers: ['approver'],
  }));

beforeAll(async () => {
  t = await startPartnerRuntime();
  await writePartnerRoles(t);
  p = `/${t.projectId}/CALL`;
  superUser = bearer(t, 'pm1', ['super']);
  approver = bearer(t, 'ann', ['approver']);
  const partnerEvents = [
    'partner_create',
    'update_partner_details',
    'update_partner_brand_logo',
    'update_partner_contact',
    'update_partner_contract',
    'update_partner_status',
  ];
  await t.rt.call('Workflow', 'updateWorkflowConfiguration', 'Partner', {
    classId: 'Partner',
    rules: manualRules(partnerEvents),
  });
  await t.rt.call('Workflow', 'updateWorkflowConfiguration', 'Venue', {
    classId: 'Venue',
    rules: manualRules(['venue_create', 'venue_update', 'venue_status_update']),
  });
});
afterAll(() => t.stop());

type Answer = { status: number; body: any };
const http = (method: string, id: string, body: unknown): Promise<Answer> =>
  t.post(`${p}/Partner/${method}/${id}`, body, superUser);
const asSystem = async (method: string, id: string, body: unknown): Promise<Answer> => {
  const r = await t.rt.call('Partner', method, id, body);
  return { status: r.status, body: r.body };
};
const review = (approvalId: string) =>
  t.post(`${p}/ApprovalManager/reviewApproval/${approvalId}`, { action: 'approve' }, approver);

async function partnerNow(id: string) {
  return (await t.rt.call('Partner', 'getPartnerDetails', id, {})).body as {
    partner: Record<string, any>;
    pendingApproval: unknown;
  };
}
async function venueNow(id: string, venueId: string) {
  return (await t.rt.call('Partner', 'getVenue', id, { venueId })).body as {
    venue: Record<string, any>;
    pendingApproval: unknown;
  };
}

/** a change a program management user makes waits for the approver, then applies */
async function manual(change: Answer, event: string, settledWhen: () => Promise<boolean>) {
  expect([event, change.status < 300]).toEqual([event, true]);
  expect(change.body.approval).toMatchObject({
    event,
    approvalStatus: 'pending',
    approvalType: 'manual',
    approvers: ['approver'],
  });
  expect(change.body.pendingApproval).toMatchObject({ id: change.body.approval.id, event });
  expect((await review(change.body.approval.id)).status).toBe(200);
  await waitFor(settledWhen, { what: `${event} approved and applied` });
}

/** the same change by the system identity is approved at once */
function auto(change: Answer, event: string) {
  expect([event, change.status < 300]).toEqual([event, true]);
  expect(change.body.approval).toMatchObject({ event, approvalStatus: 'approved', approvalType: 'auto' });
  expect(change.body.pendingApproval).toBeNull();
}

describe.each([
  ['a manual approval', 'manual'],
  ['an auto approval', 'auto'],
] as const)('every partner and venue event through %s', (_name, mode) => {
  test('partner_create, the four updates, update_partner_status, venue_create, venue_update, venue_status_update', async () => {
    const run = mode === 'manual' ? http : asSystem;
    const id = freshId();
    const check = async (change: Answer, event: string, applied: () => Promise<boolean>) => {
      if (mode === 'manual') {
        expect(await applied()).toBe(false); // held until approved
        await manual(change, event, applied);
      } else {
        auto(change, event);
        expect(await applied()).toBe(true);
      }
    };
    const partner = async () => (await partnerNow(id)).partner;
    const idle = async () => (await partnerNow(id)).pendingApproval === null;

    await check(
      await run('init', id, partnerBody()),
      'partner_create',
      async () => (await idle()) && (await partner()).status === 'active',
    );
    await check(
      await run('updatePartnerDetails', id, { brandName: 'Sunrise Two' }),
      'update_partner_details',
      async () => (await idle()) && (await partner()).brandName === 'Sunrise Two',
    );
    await check(
      await run('updatePartnerBrandLogo', id, { brandLogo: { content: PNG, mimeType: 'image/png' } }),
      'update_partner_brand_logo',
      async () => (await idle()) && typeof (await partner()).brandLogoPath === 'string',
    );
    await check(
      await run('updatePartnerContact', id, {
        primaryContact: { name: 'Sara', email: 'sara@sunrise.example', phone: '+971500000002' },
      }),
      'update_partner_contact',
      async () => (await idle()) && (await partner()).primaryContact.name === 'Sara',
    );
    await check(
      await run('updatePartnerContract', id, { contractId: 'C-9' }),
      'update_partner_contract',
      async () => (await idle()) && (await partner()).contractId === 'C-9',
    );
    await check(
      await run('updatePartnerStatus', id, { status: 'inactive', statusReason: 'paused' }),
      'update_partner_status',
      async () => (await idle()) && (await partner()).status === 'inactive',
    );

    const created = await run('createVenue', id, venueBody());
    const venueId: string = created.body.venue.id;
    const venue = async () => venueNow(id, venueId);
    await check(created, 'venue_create', async () => {
      const v = await venue();
      return v.pendingApproval === null && v.venue.status === 'active';
    });
    await check(await run('updateVenue', id, { venueId, address: '7 Creek Road' }), 'venue_update', async () => {
      const v = await venue();
      return v.pendingApproval === null && v.venue.address === '7 Creek Road';
    });
    await check(
      await run('updateVenueStatus', id, { venueId, status: 'inactive' }),
      'venue_status_update',
      async () => {
        const v = await venue();
        return v.pendingApproval === null && v.venue.status === 'inactive';
      },
    );
  });
});
