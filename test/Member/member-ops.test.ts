/**
 * Spec 4.5 Member operations (other than the HR endpoints and the sign-in
 * flows), through HTTP as program management users and members.
 */
import { applySeed } from '../../classes/_platform/seed';
import { waitFor, type TestRuntime, seedRoles } from '../support/harness';
import {
  API_KEY,
  createMember,
  employeeRecord,
  IMAGES,
  memberLogs,
  memberState,
  seed,
  seedProgram,
  startMemberRuntime,
  uniq,
} from './support';

let t: TestRuntime;
let p: string;
let pm: Record<string, string>;
let approver: Record<string, string>;

const bearer = (
  identity: 'program_management_user' | 'enduser',
  userId: string,
  roles: string[] = [],
  claims: Record<string, unknown> = {},
) => ({
  authorization: `Bearer ${t.rt.tokens.sign({ sub: userId, identity, roles, ...claims })}`,
});

/** an eligibility rule as Tier.createTier takes it (Tier gives it its id) */
const TIER_RULE = (over: Record<string, unknown> = {}) => ({
  name: 'Permanent staff',
  paymentTypes: ['credit_card'],
  paymentPeriod: 'monthly',
  conditions: [{ key: 'member.memberType', logicalOperator: 'equal', value: 'mt-perm' }],
  status: 'active',
  ...over,
});

/**
 * The tiers of the membership tests, each of a tier type of its own (the
 * overlap rule allows one live tier per tier type and date range).
 */
const TIERS: Record<string, { group?: string; status?: string; rules?: Record<string, unknown>[] }> = {
  gold: {},
  silver: { rules: [TIER_RULE({ paymentTypes: ['salary_deduction'], paymentPeriod: 'quarterly' })] },
  closed: { status: 'inactive' },
  temps: {
    rules: [TIER_RULE({ conditions: [{ key: 'member.memberType', logicalOperator: 'equal', value: 'mt-temp' }] })],
  },
  boost: { group: 'upgrade' },
  family: {
    rules: [TIER_RULE({ conditions: [{ key: 'member.isDependant', logicalOperator: 'equal', value: true }] })],
  },
};
/** the id Tier gave each tier's (first) eligibility rule */
const ruleIds: Record<string, string> = {};

beforeAll(async () => {
  t = await startMemberRuntime();
  p = `/${t.projectId}/CALL/Member`;
  await seedProgram(t);
  const roles = [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    { id: 'r-approver', name: 'approver', level: 10, permissions: { ApprovalManager: ['getApproval'] } },
    {
      id: 'r-docs',
      name: 'docs',
      level: 10,
      permissions: { Member: ['listDocuments', 'downloadDocument', 'uploadDocument'] },
    },
  ];
  await seedRoles(t, roles);
  pm = bearer('program_management_user', 'pm1', ['super']);
  approver = bearer('program_management_user', 'ann', ['approver']);
  await seed(t, {
    tierTypes: Object.entries(TIERS).map(([id, x]) => ({
      id: `tt-${id}`,
      name: `Type ${id}`,
      tierGroup: x.group ?? 'base',
    })),
    tiers: Object.entries(TIERS).map(([id, x]) => ({
      id,
      name: `Tier ${id}`,
      tierType: { id: `tt-${id}` },
      fee: 10,
      startDate: '2020-01-01T00:00:00.000Z',
      endDate: '2099-01-01T00:00:00.000Z',
      eligibilityRules: x.rules ?? [TIER_RULE()],
      ...(x.status ? { status: x.status } : {}),
    })),
  });
  for (const id of Object.keys(TIERS)) {
    const { tier } = (await t.rt.call('Tier', 'getTier', id, {})).body as {
      tier: { status: string; eligibilityRules: { id: string }[] };
    };
    expect(tier.status).toBe(TIERS[id]!.status ?? 'active');
    ruleIds[id] = tier.eligibilityRules[0]!.id;
  }
});
afterAll(() => t.stop());

const call = (method: string, id: string, body: unknown = {}, headers = pm) =>
  t.post(`${p}/${method}/${id}`, body, headers);

