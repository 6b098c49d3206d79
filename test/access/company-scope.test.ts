/**
 * Company scope as a matrix: every method of the service that a
 * program management user may call × {internal user, own-company user,
 * other-company user}, over real HTTP on the real classes.
 *
 *  - Classes of company data (Member, FileManager, LogManager, ApprovalManager,
 *    Company, DataSubject): a row per method, on data of company c-1. The internal and the
 *    own-company user get through (a domain refusal may follow, never a scope
 *    one); the other-company user (c-2) is refused with 403, or its listing
 *    holds nothing of c-1. A method of these classes without a row fails the
 *    test: a new method must say what it does for company users.
 *  - Shared programme data (Setting, Tier, RoleManager, Workflow, SystemEmail, NotificationManager, Partner, PartnerUser,
 *    BenefitCategory, Offer, ContentManager;
 *    Otp, which admits only the classes calling it): generated from the catalogue: company users
 *    read it, every write is refused 403 1023.
 */
import * as path from 'node:path';
import { ClassRegistry } from '../../runtime/actor/registry';
import { projectRoot } from '../../runtime/config';
import type { TestRuntime } from '../support/harness';
import { waitFor, seedRoles } from '../support/harness';
import {
  API_KEY,
  createMember,
  employeeRecord,
  IMAGES,
  seedProgram,
  startMemberRuntime,
  uniq,
} from '../Member/support';
import { FakeHr, hrEmployee } from '../Member/fake-hr';

const root = projectRoot();
const registry = ClassRegistry.fromDirectories([path.join(root, 'classes')], [path.join(root, 'schemas')], {
  ...process.env,
  WORKFLOW_CONFIG_DIR: path.join(root, 'workflow-configs'),
});

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n').toString('base64');
// the runtime's, and the classes' own scope refusals (Company, DataSubject)
const SCOPE_CODES = [1023, 6018, 20002];

let t: TestRuntime;
let hr: FakeHr;
type Who = 'internal' | 'own' | 'other';
let as: Record<Who, Record<string, string>>;

/** the data of company c-1 the rows act on (a fresh member per row keeps rows independent) */
interface Fixture {
  memberId: string;
  documentId: string;
  fileId: string;
  approvalId: string;
  logId: string;
  /** an employee of company c-1 (BG1) the HR system knows, not yet a member */
  hrEmail: string;
  /** the inbox of a back-office user who is none of the three callers, and its one item */
  inboxId: string;
  notificationId: string;
  /** a back-office user of company c-1 (created by the system, so its creation is approved at once) */
  pmUserId: string;
  /** an erasure request of the member, waiting for its approval (nothing erased) */
  erasureId: string;
}

