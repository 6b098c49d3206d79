/**
 * Shared helpers of the notification tests: a runtime with every class of the
 * service (and, when asked, the NotifyProbe fixture: a class whose change
 * sends a notification), roles, callers and inbox reads.
 */
import { randomUUID } from 'node:crypto';
import { seedRoles, startTestRuntime, waitFor, type TestRuntime } from '../support/harness';

export function startNotifyRuntime(opts: { probe?: boolean; env?: Record<string, string> } = {}): Promise<TestRuntime> {
  const classDirs = opts.probe ? 'classes,test/notifications/fixtures' : 'classes';
  return startTestRuntime({ env: { CLASS_DIRS: classDirs, SCHEMA_DIRS: 'schemas', ...opts.env } });
}

/** super (level 1); approver (reviews); clerk (no permission). */
export async function seedNotifyRoles(t: TestRuntime): Promise<void> {
  await seedRoles(t, [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    { id: 'r-approver', name: 'approver', level: 10, permissions: { ApprovalManager: ['getApproval', 'listApprovals', 'reviewApproval'] } },
    { id: 'r-clerk', name: 'clerk', level: 10, permissions: {} },
  ]);
}

export type Headers = Record<string, string>;

export function bearer(t: TestRuntime, identity: 'program_management_user' | 'enduser' | 'member_otp', userId: string, roles: string[] = []): Headers {
  return { authorization: `Bearer ${t.token(identity, userId, roles)}` };
}

export function uid(prefix = 'u'): string {
  return `${prefix}${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

/** Calls a class method over HTTP. */
export function call(t: TestRuntime, classId: string, method: string, instanceId: string | undefined, body: unknown, headers: Headers) {
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