async function review(approvalId: string, action: 'approve' | 'reject' = 'approve') {
  const r = await t.post(`/${t.projectId}/CALL/ApprovalManager/reviewApproval/${approvalId}`, { action }, approver);
  expect(r.status).toBe(200);
}

describe('createMember (member_create)', () => {
  test('a program management user creates; an approver approves; the member waits for its invitation', async () => {
    const staffId = uniq('S');
    const r = await t.post(
      `${p}/createMember`,
      {
        name: 'Kim',
        surname: 'Lee',
        staffId,
        email: `${staffId}@example.com`,
        company: { id: 'c-1' },
        memberType: 'mt-perm',
      },
      pm,
    );
    expect(r.status).toBe(200);
    expect(r.body.member).toMatchObject({
      status: 'pending_approval',
      createdBy: { id: 'pm1', type: 'program_management_user' },
    });
    const id = r.body.member.id;
    await review(r.body.pendingApprovalId);
    await waitFor(async () => (await memberState(t, id)).state.private.profile.status === 'pending_invite', {
      what: 'creation approval',
    });
    expect((await memberState(t, id)).lookups).toEqual({ staffId, email: `${staffId.toLowerCase()}@example.com` });
  });

  test("a program management user cannot pass as someone else or skip the approval: actor and source are only the registration flow's", async () => {
    const forged = { id: 'system', type: 'system', name: 'system' };
    const r = await t.post(
      `${p}/createMember`,
      {
        name: 'Kim',
        surname: 'Lee',
        company: { id: 'c-1' },
        memberType: 'mt-perm',
        source: 'hr_registration',
        actor: forged,
      },
      pm,
    );
    expect(r.status).toBe(200);
    expect(r.body.member).toMatchObject({
      status: 'pending_approval',
      createdBy: { id: 'pm1', type: 'program_management_user' },
    });
    expect(r.body.pendingApprovalId).toEqual(expect.any(String));
  });

  test('rejection: status rejected', async () => {
    const r = await t.post(
      `${p}/createMember`,
      { name: 'Kim', surname: 'Lee', company: { id: 'c-1' }, memberType: 'mt-perm' },
      pm,
    );
    await review(r.body.pendingApprovalId, 'reject');
    await waitFor(async () => (await memberState(t, r.body.member.id)).state.private.profile.status === 'rejected', {
      what: 'rejection',
    });
  });

  test('refusals: unknown company, member type not eligible or inactive, staff id and email taken, bad input', async () => {
    const base = { name: 'Kim', surname: 'Lee', company: { id: 'c-1' }, memberType: 'mt-perm' };
    const codes = async (body: Record<string, unknown>) => {
      const r = await t.post(`${p}/createMember`, { ...base, ...body }, pm);
      return [r.status, r.body.code];
    };
    expect(await codes({ company: { id: 'c-none' } })).toEqual([404, 5006]);
    expect(await codes({ memberType: 'mt-dep' })).toEqual([400, 5007]);
    expect(await codes({ memberType: 'mt-retired' })).toEqual([400, 5008]);
    expect(await codes({ memberSubType: 'mst-parent' })).toEqual([400, 5009]);
    const m = await createMember(t);
    expect(await codes({ staffId: m.staffId })).toEqual([409, 5023]);
    expect(await codes({ email: m.email.toUpperCase() })).toEqual([409, 5022]);
    expect(await codes({ name: '' })).toEqual([400, 1002]);
  });
});

