/**
 * Generated from the class catalogue: every method of every service class,
 * called over real HTTP, refuses
 *  - an anonymous caller (401), unless the method is public;
 *  - an identity its access list does not admit (403 1008);
 *  - a level-10 program management user whose roles do not grant it (403 1008),
 *    when the method admits program management users and does its role check
 *    in the platform (methods declaring skipRoleCheck are listed below with the
 *    rule that replaces the check, and tested where that rule lives).
 * INTERNAL methods are refused over HTTP to everyone (403 1006).
 *
 * A new method is covered the day it is added: nothing here names methods,
 * except the short list of declared exceptions, which the test checks is exact.
 */
import { ClassRegistry } from '../../runtime/actor/registry';
import type { AccessRule, IdentityType } from '../../runtime/types/identity';
import { projectRoot } from '../../runtime/config';
import { TEST_API_KEY, type TestRuntime, seedRoles } from '../support/harness';
import { startMemberRuntime } from '../Member/support';
import * as path from 'node:path';

/** Methods whose role check is their own (skipRoleCheck), with where that rule is tested. */
const OWN_ROLE_CHECK: Record<string, string> = {
  'ApprovalManager.getApproval':
    'eligible approvers see what they may act on; others need the permission (test/Workflow)',
  'ApprovalManager.reviewApproval':
    'eligible approvers only: an active approver role named on the record (test/Workflow)',
  'ApprovalManager.listApprovals': 'actionable listing for approvers; otherwise the permission (test/Workflow)',
  'UserNotification.listUserNotifications':
    'own inbox only: PM<own id> for program management users (test/NotificationManager)',
  'UserNotification.getUnreadCount': 'own inbox only (test/NotificationManager)',
  'UserNotification.markNotificationAsRead': 'own inbox only (test/NotificationManager)',
  'UserNotification.updateNotificationStatus': 'own inbox only (test/NotificationManager)',
  'UserNotification.deleteNotification': 'own inbox only (test/NotificationManager)',
  'ProgramManagementUser.getPermissions': "the signed-in user's own permissions only (test/ProgramManagementUser)",
  'ProgramManagementUser.checkOtp':
    "a sign-in step for the token's own user, reached with login's token (test/ProgramManagementUser)",
  'ProgramManagementUser.resendOtp':
    "a sign-in step for the token's own user, reached with login's token (test/ProgramManagementUser)",
};

/**
 * Methods anyone may call without signing in, with why. Checked both ways for the classes this runtime
 * serves: a method made public by mistake fails here, and so does one of this list that stopped being public.
 */
const PUBLIC: Record<string, string> = {
  'FileManager.downloadFile': 'the signed download token bound to the file is the credential (test/FileManager)',
  'FileManager.getPublicFile': 'files marked public only (test/FileManager)',
  'Member.discoverAuthMethod':
    'sign-in; throttled per address and email; the answer depends on the domain only (test/Member/sign-in*)',
  'Member.login': 'sign-in; throttled; one answer for every refusal (test/Member/sign-in*)',
  'Member.singleSignOn':
    'the SAML assertion consumer service: the signed response is the credential (test/Member/sign-in-sso)',
  'Member.inviteRedirect': 'the invitation link: an HTML page, throttled (test/Member/sign-in)',
  'Member.acceptInvitation': 'the invitation token is the credential; throttled (test/Member/sign-in*)',
  'Member.completeRegistration':
    'an employee registering themselves: the mailed registration code is the credential; throttled; the same refusal for every email (test/Member/self-registration)',
  'Member.sendPasswordResetEmail': 'one answer for every email; throttled (test/Member/sign-in*)',
  'Member.resetPassword': 'the reset token is the credential; throttled (test/Member/sign-in*)',
  'ProgramManagementUser.discoverAuthMethod': 'back-office sign-in (test/ProgramManagementUser)',
  'ProgramManagementUser.singleSignOn': 'back-office SAML assertion consumer service (test/ProgramManagementUser)',
  'ProgramManagementUser.login': 'back-office sign-in (test/ProgramManagementUser)',
  'ProgramManagementUser.sendPasswordResetEmail': 'back-office sign-in (test/ProgramManagementUser)',
  'ProgramManagementUser.resetPassword': 'back-office sign-in (test/ProgramManagementUser)',
  'ProgramManagementUser.acceptInvitation': 'back-office sign-in (test/ProgramManagementUser)',
  'ContentManager.getContents':
    'active content only; the login screen shows its content before anyone signs in (test/ContentManager)',
  'ContentManager.getContentSchemas': 'content metadata, spec 5 (test/ContentManager)',
  'ContentManager.listContentGroups': 'content metadata, spec 5 (test/ContentManager)',
  'ContentManager.getContentGroup': 'content metadata, spec 5 (test/ContentManager)',
};

const root = projectRoot();
const registry = ClassRegistry.fromDirectories([path.join(root, 'classes')], [path.join(root, 'schemas')], {
  ...process.env,
  WORKFLOW_CONFIG_DIR: path.join(root, 'workflow-configs'),
});

interface Row {
  classId: string;
  method: string;
  kind: string;
  access: readonly AccessRule[];
  skipRoleCheck: boolean;
  /** the method answers errors in its own envelope (MethodOptions.errorShape) */
  shaped: boolean;
}

