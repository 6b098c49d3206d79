/** Shared set-up of the Setting and Company tests: the service classes they need, roles, tokens, approvals. */
import { startTestRuntime, waitFor, type TestRuntime, seedRoles } from '../support/harness';

/**
 * Setting and Company with the platform classes they call (workflow,
 * approvals, audit log); the other service classes are not needed here.
 */
export const SERVICE_ENV = {
  CLASS_DIRS:
    'classes/Setting,classes/Company,classes/Workflow,classes/ApprovalManager,classes/LogManager,classes/RoleManager',
  SCHEMA_DIRS: 'schemas',
};

/** What a level-10 clerk may do: read settings and companies, nothing else. */
export const CLERK_PERMISSIONS = {
  Setting: [
    'getSetting',
    'listSettings',
    'getProgramManagementConfig',
    'getPaymentPeriods',
    'listCompanyGroups',
    'getCompanyGroup',
    'listMemberTypes',
    'getMemberType',
    'findMemberTypeBySystemIdentifier',
    'listMemberSubTypes',
    'getMemberSubType',
    'findMemberSubTypeByHrmsMapping',
    'listTierTypes',
    'getTierType',
  ],
  Company: ['getCompany', 'listCompanies'],
};

/** A company user's role: its own company only (the class narrows it), no creation, no status change. */
export const COMPANY_ADMIN_PERMISSIONS = { Company: ['getCompany', 'listCompanies', 'updateCompany', 'createCompany'] };

/** Roles: super (level 1), approver and clerk and companyAdmin (level 10). */
export async function writeRoles(t: TestRuntime): Promise<void> {
  const roles = [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    {
      id: 'r-approver',
      name: 'approver',
      level: 10,
      permissions: { ApprovalManager: ['getApproval', 'listApprovals'] },
    },
    { id: 'r-clerk', name: 'clerk', level: 10, permissions: CLERK_PERMISSIONS },
    { id: 'r-company-admin', name: 'companyAdmin', level: 10, permissions: COMPANY_ADMIN_PERMISSIONS },
  ];
  await seedRoles(t, roles);
}

export function bearer(
  t: TestRuntime,
  userId: string,
  roles: string[],
  extra: Record<string, unknown> = {},
): Record<string, string> {
  const token = t.rt.tokens.sign({ sub: userId, identity: 'program_management_user', roles, ...extra });
  return { authorization: `Bearer ${token}` };
}

export interface ServiceTestRuntime extends TestRuntime {
  /** headers of: the level-1 super user, an approver, a level-10 clerk, a member (enduser) */
  superUser: Record<string, string>;
  approver: Record<string, string>;
  clerk: Record<string, string>;
  member: Record<string, string>;
  /** POST /CALL/<classId>/<method>/default */
  call(
    classId: string,
    method: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): ReturnType<TestRuntime['post']>;
  /** GET /CALL/<classId>/<method>/default?<query> */
  query(
    classId: string,
    method: string,
    query?: Record<string, string | number>,
    headers?: Record<string, string>,
  ): ReturnType<TestRuntime['get']>;
  /** approve or reject an approval as the approver, then wait until `applied` holds */
  review<T>(approvalId: string, action: 'approve' | 'reject', applied: () => Promise<T>): Promise<T>;
}

export async function startServiceRuntime(): Promise<ServiceTestRuntime> {
  const t = await startTestRuntime({ env: SERVICE_ENV });
  await writeRoles(t);
  const path = (classId: string, method: string) => `/${t.projectId}/CALL/${classId}/${method}/default`;
  const superUser = bearer(t, 'root', ['super']);
  const approver = bearer(t, 'ann', ['approver']);
  const s: ServiceTestRuntime = Object.assign(t, {
    superUser,
    approver,
    clerk: bearer(t, 'clara', ['clerk']),
    member: { authorization: `Bearer ${t.token('enduser', 'm1')}` },
    call: (classId: string, method: string, body: unknown = {}, headers: Record<string, string> = superUser) =>
      t.post(path(classId, method), body, headers),
    query: (
      classId: string,
      method: string,
      query: Record<string, string | number> = {},
      headers: Record<string, string> = superUser,
    ) =>
      t.get(
        `${path(classId, method)}?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString()}`,
        headers,
      ),
    review: async <T>(approvalId: string, action: 'approve' | 'reject', applied: () => Promise<T>) => {
      const r = await t.post(`/${t.projectId}/CALL/ApprovalManager/reviewApproval/${approvalId}`, { action }, approver);
      if (r.status !== 200) throw new Error(`review ${action} of ${approvalId}: ${r.status} ${JSON.stringify(r.body)}`);
      return waitFor(applied, { what: `${action} of ${approvalId} applied` });
    },
  });
  return s;
}

/**
 * A method's input as the runtime makes it from a GET query (`asQuery`; a
 * POST body is checked as sent) and the fields its schema refuses.
 */
export { schemaRefusal } from '../support/schema-check';