describe('personal, employment, contact', () => {
  test('updateMemberPersonal applies at once (member_update), is logged; getMemberPersonal reads it', async () => {
    const m = await createMember(t);
    const logs = (await waitFor(async () => (await memberLogs(t, m.id)).length)) as number;
    const r = await call('updateMemberPersonal', m.id, { name: 'Grace', memberType: 'mt-temp' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      updatedFields: ['name', 'memberType'],
      pendingApprovalId: null,
      approval: { event: 'member_update', approvalStatus: 'approved' },
    });
    const g = await t.get(`${p}/getMemberPersonal/${m.id}`, pm);
    expect(g.body).toMatchObject({ name: 'Grace', memberType: 'mt-temp', idPhoto: null, pendingApproval: null });
    await waitFor(async () => (await memberLogs(t, m.id)).length === logs + 1, { what: 'log' });
  });

  test('updateMemberPersonal: member type and sub type are checked against the company', async () => {
    const m = await createMember(t);
    expect((await call('updateMemberPersonal', m.id, { memberType: 'mt-dep' })).body.code).toBe(5007);
    expect((await call('updateMemberPersonal', m.id, { memberSubType: 'mst-nope' })).body.code).toBe(5009);
    expect((await call('updateMemberPersonal', m.id, { memberSubType: 'mst-child' })).status).toBe(200);
  });

  test('updateMemberPersonal: a new staff id moves the lookup; a taken one is refused', async () => {
    const a = await createMember(t);
    const b = await createMember(t);
    expect((await call('updateMemberPersonal', a.id, { staffId: b.staffId })).body.code).toBe(5023);
    const fresh = uniq('S');
    const r = await call('updateMemberPersonal', a.id, { staffId: fresh });
    expect(r.body.updatedFields).toEqual(['staffId', 'previousStaffIds']);
    expect(await t.rt.store.resolveLookup('Member', 'staffId', fresh)).toBe(a.id);
    expect(await t.rt.store.resolveLookup('Member', 'staffId', a.staffId)).toBeUndefined();
  });

  test('getMemberPersonal: photo access tokens and the pending photo (old and new)', async () => {
    const m = await createMember(t);
    await call('uploadMemberIdPhoto', m.id, { photo: IMAGES.png, fileExtension: 'png' });
    const g = await t.get(`${p}/getMemberPersonal/${m.id}`, pm);
    expect(g.body.pendingApproval).toMatchObject({
      oldPhoto: null,
      newPhoto: { filename: expect.stringMatching(/\.png$/), url: expect.any(String), expiresAt: expect.any(String) },
    });
    const img = await t.get(g.body.pendingApproval.newPhoto.url);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
  });

  test('employment: grade; the company cannot change', async () => {
    const m = await createMember(t);
    expect((await call('updateMemberEmployment', m.id, { grade: 'G7' })).body.updatedFields).toEqual(['grade']);
    expect((await t.get(`${p}/getMemberEmployment/${m.id}`, pm)).body).toMatchObject({
      grade: 'G7',
      company: { id: 'c-1' },
    });
    const r = await call('updateMemberEmployment', m.id, { company: { id: 'c-2' } });
    expect([r.status, r.body.code]).toEqual([400, 5029]);
  });

  test('contact: phone, address, permissions', async () => {
    const m = await createMember(t);
    const r = await call('updateMemberContact', m.id, {
      phone: '+7',
      address: { country: 'AE', address: 'Villa 1' },
      permissions: { sms: true },
    });
    expect(r.body.updatedFields).toEqual(['phone', 'address', 'permissions']);
    expect((await t.get(`${p}/getMemberContact/${m.id}`, pm)).body).toEqual({
      id: m.id,
      email: m.email,
      phone: '+7',
      address: { country: 'AE', address: 'Villa 1' },
      permissions: { sms: true, email: false },
    });
    expect((await call('updateMemberContact', m.id, { phone: '+7' })).body.updatedFields).toEqual([]);
  });

  test('company users reach only their own company', async () => {
    const m = await createMember(t);
    const own = bearer('program_management_user', 'cu1', ['super'], { userType: 'company', tenant: 'c-1' });
    const other = bearer('program_management_user', 'cu2', ['super'], { userType: 'company', tenant: 'c-2' });
    expect((await t.get(`${p}/getMemberContact/${m.id}`, own)).status).toBe(200);
    const r = await t.get(`${p}/getMemberContact/${m.id}`, other);
    expect([r.status, r.body.code]).toEqual([403, 1023]); // the platform's company scope (OUT_OF_SCOPE)
  });
});