async function fixture(): Promise<Fixture> {
  const m = await createMember(t);
  const call = (method: string, body: unknown) => t.rt.call('Member', method, m.id, body);
  const doc = (
    await call('uploadDocument', {
      content: PDF,
      mimeType: 'application/pdf',
      originalFilename: 'a.pdf',
      label: 'Contract',
    })
  ).body as { documentId: string };
  const state = await t.rt.store.read('FileManager', `member_${m.id}`);
  const fileId = (JSON.parse(state!.stateJson).private.files as { id: string }[])[0]!.id;
  // a pending change made by a back-office user of the programme (not one of the three callers)
  const maker = {
    authorization: `Bearer ${t.rt.tokens.sign({ sub: 'maker', identity: 'program_management_user', roles: ['super'] })}`,
  };
  const pending = await t.post(
    `/${t.projectId}/CALL/Member/updateMemberStatus/${m.id}`,
    { status: 'suspended', reason: 'matrix' },
    maker,
  );
  expect(pending.status).toBe(200);
  const log = await waitFor(
    async () => (await t.rt.documents.find('logs', { entityId: m.id }, { limit: 1 })).items[0],
    { what: 'log entry' },
  );
  const staffId = uniq('H');
  const hrEmail = `${staffId.toLowerCase()}@example.com`;
  hr.employees.set(hrEmail, hrEmployee(staffId));
  const inboxId = `PM${uniq('maker')}`;
  const item = (
    await t.rt.call('UserNotification', 'addNotification', inboxId, { templateId: 'MEMBER_WELCOME', content: 'matrix' })
  ).body as { id: string };
  const pmUser = (
    await t.rt.call('ProgramManagementUser', 'createUser', undefined, {
      email: `${uniq('pm')}@example.com`,
      name: 'Company user',
      type: 'company',
      companyId: 'c-1',
      loginMethod: 'sso',
      roles: [],
    })
  ).body as { user: { id: string } };
  await waitFor(async () => (await t.rt.documents.get('programManagementUsers', pmUser.user.id)) !== null, {
    what: 'back-office user projected',
  });
  const erasure = await t.post(
    `/${t.projectId}/CALL/DataSubject/requestErasure`,
    { subjectType: 'member', subjectId: m.id, reason: 'matrix' },
    maker,
  );
  expect(erasure.status).toBe(201);
  return {
    erasureId: erasure.body.erasure.id,
    memberId: m.id,
    documentId: doc.documentId,
    fileId,
    approvalId: pending.body.pendingApprovalId,
    logId: String(log._id),
    hrEmail,
    inboxId,
    notificationId: item.id,
    pmUserId: pmUser.user.id,
  };
}

interface MatrixRow {
  /** instance id from the fixture ('' for STATIC/INIT without path instance) */
  instance: (f: Fixture) => string;
  body: (f: Fixture) => unknown;
  /** a listing: the other-company user is answered, with nothing of c-1 in it */
  listing?: (body: any, f: Fixture) => unknown[];
  /** the own-company user is refused too (e.g. creating companies: internal users only) */
  ownRefused?: boolean;
  /** every caller gets this status, whatever its company (nothing to scope: e.g. creating a singleton that exists) */
  everyone?: number;
}

const member = (body: (f: Fixture) => unknown = () => ({})): MatrixRow => ({ instance: (f) => f.memberId, body });
const doc = (f: Fixture) => ({ documentId: f.documentId });
/** an inbox is its user's alone (spec 5): another user's is refused whatever the company, internal users too */
const othersInbox = (body: (f: Fixture) => unknown = () => ({})): MatrixRow => ({
  instance: (f) => f.inboxId,
  body,
  everyone: 403,
});

