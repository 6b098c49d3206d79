/**
 * registerFromHr's ID card step (use-cases/id-card.ts) end to end: the
 * runtime with every class, a local HR server (fake-hr.ts) and a local ID
 * card server (fake-id-card.ts), both speaking their HTTP contracts. A card
 * with a photo leaves the member's ID photo waiting for MEMBER_ID_PHOTO_UPLOAD
 * (the example rule wants an approver); a card without one, no card, or a card
 * system that fails leave the member without, and only the last is a warning.
 */
import { waitFor, type TestRuntime, seedRoles } from '../support/harness';
import { FakeHr, hrEmployee } from './fake-hr';
import { FakeIdCards, PNG_1PX } from './fake-id-card';
import { memberState, seedProgram, startMemberRuntime, uniq } from './support';

const CARD_KEY = 'card-secret';

let hr: FakeHr;
let cards: FakeIdCards;
let t: TestRuntime;
let pm: Record<string, string>;
let approver: Record<string, string>;

beforeAll(async () => {
  hr = await new FakeHr().start();
  cards = await new FakeIdCards().start();
  t = await startMemberRuntime({
    HR_BASE_URL: hr.url,
    HR_TIMEOUT_MS: '1000',
    HR_RETRIES: '1',
    HR_RETRY_BASE_MS: '10',
    ID_CARD_BASE_URL: cards.url,
    ID_CARD_API_KEY: CARD_KEY,
    ID_CARD_TIMEOUT_MS: '1000',
    ID_CARD_RETRIES: '1',
    ID_CARD_RETRY_BASE_MS: '10',
  });
  await seedProgram(t);
  await seedRoles(t, [{ id: 'r-approver', name: 'approver', level: 10, permissions: {} }]);
  pm = { authorization: `Bearer ${t.token('program_management_user', 'pm1', ['super'])}` };
  approver = { authorization: `Bearer ${t.token('program_management_user', 'ann', ['approver'])}` };
});
afterAll(async () => {
  await t?.stop();
  await hr?.stop();
  await cards?.stop();
});

/** an employee HR knows, registered by email */
async function register(staffId: string) {
  const email = `${staffId.toLowerCase()}@example.com`;
  hr.employees.set(email, hrEmployee(staffId));
  return t.post(`/${t.projectId}/CALL/Member/registerFromHr`, { email }, pm);
}

const privateOf = async (id: string) => (await memberState(t, id)).state.private;

test("a card with a photo: the member's ID photo waits for MEMBER_ID_PHOTO_UPLOAD, and approving it makes it the ID photo", async () => {
  const staffId = uniq('C');
  cards.cards.set(staffId, {
    staffId,
    cardNumber: `N-${staffId}`,
    validFrom: '2026-01-01',
    validUntil: '2029-12-31',
    photo: { contentBase64: PNG_1PX, mimeType: 'image/png' },
  });
  const r = await register(staffId);
  expect([r.status, r.body.warnings, r.body.memberIdRecorded]).toEqual([201, [], true]);
  const id = r.body.member.id as string;
  expect(r.body.idCard).toEqual({
    lookup: 'found',
    cardNumber: `N-${staffId}`,
    validFrom: '2026-01-01',
    validUntil: '2029-12-31',
    photo: 'pending_approval',
    approvalId: expect.any(String),
  });
  // the card system was asked for this staff id, with the key
  const asked = cards.requests.filter((q) => q.path === `/cards/${staffId}`);
  expect(asked.map((q) => [q.method, q.headers['x-api-key']])).toEqual([['GET', CARD_KEY]]);

  const s = await privateOf(id);
  expect(s.profile.idPhoto).toBeNull();
  expect(s.pendingPhoto).toMatchObject({
    approvalId: r.body.idCard.approvalId,
    idPhoto: expect.stringMatching(new RegExp(`^member_${id}_.*\\.png$`)),
    source: 'id_card',
  });
  const blob = await t.rt.ports.blobs.get(s.pendingPhoto.idPhoto);
  expect(blob?.data.equals(Buffer.from(PNG_1PX, 'base64'))).toBe(true);
  const approval = (await t.rt.call('ApprovalManager', 'getApproval', s.pendingPhoto.approvalId)).body as Record<
    string,
    any
  >;
  expect(approval).toMatchObject({
    event: 'MEMBER_ID_PHOTO_UPLOAD',
    instanceId: id,
    approvalStatus: 'pending',
    approvers: ['approver'],
  });

  const reviewed = await t.post(
    `/${t.projectId}/CALL/ApprovalManager/reviewApproval/${s.pendingPhoto.approvalId}`,
    { action: 'approve' },
    approver,
  );
  expect(reviewed.status).toBe(200);
  const file = s.pendingPhoto.idPhoto as string;
  await waitFor(async () => (await privateOf(id)).profile.idPhoto === file, {
    what: "the card's photo approved as the ID photo",
  });
  expect((await privateOf(id)).pendingPhoto).toBeNull();
});