describe('updateMemberStatus (3.1, member_status_update)', () => {
  test('waits for an approver; no other change meanwhile; applied on approval', async () => {
    const m = await createMember(t);
    const r = await call('updateMemberStatus', m.id, { status: 'suspended', reason: 'audit' });
    expect(r.status).toBe(200);
    expect(r.body.member.status).toBe('pending_invite');
    const blocked = await call('updateMemberContact', m.id, { phone: '+1' });
    expect([blocked.status, blocked.body.code]).toEqual([409, 5003]);
    await review(r.body.pendingApprovalId);
    await waitFor(async () => (await memberState(t, m.id)).state.private.profile.status === 'suspended', {
      what: 'status approval',
    });
    expect((await memberState(t, m.id)).state.private).toMatchObject({
      pendingChange: null,
      profile: { statusReason: 'audit' },
    });
    expect((await call('updateMemberContact', m.id, { phone: '+1' })).status).toBe(200);
  });

  test.each(['pending_invite', 'pending_invitation_acceptance', 'pending_id_photo', 'pending_tier'])(
    'system-only %s is refused (5002)',
    async (status) => {
      const m = await createMember(t);
      const r = await call('updateMemberStatus', m.id, { status });
      expect([r.status, r.body.code]).toEqual([400, 5002]);
    },
  );

  test('an unknown status is refused (5001)', async () => {
    const m = await createMember(t);
    expect((await call('updateMemberStatus', m.id, { status: 'gone' })).body.code).toBe(5001);
  });
});

describe('memberships', () => {
  test('addMembership: checks tier, eligibility and payment type; sets period and schedule; listMemberships enriches', async () => {
    const m = await createMember(t);
    const add = (body: Record<string, unknown>) => call('addMembership', m.id, body);
    expect((await add({ tierId: 'none', paymentType: 'cpg' })).body.code).toBe(5012);
    expect((await add({ tierId: 'closed', paymentType: 'cpg' })).body.code).toBe(5013);
    const ne = await add({ tierId: 'temps', paymentType: 'cpg' });
    expect([ne.status, ne.body.code]).toEqual([400, 5014]);
    expect(ne.body.details.rules[0]).toMatchObject({ ruleId: ruleIds.temps, result: { eligible: false } });
    expect((await add({ tierId: 'gold', paymentType: 'dds' })).body.code).toBe(5015);
    expect((await add({ tierId: 'boost', paymentType: 'company_paid' })).body.code).toBe(5015);

    const ok = await add({ tierId: 'gold', paymentType: 'cpg', startDate: '2030-01-15T00:00:00.000Z' });
    expect(ok.status).toBe(200);
    expect(ok.body.membership).toMatchObject({
      tierId: 'gold',
      tierGroup: 'base',
      status: 'active',
      paymentType: 'cpg',
      eligibilityRuleId: ruleIds.gold,
      paymentPeriod: 'monthly',
      startDate: '2030-01-15T00:00:00.000Z',
      endDate: '2031-01-15T00:00:00.000Z',
    });
    expect(ok.body.membership.paymentSchedule).toHaveLength(12);
    expect(ok.body.membership.paymentSchedule[1]).toEqual({ dueDate: '2030-02-15T00:00:00.000Z', amount: 10 });
    expect((await add({ tierId: 'gold', paymentType: 'cpg' })).body.code).toBe(5016);
    await add({ tierId: 'silver', paymentType: 'dds' });

    const list = await t.get(`${p}/listMemberships/${m.id}?limit=1&page=2`, pm);
    expect(list.body).toMatchObject({ totalCount: 2, page: 2, limit: 1, totalPages: 2 });
    expect(list.body.memberships[0]).toMatchObject({
      tierId: 'gold',
      tierName: 'Tier gold',
      tierType: { group: 'base' },
      fee: 10,
    });
    const silver = await t.get(`${p}/listMemberships/${m.id}?tierId=silver`, pm);
    expect(silver.body.memberships.map((x: { tierId: string }) => x.tierId)).toEqual(['silver']);
    expect(silver.body.memberships[0].paymentSchedule).toHaveLength(4);
    expect((await t.get(`${p}/listMemberships/${m.id}?status=expired`, pm)).body.totalCount).toBe(0);
  });

  test('a member waiting for its tier becomes active with its first membership', async () => {
    const m = await createMember(t, { loginMethod: 'sso' });
    // pending_id_photo → photo approved at once by the system actor → pending_tier
    await t.rt.call('Member', 'uploadMemberIdPhoto', m.id, { photo: IMAGES.png, fileExtension: 'png' });
    expect((await memberState(t, m.id)).state.private.profile.status).toBe('pending_tier');
    await call('addMembership', m.id, { tierId: 'gold', paymentType: 'company_paid' });
    expect((await memberState(t, m.id)).state.private.profile.status).toBe('active');
  });
});