/** Every program-management method of the classes holding company data. */
const MATRIX: Record<string, Record<string, MatrixRow>> = {
  Member: {
    createMember: {
      instance: () => '',
      body: () => ({ name: 'New', surname: 'One', company: { id: 'c-1' }, memberType: 'mt-perm' }),
    },
    // the HR record names company c-1: a c-2 user is refused when the registration reads that company
    registerFromHr: { instance: () => '', body: (f) => ({ email: f.hrEmail }) },
    // the same lookup and rules without creating: the HR record's company is read the same way
    checkRegistrationFromHr: { instance: () => '', body: (f) => ({ email: f.hrEmail }) },
    getMemberPersonal: member(),
    updateMemberPersonal: member(() => ({ name: 'Renamed' })),
    getMemberEmployment: member(),
    updateMemberEmployment: member(() => ({ grade: 'G9' })),
    getMemberContact: member(),
    updateMemberContact: member(() => ({ phone: '+999' })),
    updateMemberStatus: member(() => ({ status: 'suspended', reason: 'x' })),
    streamMember: member(),
    addMembership: member(() => ({ tierId: 'no-tier', paymentType: 'cpg' })),
    listMemberships: member(),
    // the fixture's member has no membership: the own company's users get 404 5044, the other's the scope's 403
    renewMembership: member(() => ({ membershipId: 'none' })),
    suspendMembership: member(() => ({ membershipId: 'none', reason: 'matrix' })),
    reinstateMembership: member(() => ({ membershipId: 'none', reason: 'matrix' })),
    getMemberDependants: member(),
    addMemberFamilyMember: member(() => ({ name: 'Kid', surname: 'Lee', memberSubType: 'mst-child' })),
    updateMemberFamilyMember: member(() => ({ familyMemberId: 'none', name: 'X' })),
    removeMemberFamilyMember: member(() => ({ familyMemberId: 'none' })),
    uploadMemberIdPhoto: member(() => ({ photo: IMAGES.png, fileExtension: 'png' })),
    // a member without a membership: the status machine's 400 for the own company, the scope's 403 for the other
    sendInviteEmail: member(),
    uploadDocument: member(() => ({ content: PDF, mimeType: 'application/pdf', originalFilename: 'b.pdf' })),
    listDocuments: member(),
    downloadDocument: member(doc),
    downloadArchivedDocument: member(doc),
    archiveDocument: member(doc),
    unarchiveDocument: member(doc),
    // the HR ledger spans every company and a refused push may name none: internal users only
    listHrLedger: { instance: () => '', body: () => ({ limit: 1 }), ownRefused: true },
    // HR's population spans every company, and so do its corrections: internal users only (a dry run, on a BG_ID of no company)
    reconcileHrPopulation: {
      instance: () => '',
      body: () => ({ rows: [employeeRecord(uniq('R'))], companies: ['BG-NONE'] }),
      ownRefused: true,
    },
    // the members listing underneath: a company user sees its own company's holds only
    listHeldHrPushes: {
      instance: () => '',
      body: () => ({}),
      listing: (b: { held: { companyId: string }[] }) => b.held.filter((h) => h.companyId === 'c-1'),
    },
    listMembers: {
      instance: () => '',
      body: (f) => ({ search: f.memberId.slice(0, 0) || undefined }),
      listing: (b: { members: { companyId: string }[] }) => b.members.filter((m) => m.companyId === 'c-1'),
    },
  },
  FileManager: {
    // opening an entity's files is for its class (which names the company) and internal users: a company user cannot
    init: { instance: () => `member_${uniq('x')}`, body: () => ({}), ownRefused: true },
    uploadFile: {
      instance: (f) => `member_${f.memberId}`,
      body: () => ({ content: PDF, mimeType: 'application/pdf' }),
    },
    getFile: { instance: (f) => `member_${f.memberId}`, body: (f) => ({ fileId: f.fileId }) },
    createDownloadToken: { instance: (f) => `member_${f.memberId}`, body: (f) => ({ fileId: f.fileId }) },
    deleteFile: { instance: (f) => `member_${f.memberId}`, body: (f) => ({ fileId: f.fileId }) },
  },
  LogManager: {
    getLogEntries: {
      instance: () => '',
      body: (f) => ({ entityId: f.memberId }),
      listing: (b: { entries: unknown[] }) => b.entries,
    },
    getLog: { instance: () => '', body: (f) => ({ logId: f.logId }) },
  },
  ApprovalManager: {
    getApproval: { instance: (f) => f.approvalId, body: () => ({}) },
    reviewApproval: { instance: (f) => f.approvalId, body: () => ({ action: 'reject' }) },
    listApprovals: {
      instance: () => '',
      body: (f) => ({ entityId: f.memberId }),
      listing: (b: { approvals: unknown[] }) => b.approvals,
    },
  },
  UserNotification: {
    markNotificationAsRead: othersInbox((f) => ({ notificationId: f.notificationId })),
    updateNotificationStatus: othersInbox((f) => ({ notificationId: f.notificationId, status: 'archived' })),
    deleteNotification: othersInbox((f) => ({ notificationId: f.notificationId })),
    listUserNotifications: othersInbox(),
    getUnreadCount: othersInbox(),
  },
  ProgramManagementUser: {
    // the Company check of the new user's company refuses a c-2 user (6018); an internal user of the programme would be the commit's 1023
    createUser: {
      instance: () => '',
      body: () => ({
        email: `${uniq('new')}@example.com`,
        name: 'New',
        type: 'company',
        companyId: 'c-1',
        loginMethod: 'sso',
        roles: [],
      }),
    },
    updateUser: { instance: (f) => f.pmUserId, body: () => ({ name: 'Renamed' }) },
    updateUserStatus: { instance: (f) => f.pmUserId, body: () => ({ status: 'inactive' }) },
    getUser: { instance: (f) => f.pmUserId, body: () => ({}) },
    listUsers: {
      instance: () => '',
      body: () => ({ limit: 100 }),
      listing: (b: { users: { companyId: string | null }[] }) => b.users.filter((u) => u.companyId === 'c-1'),
    },
    // a user's permissions are its own: another user's are refused whatever the company (4012), a c-2 user by scope first
    getPermissions: { instance: (f) => f.pmUserId, body: () => ({}), everyone: 403 },
    // sign-in steps of the token's own user: none of the three callers is a stored user with a code, so all get 401 4014
    checkOtp: { instance: () => '', body: () => ({ otp: '123456' }), everyone: 401 },
    resendOtp: { instance: () => '', body: () => ({}), everyone: 401 },
  },
  Company: {
    // the registry singleton exists: its INIT is 409 for everyone before any handler runs
    init: { instance: () => 'default', body: () => ({}), everyone: 409 },
    createCompany: {
      instance: () => 'default',
      body: () => ({
        name: `Co ${uniq('n')}`,
        bgId: uniq('BG'),
        companyGroupId: 'cg-int',
        hrContact: { name: 'a', email: 'a@example.com' },
        eligibleMemberTypes: [],
        memberSubTypes: [],
        maxFreeDependants: 0,
      }),
      ownRefused: true,
    },
    updateCompany: { instance: () => 'default', body: () => ({ id: 'c-1', description: 'matrix' }) },
    updateCompanyStatus: { instance: () => 'default', body: () => ({ id: 'c-1', status: 'active' }) },
    getCompany: { instance: () => 'default', body: () => ({ id: 'c-1' }) },
    streamCompany: { instance: () => 'default', body: () => ({ id: 'c-1' }) },
    listCompanies: {
      instance: () => 'default',
      body: () => ({ limit: 100 }),
      listing: (b: { items: { id: string }[] }) => b.items.filter((c) => c.id === 'c-1'),
    },
  },
  DataSubject: {
    // the member's class refuses the other company's user before anything is gathered
    exportSubject: { instance: () => '', body: (f) => ({ subjectType: 'member', subjectId: f.memberId }) },
    requestErasure: {
      instance: () => '',
      body: (f) => ({ subjectType: 'member', subjectId: f.memberId, reason: 'matrix' }),
    },
    getErasure: { instance: (f) => f.erasureId, body: () => ({}) },
  },
};