const rows: Row[] = registry.list().flatMap((c) =>
  [...c.methodsByName.values()].map((m) => ({
    classId: c.id,
    method: m.name,
    kind: m.kind,
    access: m.options.access,
    skipRoleCheck: m.options.skipRoleCheck === true,
    shaped: Boolean(m.options.errorShape),
  })),
);

let t: TestRuntime;
type Caller = 'program_management_user' | 'enduser' | 'member_otp' | 'integration_user' | 'level10';
let headers: Record<Caller, Record<string, string>>;

beforeAll(async () => {
  t = await startMemberRuntime();
  // a level-10 role that grants nothing: "holds a role" is not "holds this permission"
  const roles = [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    { id: 'r-narrow', name: 'narrow', level: 10 as const, permissions: {} },
  ];
  await seedRoles(t, roles);
  const bearer = (identity: IdentityType, roles: string[] = []) => ({
    authorization: `Bearer ${t.rt.tokens.sign({ sub: `u-${identity}`, identity, roles })}`,
  });
  headers = {
    program_management_user: bearer('program_management_user', ['super']),
    enduser: bearer('enduser'),
    member_otp: bearer('member_otp'),
    integration_user: { 'x-api-key': TEST_API_KEY },
    level10: bearer('program_management_user', ['narrow']),
  };
});
afterAll(() => t.stop());

const callAs = (row: Row, h: Record<string, string> = {}) =>
  t.post(`/${t.projectId}/CALL/${row.classId}/${row.method}/x-instance`, {}, h);

/** the code of an answer, in the runtime's shape or an integration envelope (spec 7.2 for the HR routes) */
function codeOf(body: any): unknown {
  return body?.code ?? body?.error?.code;
}

test('the catalogue is the whole service and the exceptions are exact', () => {
  const ids = new Set(registry.list().map((c) => c.id));
  for (const c of [
    'Setting',
    'Company',
    'Tier',
    'RoleManager',
    'Workflow',
    'ApprovalManager',
    'LogManager',
    'FileManager',
    'Member',
    'SystemEmail',
    'Otp',
    'PartnerUser',
    'BenefitCategory',
    'Offer',
    'ContentManager',
  ])
    expect(ids).toContain(c);
  const declared = rows
    .filter((r) => r.skipRoleCheck)
    .map((r) => `${r.classId}.${r.method}`)
    .sort();
  expect(declared).toEqual(Object.keys(OWN_ROLE_CHECK).sort());
  const open = rows
    .filter((r) => r.access.includes('public'))
    .map((r) => `${r.classId}.${r.method}`)
    .sort();
  expect(open).toEqual(
    Object.keys(PUBLIC)
      .filter((m) => ids.has(m.split('.')[0]!))
      .sort(),
  );
});

describe.each(registry.list().map((c) => c.id))('%s', (classId) => {
  const mine = rows.filter((r) => r.classId === classId);

  test('INTERNAL methods are refused over HTTP, whoever calls', async () => {
    for (const row of mine.filter((r) => r.kind === 'INTERNAL')) {
      const r = await callAs(row, headers.program_management_user);
      expect([`${row.method}`, r.status, r.body.code]).toEqual([row.method, 403, 1006]);
    }
  });

  test('public methods admit an anonymous caller: what refuses one is its input, never 401 or 403', async () => {
    for (const row of mine.filter((r) => r.kind !== 'INTERNAL' && r.access.includes('public'))) {
      const r = await callAs(row);
      expect([row.method, r.status === 401 || r.status === 403]).toEqual([row.method, false]);
    }
  });

  test('every non-public method refuses an anonymous caller with 401', async () => {
    for (const row of mine.filter((r) => r.kind !== 'INTERNAL' && !r.access.includes('public'))) {
      const r = await callAs(row);
      expect([row.method, r.status]).toEqual([row.method, 401]);
    }
  });

  test('every method refuses an identity its access list does not admit with 403', async () => {
    const kinds = ['program_management_user', 'enduser', 'member_otp', 'integration_user'] as const;
    for (const row of mine.filter((r) => r.kind !== 'INTERNAL' && !r.access.includes('public'))) {
      const outsider = kinds.find((k) => !row.access.includes(k as AccessRule));
      if (!outsider) throw new Error(`${classId}.${row.method} admits every identity: it should be public`);
      const r = await callAs(row, headers[outsider]);
      // methods with their own error envelope answer in it: the HR contract (spec 7.2) refuses any caller without its key with 401 10072
      const expected = row.shaped ? [401, 10072] : [403, 1008];
      expect([row.method, outsider, r.status, codeOf(r.body)]).toEqual([row.method, outsider, ...expected]);
    }
  });

  test('a level-10 user whose roles do not grant the method is refused with 403 1008', async () => {
    const checked = mine.filter(
      (r) =>
        r.kind !== 'INTERNAL' &&
        r.access.includes('program_management_user') &&
        !r.access.includes('public') &&
        !r.skipRoleCheck,
    );
    for (const row of checked) {
      const r = await callAs(row, headers.level10);
      expect([row.method, r.status, row.shaped ? 'shaped' : codeOf(r.body)]).toEqual([
        row.method,
        403,
        row.shaped ? 'shaped' : 1008,
      ]);
    }
  });
});