describe('family members', () => {
  test('add within the company limits, list, update, remove', async () => {
    const m = await createMember(t);
    const add = (body: Record<string, unknown>) =>
      call('addMemberFamilyMember', m.id, { name: 'Kid', surname: 'Lee', ...body });
    const spouse = await add({ memberSubType: 'mst-spouse', relation: 'spouse' });
    expect(spouse.status).toBe(200);
    expect(spouse.body).toMatchObject({
      familyMember: { primaryMemberId: m.id, memberSubType: 'mst-spouse', company: { id: 'c-1' } },
      isFree: true,
    });
    const second = await add({ memberSubType: 'mst-spouse' });
    expect([second.status, second.body.code]).toEqual([400, 5010]);
    expect((await add({ memberSubType: 'mst-parent' })).body.code).toBe(5009);
    const c1 = await add({ memberSubType: 'mst-child' });
    const c2 = await add({ memberSubType: 'mst-child' });
    expect(c1.body.isFree).toBe(true);
    expect(c2.body.isFree).toBe(false); // maxFreeDependants 2

    const deps = await t.get(`${p}/getMemberDependants/${m.id}`, pm);
    expect(deps.body.totalCount).toBe(3);
    expect(deps.body.dependants.map((d: { memberSubType: string }) => d.memberSubType)).toEqual([
      'mst-spouse',
      'mst-child',
      'mst-child',
    ]);

    const upd = await call('updateMemberFamilyMember', m.id, {
      familyMemberId: c1.body.familyMember.id,
      name: 'Junior',
    });
    expect(upd.body.updatedFields).toEqual(['name']);
    expect((await memberState(t, m.id)).state.private.profile.familyMembers[1].name).toBe('Junior');
    expect(
      (
        await call('updateMemberFamilyMember', m.id, {
          familyMemberId: c1.body.familyMember.id,
          memberSubType: 'mst-spouse',
        })
      ).body.code,
    ).toBe(5010);

    const rm = await call('removeMemberFamilyMember', m.id, { familyMemberId: spouse.body.familyMember.id });
    expect(rm.status).toBe(200);
    expect((await memberState(t, spouse.body.familyMember.id)).state.private.profile).toMatchObject({
      status: 'inactive',
      statusReason: 'removed_from_family',
    });
    expect((await memberState(t, m.id)).state.private.profile.familyMembers).toHaveLength(2);
    expect((await call('removeMemberFamilyMember', m.id, { familyMemberId: 'nope' })).body.code).toBe(5011);
    // a dependant has no family of its own
    expect(
      (
        await call('addMemberFamilyMember', c1.body.familyMember.id, {
          name: 'x',
          surname: 'y',
          memberSubType: 'mst-child',
        })
      ).body.code,
    ).toBe(5032);
  });

  test('company-paid memberships for free dependants only', async () => {
    const m = await createMember(t);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await call('addMemberFamilyMember', m.id, { name: `K${i}`, surname: 'L', memberSubType: 'mst-child' })).body
          .familyMember.id,
      );
    expect((await call('addMembership', ids[1]!, { tierId: 'family', paymentType: 'company_paid' })).status).toBe(200);
    const paid = await call('addMembership', ids[2]!, { tierId: 'family', paymentType: 'company_paid' });
    expect([paid.status, paid.body.code]).toEqual([400, 5015]);
    expect((await call('addMembership', ids[2]!, { tierId: 'family', paymentType: 'cpg' })).status).toBe(200);
  });
});