beforeAll(async () => {
  hr = await new FakeHr().start();
  // the quarantine holds every HR deactivation of a company after its first in the hour: c-1 has a held push to list
  t = await startMemberRuntime({
    HR_BASE_URL: hr.url,
    HR_API_KEY: 'hr-secret',
    HR_TIMEOUT_MS: '2000',
    HR_RETRIES: '0',
    HR_QUARANTINE_COUNT: '1',
    HR_QUARANTINE_PERCENT: '0',
    HR_QUARANTINE_FLOOR: '0',
  });
  await seedProgram(t);
  const roles = [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    { id: 'r-approver', name: 'approver', level: 10, permissions: {} },
  ];
  await seedRoles(t, roles);
  const user = (sub: string, tenant?: string) => ({
    authorization: `Bearer ${t.rt.tokens.sign({ sub, identity: 'program_management_user', roles: ['super', 'approver'], ...(tenant ? { tenant } : {}) })}`,
  });
  as = { internal: user('int'), own: user('own', 'c-1'), other: user('oth', 'c-2') };
  const leaving = [uniq('Q'), uniq('Q')];
  for (const staffId of leaving) await createMember(t, { staffId });
  const answers = [];
  for (const staffId of leaving)
    answers.push(
      (await t.post('/members/hr/employee', employeeRecord(staffId, { status: 'terminated' }), API_KEY)).status,
    );
  expect(answers).toEqual([200, 202]);
  await waitFor(
    async () => (await t.rt.documents.count('members', { companyId: 'c-1', hrDeactivationHeld: true })) > 0,
    { what: 'the held push listed' },
  );
});
afterAll(async () => {
  await t.stop();
  await hr.stop();
});

