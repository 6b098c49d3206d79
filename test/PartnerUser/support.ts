/**
 * Shared helpers of the PartnerUser integration tests: a runtime serving
 * PartnerUser and the real classes it works with (Partner for the partners
 * and venues, Workflow and ApprovalManager for the approvals, LogManager,
 * FileManager, RoleManager for the roles), over real Redis and HTTP; the
 * roles; real partners and venues made through Partner as the system (so
 * their creation is approved at once); and the review of an approval by the
 * approver.
 */
import { randomUUID } from 'node:crypto';
import { seedRoles, startTestRuntime, waitFor, type TestRuntime } from '../support/harness';

export type Headers = Record<string, string>;

export const PARTNER_USER_ENV = {
  CLASS_DIRS:
    'classes/PartnerUser,classes/Partner,classes/Workflow,classes/ApprovalManager,classes/LogManager,classes/FileManager,classes/RoleManager',
  SCHEMA_DIRS: 'schemas',
};

/** every PartnerUser method a program management user may be granted */
export const PARTNER_USER_METHODS = [
  'init',
  'getUser',
  'updateUser',
  'updateStatus',
  'listPartnerUsers',
  'addVenues',
  'removeVenues',
  'listVenues',
  'getRoles',
];

export interface PuRuntime {
  t: TestRuntime;
  /** level 1: makes every change */
  admin: Headers;
  /** holds `approver`: reviews the changes */
  approver: Headers;
  /** level 10 with every PartnerUser method */
  puadmin: Headers;
  /** level 10 with PartnerUser's reads */
  reader: Headers;
  /** level 10 with nothing of PartnerUser */
  clerk: Headers;
  /** level 1, limited to company c-1 */
  companyUser: Headers;
  stop(): Promise<void>;
}

export function bearer(t: TestRuntime, userId: string, roles: string[], claims: Record<string, unknown> = {}): Headers {
  return {
    authorization: `Bearer ${t.rt.tokens.sign({ sub: userId, identity: 'program_management_user', roles, ...claims })}`,
  };
}

export async function startPuRuntime(): Promise<PuRuntime> {
  const t = await startTestRuntime({ env: PARTNER_USER_ENV });
  await seedRoles(t, [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    {
      id: 'r-approver',
      name: 'approver',
      level: 10,
      permissions: { ApprovalManager: ['getApproval', 'listApprovals'] },
    },
    { id: 'r-puadmin', name: 'puadmin', level: 10, permissions: { PartnerUser: PARTNER_USER_METHODS } },
    {
      id: 'r-reader',
      name: 'reader',
      level: 10,
      permissions: { PartnerUser: ['getUser', 'listPartnerUsers', 'listVenues', 'getRoles'] },
    },
    { id: 'r-clerk', name: 'clerk', level: 10, permissions: { ApprovalManager: ['getApproval'] } },
  ]);
  return {
    t,
    admin: bearer(t, 'pm-admin', ['super']),
    approver: bearer(t, 'pm-approver', ['approver']),
    puadmin: bearer(t, 'pm-puadmin', ['puadmin']),
    reader: bearer(t, 'pm-reader', ['reader']),
    clerk: bearer(t, 'pm-clerk', ['clerk']),
    companyUser: bearer(t, 'pm-company', ['super'], { tenant: 'c-1' }),
    stop: () => t.stop(),
  };
}