describe('photos and the member profile (enduser)', () => {
  test('uploadMyIdPhoto only when active or pending_id_photo; returns an expiring URL', async () => {
    const m = await createMember(t);
    const me = bearer('enduser', m.id);
    const refused = await call('uploadMyIdPhoto', m.id, { photo: IMAGES.png, fileExtension: 'png' }, me);
    expect([refused.status, refused.body.code]).toEqual([403, 5017]);

    const sso = await createMember(t, { loginMethod: 'sso' });
    const r = await call(
      'uploadMyIdPhoto',
      sso.id,
      { photo: IMAGES.png, fileExtension: 'png' },
      bearer('enduser', sso.id),
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      approved: false,
      status: 'pending_id_photo',
      photo: { url: expect.stringContaining('/FileManager/downloadFile/'), expiresAt: expect.any(String) },
    });
    const other = await call('uploadMyIdPhoto', sso.id, { photo: IMAGES.png, fileExtension: 'png' }, me);
    expect([other.status, other.body.code]).toEqual([403, 5021]);
    const bad = await call(
      'uploadMyIdPhoto',
      sso.id,
      { photo: IMAGES.png, fileExtension: 'tiff' },
      bearer('enduser', sso.id),
    );
    expect([bad.status, bad.body.code]).toEqual([400, 5027]);
  });

  test('getMemberProfile: own member only, with the waiting approval and its photo URLs', async () => {
    const m = await createMember(t, { loginMethod: 'sso' });
    const me = bearer('enduser', m.id);
    let r = await t.get(`${p}/getMemberProfile/${m.id}`, me);
    expect(r.body).toEqual({
      id: m.id,
      name: 'Ada',
      middleName: null,
      surname: 'Lovelace',
      email: m.email,
      phone: '+100000',
      company: { id: 'c-1' },
      status: 'pending_id_photo',
      idPhoto: null,
      hasWaitingApproval: false,
      approval: null,
    });
    await call('uploadMyIdPhoto', m.id, { photo: IMAGES.png, fileExtension: 'png' }, me);
    r = await t.get(`${p}/getMemberProfile/${m.id}`, me);
    expect(r.body).toMatchObject({
      hasWaitingApproval: true,
      approval: { newPhoto: { url: expect.any(String) }, oldPhoto: null },
    });
    expect((await t.get(`${p}/getMemberProfile/${m.id}`, bearer('enduser', 'someone'))).body.code).toBe(5021);
    // another member's id answers the same whether a member has it or not: judged before the member is looked up
    for (const id of [m.id, 'no-such-member']) {
      const theirs = await t.get(`${p}/getMemberProfile/${id}`, bearer('enduser', 'someone'));
      expect([theirs.status, theirs.body]).toEqual([
        403,
        { code: 5021, message: 'A member may only reach itself', classId: 'Member' },
      ]);
    }
    expect((await t.get(`${p}/getMemberProfile/${m.id}`, pm)).status).toBe(403);
  });
});