async function run(classId: string, method: string, row: MatrixRow, who: Who, f: Fixture) {
  const id = row.instance(f);
  return t.post(`/${t.projectId}/CALL/${classId}/${method}${id ? `/${id}` : ''}`, row.body(f), as[who]);
}

test('every program-management method of the company-data classes has a matrix row', () => {
  for (const [classId, rows] of Object.entries(MATRIX)) {
    const cls = registry.get(classId)!;
    expect(cls.options.tenancy?.kind).toMatch(/owned|records/);
    const methods = [...cls.methodsByName.values()]
      .filter((m) => m.kind !== 'INTERNAL' && m.options.access.includes('program_management_user'))
      .map((m) => m.name);
    expect(Object.keys(rows).sort()).toEqual(methods.sort());
  }
  // and no other class holds company data without being in the matrix
  const companyData = registry
    .list()
    .filter((c) => c.options.tenancy?.kind === 'owned' || c.options.tenancy?.kind === 'records')
    .map((c) => c.id);
  expect(companyData.sort()).toEqual(Object.keys(MATRIX).sort());
});

describe.each(
  Object.entries(MATRIX).flatMap(([classId, rows]) =>
    Object.entries(rows).map(([method, row]) => [`${classId}.${method}`, classId, method, row] as const),
  ),
)('%s', (_name, classId, method, row) => {
  test('other company: refused or sees nothing; own company and internal: not refused by scope', async () => {
    const f = await fixture();
    const other = await run(classId, method, row, 'other', f);
    if (row.everyone) {
      for (const who of ['other', 'own', 'internal'] as const)
        expect([who, (await run(classId, method, row, who, f)).status]).toEqual([who, row.everyone]);
      return;
    }
    if (row.listing) {
      expect([other.status, row.listing(other.body, f)]).toEqual([200, []]);
    } else {
      expect([other.status, SCOPE_CODES.includes(other.body.code)]).toEqual([403, true]);
    }
    const own = await run(classId, method, row, 'own', f);
    if (row.ownRefused) expect([own.status, SCOPE_CODES.includes(own.body.code)]).toEqual([403, true]);
    else
      expect({ who: 'own', refusedOrFailed: own.status === 403 || own.status >= 500, body: own.body }).toMatchObject({
        refusedOrFailed: false,
      });
    if (row.listing && own.status === 200) expect(row.listing(own.body, f).length).toBeGreaterThan(0);
    const internal = await run(classId, method, row, 'internal', f);
    // a domain answer (200, 404, 409, ...) is fine; a refusal or a failure is not
    expect({
      who: 'internal',
      refusedOrFailed: internal.status === 403 || internal.status >= 500,
      body: internal.body,
    }).toMatchObject({ refusedOrFailed: false });
  });
});