export function uid(prefix = 'u'): string {
  return `${prefix}${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

export const email = (prefix = 'pu') => `${uid(prefix)}@example.com`;

/** A class method over HTTP. */
export function call(
  t: TestRuntime,
  method: string,
  instanceId: string | undefined,
  body: unknown,
  headers: Headers = {},
  classId = 'PartnerUser',
) {
  return t.post(`/${t.projectId}/CALL/${classId}/${method}${instanceId ? `/${instanceId}` : ''}`, body, headers);
}

/** A partner made through Partner as the system (approved at once: `active`). */
export async function createPartner(t: TestRuntime, brandName = 'Sunrise'): Promise<string> {
  const id = uid('p');
  const r = await t.rt.call('Partner', 'init', id, {
    legalName: `${brandName} LLC`,
    brandName,
    businessAddress: '1 Beach Road',
    city: 'Dubai',
    country: 'AE',
    primaryContact: { name: 'Lina Haddad', email: 'lina@partner.example', phone: '+971500000000' },
    contractId: 'C-1',
    contractStartDate: '2030-01-01',
    contractEndDate: '2031-01-01',
  });
  if (r.status !== 201) throw new Error(`Partner.init: ${r.status} ${JSON.stringify(r.body)}`);
  return id;
}

/** A venue of `partnerId` made through Partner as the system. */
export async function createVenue(t: TestRuntime, partnerId: string, venueName = 'Marina'): Promise<string> {
  const id = uid('v');
  const r = await t.rt.call('Partner', 'createVenue', partnerId, {
    id,
    venueName,
    address: '2 Marina Walk',
    contactName: 'Omar Saleh',
    contactEmail: 'omar@partner.example',
    contactPhone: '+971500000001',
    mapCoordinates: { latitude: 25.08, longitude: 55.14 },
  });
  if (r.status !== 201) throw new Error(`Partner.createVenue: ${r.status} ${JSON.stringify(r.body)}`);
  return id;
}

/** Two partners, two venues of the first and one of the second. */
export interface Programme {
  p1: string;
  p2: string;
  v1a: string;
  v1b: string;
  v2a: string;
}

export async function createProgramme(t: TestRuntime): Promise<Programme> {
  const [p1, p2] = await Promise.all([createPartner(t, 'Sunrise'), createPartner(t, 'Moonlight')]);
  const [v1a, v1b, v2a] = await Promise.all([
    createVenue(t, p1, 'Marina'),
    createVenue(t, p1, 'Downtown'),
    createVenue(t, p2, 'Harbour'),
  ]);
  return { p1, p2, v1a, v1b, v2a };
}

/** init's body: a user of partner p1 (admin) with its venue v1a. */
export function userBody(p: Programme, over: Record<string, unknown> = {}) {
  return {
    fullName: 'Pat Lee',
    email: email(),
    partners: [{ partnerId: p.p1, role: 'admin' }],
    venues: [{ partnerId: p.p1, venueId: p.v1a }],
    ...over,
  };
}

/** Reviews an approval as the approver (approve or reject); throws unless accepted. */
export async function review(pu: PuRuntime, approvalId: string, action: 'approve' | 'reject'): Promise<void> {
  const r = await call(pu.t, 'reviewApproval', approvalId, { action }, pu.approver, 'ApprovalManager');
  if (r.status !== 200) throw new Error(`reviewApproval: ${r.status} ${JSON.stringify(r.body)}`);
}

/** Waits until the user waits for no approval; answers getUser's body. */
export async function settled(pu: PuRuntime, id: string): Promise<Record<string, any>> {
  return (await waitFor(
    async () => {
      const b = (await call(pu.t, 'getUser', id, {}, pu.admin)).body;
      return b?.pendingApproval === null ? (b as Record<string, any>) : undefined;
    },
    { what: `partner user ${id} settled` },
  ))!;
}

/** The user's streamed document once `check` holds. */
export async function documentWhen(
  pu: PuRuntime,
  id: string,
  check: (doc: Record<string, any>) => boolean,
): Promise<Record<string, any>> {
  return (await waitFor(
    async () => {
      const d = (await pu.t.rt.documents.get('partnerUsers', id)) as Record<string, any> | null;
      return d && check(d) ? d : undefined;
    },
    { what: `partnerUsers document ${id}` },
  ))!;
}

/** The PartnerUser rules of this project's workflow replaced: every event manual (`approver`) or automatic. */
export async function setRules(t: TestRuntime, mode: 'manual' | 'auto'): Promise<void> {
  const approvers = mode === 'manual' ? ['approver'] : [];
  const rules = [
    {
      description: `user_create (${mode}, test)`,
      event: 'user_create',
      currentStatus: 'pending',
      targetStatus: 'active',
      conditions: [],
      approvers,
    },
    {
      description: `user_update (${mode}, test)`,
      event: 'user_update',
      currentStatus: '*',
      targetStatus: '*',
      conditions: [],
      approvers,
    },
    {
      description: `user_status_update (${mode}, test)`,
      event: 'user_status_update',
      currentStatus: '*',
      targetStatus: '*',
      conditions: [],
      approvers,
    },
  ];
  const r = await t.rt.call('Workflow', 'updateWorkflowConfiguration', 'PartnerUser', {
    classId: 'PartnerUser',
    rules,
  });
  if (r.status !== 200) throw new Error(`workflow configuration refused: ${JSON.stringify(r.body)}`);
}