describe('documents', () => {
  const PDF = Buffer.from('%PDF-1.4\n%test\n').toString('base64');

  test('upload, list newest first, download (5-minute URL), archive, unarchive, archived download', async () => {
    const m = await createMember(t);
    const up1 = await call('uploadDocument', m.id, {
      content: PDF,
      mimeType: 'application/pdf',
      originalFilename: 'a.pdf',
      label: 'Contract',
    });
    expect(up1.status).toBe(200);
    expect(up1.body).toMatchObject({
      documentId: expect.any(String),
      download: { url: expect.any(String), expiresAt: expect.any(String) },
    });
    const expires = Date.parse(up1.body.download.expiresAt) - Date.now();
    expect(expires).toBeGreaterThan(4 * 60_000);
    expect(expires).toBeLessThanOrEqual(5 * 60_000 + 1000);
    const up2 = await call('uploadDocument', m.id, {
      content: IMAGES.png,
      mimeType: 'image/png',
      originalFilename: 'b.png',
    });
    const list = await t.get(`${p}/listDocuments/${m.id}`, pm);
    expect(list.body).toMatchObject({ totalCount: 2, page: 1, totalPages: 1 });
    expect(list.body.documents.map((d: { id: string }) => d.id)).toEqual([up2.body.documentId, up1.body.documentId]);
    expect(list.body.documents[1]).toMatchObject({ status: 'active', label: 'Contract', isArchived: false });

    const dl = await call('downloadDocument', m.id, { documentId: up1.body.documentId });
    const bytes = await t.get(dl.body.url);
    expect(bytes.status).toBe(200);
    expect(bytes.body).toContain('%PDF-1.4');

    expect((await call('archiveDocument', m.id, { documentId: up1.body.documentId })).body).toEqual({
      documentId: up1.body.documentId,
      status: 'archived',
    });
    expect((await call('archiveDocument', m.id, { documentId: up1.body.documentId })).body.code).toBe(5020);
    const refused = await call('downloadDocument', m.id, { documentId: up1.body.documentId });
    expect([refused.status, refused.body.code]).toEqual([400, 5019]);
    expect((await call('downloadArchivedDocument', m.id, { documentId: up1.body.documentId })).body.url).toEqual(
      expect.any(String),
    );
    expect((await t.get(`${p}/listDocuments/${m.id}?status=archived`, pm)).body.documents[0]).toMatchObject({
      isArchived: true,
    });
    expect((await call('unarchiveDocument', m.id, { documentId: up1.body.documentId })).body.status).toBe('active');
    expect((await call('downloadDocument', m.id, { documentId: 'nope' })).body.code).toBe(5018);
    const bad = await call('uploadDocument', m.id, { content: PDF, mimeType: 'image/png', originalFilename: 'x.png' });
    expect([bad.status, bad.body.code, bad.body.details.code]).toEqual([400, 5027, 13004]);
  });

  test('downloadArchivedDocument has a permission of its own', async () => {
    const m = await createMember(t);
    const docs = bearer('program_management_user', 'dora', ['docs']);
    const up = await call(
      'uploadDocument',
      m.id,
      { content: IMAGES.png, mimeType: 'image/png', originalFilename: 'b.png' },
      docs,
    );
    expect(up.status).toBe(200);
    expect((await call('downloadDocument', m.id, { documentId: up.body.documentId }, docs)).status).toBe(200);
    expect((await call('downloadArchivedDocument', m.id, { documentId: up.body.documentId }, docs)).status).toBe(403);
  });
});

describe('listMembers and streamMember', () => {
  test('filters, search on name, email and staff id, pagination; company users see their company', async () => {
    const tag = uniq('q').toLowerCase();
    const a = await createMember(t, { name: `Zed${tag}`, company: { id: 'c-2' }, memberType: 'mt-temp' });
    const b = await createMember(t, { surname: `Qux${tag}` });
    const c = await createMember(t, { staffId: `ST${tag}`, email: `mail-${tag}@example.com` });
    await waitFor(async () => (await t.rt.documents.get('members', c.id)) !== null, { what: 'projection' });
    const list = async (query: string, headers = pm) => (await t.get(`${p}/listMembers?${query}`, headers)).body;
    expect((await list(`search=${tag}`)).members.map((x: { id: string }) => x.id).sort()).toEqual(
      [a.id, b.id, c.id].sort(),
    );
    expect((await list(`search=ZED${tag}`)).members.map((x: { id: string }) => x.id)).toEqual([a.id]);
    expect((await list(`search=mail-${tag}`)).members.map((x: { id: string }) => x.id)).toEqual([c.id]);
    expect((await list(`search=${tag}&companyId=c-2`)).members.map((x: { id: string }) => x.id)).toEqual([a.id]);
    expect((await list(`search=${tag}&memberType=mt-temp`)).totalCount).toBe(1);
    expect((await list(`search=${tag}&status=pending_invite`)).totalCount).toBe(3);
    expect((await list(`search=${tag}&status=active`)).totalCount).toBe(0);
    const page = await list(`search=${tag}&limit=2&page=2`);
    expect(page).toMatchObject({ totalCount: 3, page: 2, limit: 2, totalPages: 2 });
    expect(page.members).toHaveLength(1);
    expect(page.members[0]).not.toHaveProperty('_id');
    for (const bad of ['limit=500', 'limit=0', 'page=0', 'page=x']) {
      const r = await t.get(`${p}/listMembers?${bad}`, pm);
      expect([r.status, r.body.code]).toEqual([400, 5005]);
    }
    const companyUser = bearer('program_management_user', 'cu', ['super'], { userType: 'company', tenant: 'c-2' });
    expect((await list(`search=${tag}`, companyUser)).members.map((x: { id: string }) => x.id)).toEqual([a.id]);
    // membership status filter
    await call('addMembership', b.id, { tierId: 'gold', paymentType: 'cpg' });
    await waitFor(async () => (await list(`search=${tag}&membershipStatus=active`)).totalCount === 1, {
      what: 'membership projection',
    });
  });

  test('streamMember commits (a new version) and re-projects', async () => {
    const m = await createMember(t);
    const v = (await memberState(t, m.id)).version;
    expect((await call('streamMember', m.id)).body).toEqual({ streamed: true, id: m.id, collection: 'members' });
    expect((await memberState(t, m.id)).version).toBe(v + 1);
    await waitFor(async () => (await t.rt.documents.get('members', m.id))?._v === v + 1, { what: 'projection' });
  });
});