describe('shared programme data (generated from the catalogue)', () => {
  const shared = registry.list().filter((c) => c.options.tenancy?.kind === 'shared');

  test('the shared classes', () => {
    // Otp admits no program management user (only the classes that call it, which check their own entity's company)
    expect(shared.map((c) => c.id).sort()).toEqual([
      'BenefitCategory',
      'ContentManager',
      'NotificationManager',
      'Offer',
      'Otp',
      'Partner',
      'PartnerUser',
      'RoleManager',
      'Setting',
      'SystemEmail',
      'Tier',
      'TierSchedule',
      'VenueOwner',
      'Workflow',
    ]);
  });

  test.each(shared.map((c) => c.id))('%s: company users read, every write is refused 403 1023', async (classId) => {
    const cls = registry.get(classId)!;
    for (const m of cls.methodsByName.values()) {
      if (m.kind === 'INTERNAL' || !m.options.access.includes('program_management_user')) continue;
      const r = await t.post(`/${t.projectId}/CALL/${classId}/${m.name}/default`, {}, as.own);
      if (m.kind === 'READ' || m.kind === 'STATIC') expect([m.name, r.body?.code]).not.toEqual([m.name, 1023]);
      else expect([m.name, r.status, r.body.code]).toEqual([m.name, 403, 1023]);
    }
  });
});

describe('creating and moving members across companies', () => {
  test('a company user creates members in its own company only, and cannot move one out', async () => {
    const base = { name: 'Scoped', surname: 'One', memberType: 'mt-perm' };
    const mine = await t.post(`/${t.projectId}/CALL/Member/createMember`, { ...base, company: { id: 'c-1' } }, as.own);
    expect(mine.status).toBe(200);
    const theirs = await t.post(
      `/${t.projectId}/CALL/Member/createMember`,
      { ...base, company: { id: 'c-2' } },
      as.own,
    );
    // refused where Member reads company c-2 for the c-1 user (Company's own check, 6018); the commit's check (1023) stands behind it
    expect([theirs.status, SCOPE_CODES.includes(theirs.body.code)]).toEqual([403, true]);
    // nothing of the refused creation remains: no member document in c-2 named so
    await waitFor(async () => (await t.rt.documents.get('members', mine.body.member.id)) !== null, {
      what: 'projection',
    });
    expect((await t.rt.documents.find('members', { companyId: 'c-2', name: 'Scoped' })).total).toBe(0);
  });

  test('a company user of another company cannot register an employee of company c-1 from HR: 403, no member, nothing written to HR', async () => {
    const staffId = uniq('H');
    const email = `${staffId.toLowerCase()}@example.com`;
    hr.employees.set(email, hrEmployee(staffId)); // BG1: company c-1
    const recorded = hr.requests.filter((q) => q.path === '/employees/member-id').length;
    for (const method of ['registerFromHr', 'checkRegistrationFromHr']) {
      const r = await t.post(`/${t.projectId}/CALL/Member/${method}`, { email }, as.other);
      expect([method, r.status, SCOPE_CODES.includes(r.body.code)]).toEqual([method, 403, true]);
    }
    expect(await t.rt.store.resolveLookup('Member', 'staffId', staffId)).toBeUndefined();
    expect(hr.requests.filter((q) => q.path === '/employees/member-id').length).toBe(recorded);
    // the same call by the company's own user registers it (the refusal above was the scope's)
    const own = await t.post(`/${t.projectId}/CALL/Member/registerFromHr`, { email }, as.own);
    expect([own.status, own.body.member?.company]).toEqual([201, { id: 'c-1' }]);
  });

  test('a class acting for a company user is held to its company (class-to-class calls carry the scope)', async () => {
    const m = await createMember(t);
    // Member reads the company through Company.getCompany as class:Member: for a c-2 user on c-1's member that is refused before
    const r = await t.post(`/${t.projectId}/CALL/Member/getMemberPersonal/${m.id}`, {}, as.other);
    expect([r.status, r.body.code]).toEqual([403, 1023]);
    // a company user's own listing of companies through Company shows its company only
    const own = await t.post(`/${t.projectId}/CALL/Company/listCompanies/default`, { limit: 100 }, as.own);
    expect(own.body.items.map((c: { id: string }) => c.id)).toEqual(['c-1']);
  });
});
