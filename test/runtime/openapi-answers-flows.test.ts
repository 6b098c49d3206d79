/**
 * The answer schemas are what the methods answer: on the example program
 * (examples/seed.json), the service's everyday flows (create, read, change,
 * list, the approval that follows, files, documents, notifications) are run
 * and every answer is checked against its method's schema. Together with
 * openapi-answers.test.ts (the HR endpoints and main reads) and
 * openapi-examples.test.ts (every method's example), this is what keeps the
 * schemas truthful.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { answerValidator } from '../../runtime/actor/answers';
import { projectRoot } from '../../runtime/config';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/harness';
import { EXAMPLE_SEED, seedExample } from '../support/seed-example';

const MEMBER_ID = EXAMPLE_SEED.members![0]!.id as string;
const TIER_ID = EXAMPLE_SEED.tiers![0]!.id as string;
const PARTNER_ID = EXAMPLE_SEED.partners![0]!.id as string;
const VENUE_ID = EXAMPLE_SEED.venues![0]!.id as string;
const PARTNER_USER_ID = EXAMPLE_SEED.partnerUsers![0]!.id as string;
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('answers of the service flows match their schemas', () => {
  let t: TestRuntime;
  /** class.method → answers checked */
  const checked = new Map<string, number>();
  const wrong: unknown[] = [];

  /** the method's example (schemas/<Class>/<method>.json), with `over` on top */
  const example = (classId: string, method: string, over: Record<string, unknown> = {}) => ({
    ...((t.rt.registry.get(classId)!.methodsByName.get(method)!.validate?.schema as any)?.examples?.[0] ?? {}),
    ...over,
  });

  /** calls as the system identity; the answer must be a success, and match the method's schema */
  const call = async (
    classId: string,
    method: string,
    instanceId: string | undefined,
    body: unknown = {},
  ): Promise<any> => {
    const res = await t.rt.call(classId, method, instanceId, body);
    expect({
      call: `${classId}.${method}`,
      status: res.status < 300 ? 'success' : res.status,
      body: res.status < 300 ? null : res.body,
    }).toEqual({
      call: `${classId}.${method}`,
      status: 'success',
      body: null,
    });
    const m = t.rt.registry.get(classId)!.methodsByName.get(method)!;
    const check = answerValidator(classId, m.answer!);
    const body204 = res.status === 204 ? null : res.body;
    if (!check(body204) || !m.answer!.statuses.includes(res.status)) {
      wrong.push({
        call: `${classId}.${method}`,
        status: res.status,
        declared: m.answer!.statuses,
        errors: check.errors?.slice(0, 4),
        body: JSON.stringify(body204).slice(0, 500),
      });
    }
    checked.set(`${classId}.${method}`, (checked.get(`${classId}.${method}`) ?? 0) + 1);
    return res.body;
  };

  beforeAll(async () => {
    t = await startTestRuntime({ env: { CLASS_DIRS: path.join(projectRoot(), 'classes'), SCHEMA_DIRS: 'schemas' } });
    await seedExample(t);
  }, 60_000);
  afterAll(() => t?.stop());

  it('benefit categories and offers', async () => {
    const id = `cat-${randomUUID().slice(0, 8)}`;
    await call('BenefitCategory', 'createCategory', undefined, example('BenefitCategory', 'createCategory', { id }));
    await call('BenefitCategory', 'getCategory', id);
    await call('BenefitCategory', 'updateCategory', id, { name: 'Dining out' });
    await call('BenefitCategory', 'updateCategoryStatus', id, { status: 'inactive' });
    await call('BenefitCategory', 'updateCategoryStatus', id, { status: 'active' });
    const offerId = `offer-${randomUUID().slice(0, 8)}`;
    await call(
      'Offer',
      'createOffer',
      undefined,
      example('Offer', 'createOffer', {
        id: offerId,
        categoryIds: [id],
        status: 'unpublished',
        images: ['https://cdn.sunrise.example/offer.jpg'],
      }),
    );
    await call('Offer', 'getOffer', offerId);
    await call('Offer', 'updateOffer', offerId, { title: 'Two for one' });
    await call('Offer', 'updateOfferStatus', offerId, { status: 'published' });
    await waitFor(
      async () => ((await t.rt.call('Offer', 'listOffers', undefined, {})).body as any)?.offers?.length >= 1,
      { what: 'offers projected' },
    );
    await call('Offer', 'listOffers', undefined, {});
    await waitFor(
      async () =>
        ((await t.rt.call('BenefitCategory', 'listCategories', undefined, {})).body as any)?.categories?.length >= 1,
      { what: 'categories projected' },
    );
    await call('BenefitCategory', 'listCategories', undefined, {});
    await call('BenefitCategory', 'listActiveCategories', undefined, {});
  });

  it('settings, companies and tiers, with the approvals their changes make', async () => {
    await call('Setting', 'getMemberType', 'default', { id: EXAMPLE_SEED.memberTypes![0]!.id });
    await call('Setting', 'getMemberSubType', 'default', { id: EXAMPLE_SEED.memberSubTypes![0]!.id });
    await call('Setting', 'getTierType', 'default', { id: EXAMPLE_SEED.tierTypes![0]!.id });
    await call('Setting', 'getCompanyGroup', 'default', { id: EXAMPLE_SEED.companyGroups![0]!.id });
    await call('Setting', 'updateCompanyGroup', 'default', {
      id: EXAMPLE_SEED.companyGroups![0]!.id,
      description: 'The group',
    });
    await call('Setting', 'updateMemberType', 'default', {
      id: EXAMPLE_SEED.memberTypes![1]!.id,
      description: 'Fixed term',
    });
    await call(
      'Setting',
      'createMemberType',
      'default',
      example('Setting', 'createMemberType', { id: 'mt-contractor', systemIdentifier: 'Contractor' }),
    );
    await call(
      'Setting',
      'createTierType',
      'default',
      example('Setting', 'createTierType', { id: 'tt-upgrade', tierGroup: 'upgrade' }),
    );
    await call('Setting', 'getPaymentPeriods', 'default', {});
    await call('Company', 'updateCompany', 'default', {
      id: EXAMPLE_SEED.companies![0]!.id,
      description: 'Flag carrier',
    });
    await call('Company', 'updateCompanyStatus', 'default', { id: EXAMPLE_SEED.companies![0]!.id, status: 'inactive' });
    await call('Tier', 'updateTier', TIER_ID, { description: 'The base tier' });
    const rule = await call('Tier', 'addEligibilityRule', TIER_ID, {
      name: 'Everyone',
      paymentTypes: ['credit_card'],
      paymentPeriod: 'monthly',
      conditions: [],
    });
    const ruleId = (rule.tier.eligibilityRules as any[]).find((r) => r.name === 'Everyone').id;
    await call('Tier', 'updateEligibilityRule', TIER_ID, { ruleId, name: 'Everyone, monthly' });
    await call('Tier', 'deactivateEligibilityRule', TIER_ID, { ruleId });
    await call('Tier', 'getTierGroups', undefined, {});
    await call('Tier', 'getPaymentTypes', undefined, {});
    await call('Tier', 'getEligibilityRuleDefinitions', undefined, {});
    await waitFor(
      async () =>
        ((await t.rt.call('ApprovalManager', 'listApprovals', undefined, {})).body as any)?.approvals?.length >= 1,
      { what: 'approvals projected' },
    );
    const list = await call('ApprovalManager', 'listApprovals', undefined, {});
    const pending = (list.approvals as any[]).find((a) => a.approvalStatus === 'pending');
    await call('ApprovalManager', 'getApproval', list.approvals[0].id, {});
    if (pending) await call('ApprovalManager', 'reviewApproval', pending.id, { action: 'approve', note: 'Checked' });
  });

  it('roles and back-office users', async () => {
    await call('RoleManager', 'createRole', 'default', {
      name: 'Support agents',
      description: 'First line',
      level: 10,
      permissions: { Member: ['getMemberPersonal'] },
    });
    await waitFor(
      async () => ((await t.rt.call('RoleManager', 'listRoles', 'default', {})).body as any)?.roles?.length >= 1,
      { what: 'roles projected' },
    );
    const roles = await call('RoleManager', 'listRoles', 'default', {});
    await call('RoleManager', 'getRole', 'default', { id: roles.roles[0].id });
    await call('RoleManager', 'getPermissions', 'default', {});
    const created = await call('ProgramManagementUser', 'createUser', undefined, {
      email: `hana.${randomUUID().slice(0, 6)}@acme.example`,
      name: 'Hana Rahman',
      type: 'internal',
      loginMethod: 'email_password',
      roles: ['super'],
    });
    const userId = created.user.id;
    await call('ProgramManagementUser', 'getUser', userId, {});
    await call('ProgramManagementUser', 'updateUser', userId, { name: 'Hana R.' });
    await call('ProgramManagementUser', 'getPermissions', userId, {});
    await waitFor(
      async () =>
        ((await t.rt.call('ProgramManagementUser', 'listUsers', undefined, {})).body as any)?.users?.length >= 1,
      { what: 'users projected' },
    );
    await call('ProgramManagementUser', 'listUsers', undefined, {});
    await call('ProgramManagementUser', 'discoverAuthMethod', undefined, { email: 'nobody@acme.example' });
    await call('ProgramManagementUser', 'sendPasswordResetEmail', undefined, { email: 'nobody@acme.example' });
  });

  it("a member's family, membership, documents and inbox", async () => {
    const added = await call('Member', 'addMemberFamilyMember', MEMBER_ID, {
      name: 'Layla',
      surname: 'Haddad',
      relation: 'daughter',
      memberSubType: 'mst-child',
    });
    const familyMemberId = added.familyMember.id;
    await call('Member', 'getMemberDependants', MEMBER_ID, {});
    await call('Member', 'updateMemberFamilyMember', MEMBER_ID, { familyMemberId, name: 'Leila' });
    await call('Member', 'removeMemberFamilyMember', MEMBER_ID, { familyMemberId });
    await call('Member', 'addMembership', MEMBER_ID, { tierId: TIER_ID, paymentType: 'company_paid' });
    const memberships = await call('Member', 'listMemberships', MEMBER_ID, {});
    expect(memberships.memberships.length).toBeGreaterThan(0);
    const doc = await call('Member', 'uploadDocument', MEMBER_ID, {
      content: PNG,
      mimeType: 'image/png',
      originalFilename: 'card.png',
      label: 'ID card',
    });
    await call('Member', 'downloadDocument', MEMBER_ID, { documentId: doc.documentId });
    await call('Member', 'archiveDocument', MEMBER_ID, { documentId: doc.documentId });
    await call('Member', 'downloadArchivedDocument', MEMBER_ID, { documentId: doc.documentId });
    await call('Member', 'unarchiveDocument', MEMBER_ID, { documentId: doc.documentId });
    await waitFor(
      async () => ((await t.rt.call('Member', 'listDocuments', MEMBER_ID, {})).body as any)?.documents?.length >= 1,
      { what: 'documents projected' },
    );
    await call('Member', 'listDocuments', MEMBER_ID, {});
    await call('Member', 'updateMemberContact', MEMBER_ID, { phone: '+971500000077' });
    await call('Member', 'updateMemberStatus', MEMBER_ID, { status: 'inactive', reason: 'On leave' });
    await call('Member', 'discoverAuthMethod', undefined, { email: 'amal.haddad@acme.example' });
    await call('Member', 'sendPasswordResetEmail', undefined, { email: 'amal.haddad@acme.example' });
    const item = await call('UserNotification', 'addNotification', `M${MEMBER_ID}`, {
      templateId: 'welcome',
      subject: 'Welcome',
      content: 'Your card is ready',
    });
    await call('UserNotification', 'listUserNotifications', `M${MEMBER_ID}`, {});
    await call('UserNotification', 'getUnreadCount', `M${MEMBER_ID}`, {});
    await call('UserNotification', 'markNotificationAsRead', `M${MEMBER_ID}`, { notificationId: item.id });
    await call('UserNotification', 'updateNotificationStatus', `M${MEMBER_ID}`, {
      notificationId: item.id,
      status: 'unread',
    });
    await call('UserNotification', 'deleteNotification', `M${MEMBER_ID}`, { notificationId: item.id });
  });

  it('partners, venues, partner users and their documents', async () => {
    await call(
      'Partner',
      'createVenue',
      PARTNER_ID,
      example('Partner', 'createVenue', { id: `venue-${randomUUID().slice(0, 8)}`, venueName: 'Sunrise Creek' }),
    );
    await call('Partner', 'updateVenue', PARTNER_ID, { venueId: VENUE_ID, contactName: 'Omar S.' });
    await call('Partner', 'updateVenueStatus', PARTNER_ID, { venueId: VENUE_ID, status: 'inactive' });
    await call('Partner', 'updatePartnerContact', PARTNER_ID, {
      primaryContact: { name: 'Omar Saleh', email: 'omar@sunrise.example', phone: '+971500000101' },
    });
    const doc = await call('Partner', 'uploadDocument', PARTNER_ID, {
      content: PNG,
      mimeType: 'image/png',
      originalFilename: 'licence.png',
      label: 'Trade licence',
    });
    await call('Partner', 'downloadDocument', PARTNER_ID, { documentId: doc.documentId });
    await call('Partner', 'archiveDocument', PARTNER_ID, { documentId: doc.documentId });
    await call('Partner', 'unarchiveDocument', PARTNER_ID, { documentId: doc.documentId });
    await call('Partner', 'getLogEntries', PARTNER_ID, {});
    await call('PartnerUser', 'getUser', PARTNER_USER_ID, {});
    await call(
      'PartnerUser',
      'updateUser',
      PARTNER_USER_ID,
      example('PartnerUser', 'updateUser', { fullName: 'Lina H.', email: EXAMPLE_SEED.partnerUsers![0]!.email }),
    );
    await call('PartnerUser', 'listVenues', PARTNER_USER_ID, {});
    await call('PartnerUser', 'removeVenues', PARTNER_USER_ID, { venueIds: [VENUE_ID] });
    await call('PartnerUser', 'addVenues', PARTNER_USER_ID, { venues: [{ partnerId: PARTNER_ID, venueId: VENUE_ID }] });
    await call('PartnerUser', 'getRoles', undefined, {});
  });

  it('content, templates and files', async () => {
    await call('ContentManager', 'listContentGroups', undefined, {});
    const groups = await call('ContentManager', 'getContentSchemas', undefined, {});
    expect(groups.schemas.length).toBeGreaterThan(0);
    await call('ContentManager', 'getContentsForBackoffice', 'default', {});
    await call('NotificationManager', 'listNotificationTemplates', undefined, {});
    await call('SystemEmail', 'listSystemEmailTemplates', undefined, {});
    for (const m of ['listCompanyGroups', 'listMemberTypes', 'listMemberSubTypes', 'listTierTypes', 'listSettings']) {
      await waitFor(async () => ((await t.rt.call('Setting', m, 'default', {})).body as any)?.items?.length >= 1, {
        what: `settings projected (${m})`,
      });
      await call('Setting', m, 'default', {});
    }
    await waitFor(
      async () => ((await t.rt.call('PartnerUser', 'listPartnerUsers', undefined, {})).body as any)?.users?.length >= 1,
      { what: 'partner users projected' },
    );
    await call('PartnerUser', 'listPartnerUsers', undefined, {});
    const file = await call('FileManager', 'init', undefined, {
      entityType: 'offer',
      entityId: `offer-${randomUUID().slice(0, 8)}`,
    });
    const upload = await call('FileManager', 'uploadFile', file.instanceId, {
      content: PNG,
      mimeType: 'image/png',
      originalFilename: 'a.png',
    });
    await call('FileManager', 'getFile', file.instanceId, { fileId: upload.file.id });
    await call('FileManager', 'createDownloadToken', file.instanceId, { fileId: upload.file.id });
    await call('FileManager', 'deleteFile', file.instanceId, { fileId: upload.file.id });
  });

  it('every answer matched its schema and status', () => {
    expect(wrong).toEqual([]);
    expect(checked.size).toBeGreaterThan(70);
  });

  it('an answer that lost a field or changed a type fails its schema (the check can fail)', () => {
    const check = (classId: string, method: string) =>
      answerValidator(classId, t.rt.registry.get(classId)!.methodsByName.get(method)!.answer!);
    expect(check('Tier', 'updateTier')({ pendingApproval: null })).toBe(false);
    expect(check('UserNotification', 'getUnreadCount')({ unreadCount: '1' })).toBe(false);
    expect(check('UserNotification', 'getUnreadCount')({ unreadCount: 1 })).toBe(true);
    expect(check('ApprovalManager', 'getApproval')({ id: 'a1' })).toBe(false);
  });
});