describe('the program seed (classes/_platform/seed.ts) through the real classes', () => {
  const sys = async (classId: string, method: string, instanceId: string | undefined, body: unknown) =>
    (await t.rt.call(classId, method, instanceId, body)).body as Record<string, any>;

  test('the seeded program is active; records seeded with another status have it', async () => {
    expect(
      await sys('Setting', 'findMemberTypeBySystemIdentifier', 'default', { systemIdentifier: 'Permanent' }),
    ).toMatchObject({ id: 'mt-perm', status: 'active' });
    expect(await sys('Company', 'getCompany', 'default', { bgId: 'BG2' })).toMatchObject({
      id: 'c-2',
      status: 'active',
      pendingApprovalId: null,
    });
    expect(await sys('Setting', 'getMemberType', 'default', { id: 'mt-retired' })).toMatchObject({
      status: 'inactive',
      pendingApprovalId: null,
    });
    expect(await sys('Setting', 'getMemberSubType', 'default', { id: 'mst-parent' })).toMatchObject({
      status: 'inactive',
      pendingApprovalId: null,
    });
    expect((await sys('Tier', 'getTier', 'closed', {})).tier).toMatchObject({
      status: 'inactive',
      tierType: { id: 'tt-closed', group: 'base' },
    });
  });

  test('a status the record cannot take fails that record, which stays created', async () => {
    const call = (classId: string, method: string, instanceId: string | undefined, body: unknown) =>
      t.rt.call(classId, method, instanceId, body);
    const id = uniq('mt-odd').toLowerCase();
    const [out] = await applySeed({ memberTypes: [{ id, name: id, systemIdentifier: id, status: 'retired' }] }, call);
    expect(out).toMatchObject({
      kind: 'memberType',
      id,
      result: 'failed',
      error: { code: 10023, message: expect.stringMatching(/^created, but not retired: /) },
    });
    expect(await sys('Setting', 'getMemberType', 'default', { id })).toMatchObject({ status: 'active' });
  });

  test('seed files create members (seedMember), once', async () => {
    const call = (classId: string, method: string, instanceId: string | undefined, body: unknown) =>
      t.rt.call(classId, method, instanceId, body);
    const staffId = uniq('SEED');
    const doc = {
      members: [
        {
          id: `seed-${staffId}`,
          name: 'Sea',
          surname: 'Dee',
          staffId,
          email: `${staffId}@example.com`,
          company: { id: 'c-1' },
          memberType: 'mt-perm',
          status: 'active',
        },
        { id: `seed-bad-${staffId}`, name: 'Bad', surname: 'Type', company: { id: 'c-1' }, memberType: 'mt-none' },
      ],
    };
    const first = await applySeed(doc, call);
    expect(first.map((o) => o.result)).toEqual(['created', 'failed']);
    expect(first[1]!.error?.code).toBe(5008);
    expect((await memberState(t, `seed-${staffId}`)).state.private.profile).toMatchObject({
      status: 'active',
      staffId,
      company: { id: 'c-1' },
    });
    expect((await applySeed({ members: [doc.members[0]!] }, call)).map((o) => o.result)).toEqual(['skipped']);
    const r = await t.post('/members/hr/employee', employeeRecord(staffId, { status: 'terminated' }), API_KEY);
    expect(r.body.body.updatedFields).toContain('status');
  });
});