test('a card without a photo: the card is answered, no photo waits (the member uploads one), no warning', async () => {
  const staffId = uniq('C');
  cards.cards.set(staffId, { cardNumber: `N-${staffId}`, validUntil: '2028-01-31' });
  const r = await register(staffId);
  expect([r.status, r.body.warnings]).toEqual([201, []]);
  expect(r.body.idCard).toEqual({
    lookup: 'found',
    cardNumber: `N-${staffId}`,
    validUntil: '2028-01-31',
    photo: 'none',
  });
  const s = await privateOf(r.body.member.id);
  expect([s.profile.idPhoto, s.pendingPhoto ?? null]).toEqual([null, null]);
});

test('no card for the staff id: not found, nothing waits, no warning', async () => {
  const r = await register(uniq('C'));
  expect([r.status, r.body.warnings, r.body.idCard]).toEqual([201, [], { lookup: 'not_found', photo: 'none' }]);
  expect((await privateOf(r.body.member.id)).pendingPhoto ?? null).toBeNull();
});

test('a card system that keeps failing or answers a malformed card: the registration succeeds with a warning', async () => {
  const failing = uniq('C');
  cards.answer({ status: 503 }, { status: 503 });
  const r = await register(failing);
  expect([r.status, r.body.memberIdRecorded, r.body.idCard]).toEqual([201, true, { lookup: 'failed', photo: 'none' }]);
  expect(r.body.warnings).toEqual([
    expect.stringMatching(
      /^The ID card could not be looked up: .*HTTP 503.*\(http 503, 2 attempts\); the member uploads an ID photo$/,
    ),
  ]);
  expect(await t.rt.store.resolveLookup('Member', 'staffId', failing)).toBe(r.body.member.id);

  const odd = uniq('C');
  cards.cards.set(odd, { cardNumber: `N-${odd}`, photo: { contentBase64: PNG_1PX, mimeType: 'image/gif' } });
  const r2 = await register(odd);
  expect([r2.status, r2.body.idCard]).toEqual([201, { lookup: 'failed', photo: 'none' }]);
  expect(r2.body.warnings).toEqual([expect.stringContaining('image/png or image/jpeg')]);
  expect((await privateOf(r2.body.member.id)).pendingPhoto ?? null).toBeNull();
});

test("the card's photo never replaces a photo the member has or one waiting: a second submission submits nothing", async () => {
  const staffId = uniq('C');
  cards.cards.set(staffId, { cardNumber: `N-${staffId}`, photo: { contentBase64: PNG_1PX, mimeType: 'image/png' } });
  const r = await register(staffId);
  const id = r.body.member.id as string;
  const first = (await privateOf(id)).pendingPhoto;
  expect(first).toMatchObject({ source: 'id_card' });
  const again = await t.rt.call('Member', 'submitIdCardPhoto', id, {
    cardNumber: `N-${staffId}`,
    photo: { contentBase64: PNG_1PX, mimeType: 'image/png' },
  });
  expect([again.status, again.body]).toEqual([200, { submitted: false }]);
  expect((await privateOf(id)).pendingPhoto).toEqual(first);
  // not reachable over HTTP
  expect(
    (
      await t.post(
        `/${t.projectId}/CALL/Member/submitIdCardPhoto/${id}`,
        { cardNumber: 'x', photo: { contentBase64: PNG_1PX, mimeType: 'image/png' } },
        pm,
      )
    ).status,
  ).toBe(403);
});

// last: the card system is stopped for good
test('the card system down (connection refused): the registration succeeds with a warning, the member uploads a photo', async () => {
  await cards.stop();
  const r = await register(uniq('C'));
  expect([r.status, r.body.memberIdRecorded, r.body.idCard]).toEqual([201, true, { lookup: 'failed', photo: 'none' }]);
  expect(r.body.warnings).toEqual([
    expect.stringMatching(/^The ID card could not be looked up: ID card system unreachable.*\(network, 2 attempts\)/),
  ]);
  expect((await privateOf(r.body.member.id)).pendingPhoto ?? null).toBeNull();
});
