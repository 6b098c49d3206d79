/**
 * Shared helpers of the notification tests: a runtime with every class of the
 * service (and, when asked, the NotifyProbe fixture: a class whose change
 * sends a notification), roles, callers and inbox reads.
 */
import { randomUUID } from 'node:crypto';
import { seedRoles, startTestRuntime, waitFor, type TestRuntime } from '../support/harness';

export function startNotifyRuntime(opts: { probe?: boolean; env?: Record<string, string> } = {}): Promise<TestRuntime> {
  const classDirs = opts.probe ? 'classes,test/NotificationManager/fixtures' : 'classes';
  return startTestRuntime({ env: { CLASS_DIRS: classDirs, SCHEMA_DIRS: 'schemas', ...opts.env } });
}

export const TEMPLATE_METHODS = [
  'updateNotificationTemplate',
  'updateNotificationChannel',
  'updateNotificationTemplateStatus',
  'getNotificationTemplate',
  'listNotificationTemplates',
];

/** super (level 1); approver (reviews); editor (every template method); clerk (none of them). */
export async function seedNotifyRoles(t: TestRuntime): Promise<void> {
  await seedRoles(t, [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    {
      id: 'r-approver',
      name: 'approver',
      level: 10,
      permissions: { ApprovalManager: ['getApproval', 'listApprovals', 'reviewApproval'] },
    },
    { id: 'r-editor', name: 'editor', level: 10, permissions: { NotificationManager: TEMPLATE_METHODS } },
    { id: 'r-clerk', name: 'clerk', level: 10, permissions: {} },
  ]);
}

export type Headers = Record<string, string>;

export function bearer(
  t: TestRuntime,
  identity: 'program_management_user' | 'enduser' | 'member_otp',
  userId: string,
  roles: string[] = [],
): Headers {
  return { authorization: `Bearer ${t.token(identity, userId, roles)}` };
}

export function uid(prefix = 'u'): string {
  return `${prefix}${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

/** Calls a class method over HTTP. */
export function call(
  t: TestRuntime,
  classId: string,
  method: string,
  instanceId: string | undefined,
  body: unknown,
  headers: Headers,
) {
  return t.post(`/${t.projectId}/CALL/${classId}/${method}${instanceId ? `/${instanceId}` : ''}`, body, headers);
}

/** The inbox's items as the platform holds them (no ownership involved): [] before its first item. */
export async function inboxItems(t: TestRuntime, inboxId: string): Promise<Record<string, any>[]> {
  const stored = await t.rt.store.read('UserNotification', inboxId);
  if (!stored) return [];
  return (JSON.parse(stored.stateJson).private.items ?? []) as Record<string, any>[];
}

/** Waits until the inbox holds `count` items; answers them. */
export async function inboxWith(t: TestRuntime, inboxId: string, count: number): Promise<Record<string, any>[]> {
  return waitFor(
    async () => {
      const items = await inboxItems(t, inboxId);
      return items.length >= count ? items : undefined;
    },
    { what: `${count} item(s) in inbox ${inboxId}` },
  ) as Promise<Record<string, any>[]>;
}

/** Makes the class's three events wait for the role `approver` (the default rules apply template and channel updates at once). */
export async function everyEventManual(t: TestRuntime): Promise<void> {
  const rules = ['template_update', 'channel_update', 'status_update'].map((event) => ({
    description: `${event} waits for an approver (test)`,
    event,
    currentStatus: '*',
    targetStatus: '*',
    conditions: [],
    approvers: ['approver'],
  }));
  const r = await t.rt.call('Workflow', 'updateWorkflowConfiguration', 'NotificationManager', {
    classId: 'NotificationManager',
    rules,
  });
  if (r.status !== 200) throw new Error(`workflow configuration refused: ${JSON.stringify(r.body)}`);
}

/**
 * A method's input as the runtime makes it from a GET query (`asQuery`; a
 * POST body is checked as sent) and the fields its schema refuses.
 */
export { schemaRefusal } from '../support/schema-check';
