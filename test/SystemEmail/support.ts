/**
 * Shared helpers of the SystemEmail integration tests: a runtime serving
 * SystemEmail and the platform classes it uses (Workflow, ApprovalManager,
 * LogManager, FileManager, RoleManager), roles seeded through the real
 * RoleManager, and calls over HTTP.
 */
import type { Identity } from '../../runtime/types/identity';
import { seedRoles, startTestRuntime, waitFor, type TestRuntime } from '../support/harness';

export const SYSTEM_EMAIL_ENV = {
  CLASS_DIRS:
    'classes/SystemEmail,classes/Workflow,classes/ApprovalManager,classes/LogManager,classes/FileManager,classes/RoleManager',
  SCHEMA_DIRS: 'schemas',
};

export function startSystemEmailRuntime(extra: Record<string, string> = {}): Promise<TestRuntime> {
  return startTestRuntime({ env: { ...SYSTEM_EMAIL_ENV, ...extra } });
}

/** the methods a program management user may be granted */
export const PM_METHODS = [
  'createSystemEmailTemplate',
  'updateSystemEmailTemplate',
  'updateSystemEmailTemplateStatus',
  'getSystemEmailTemplate',
  'getSystemEmailTemplateFields',
  'listSystemEmailTemplates',
];

/**
 * Roles: super (level 1); approver (level 10, reviews approvals); editor
 * (level 10, every SystemEmail method); reader (level 10, the reads).
 */
export async function writeRoles(t: TestRuntime): Promise<void> {
  await seedRoles(t, [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    {
      id: 'r-approver',
      name: 'approver',
      level: 10,
      permissions: { ApprovalManager: ['getApproval', 'listApprovals'] },
    },
    { id: 'r-editor', name: 'editor', level: 10, permissions: { SystemEmail: PM_METHODS } },
    {
      id: 'r-reader',
      name: 'reader',
      level: 10,
      permissions: {
        SystemEmail: ['getSystemEmailTemplate', 'getSystemEmailTemplateFields', 'listSystemEmailTemplates'],
      },
    },
  ]);
}

export function bearer(t: TestRuntime, userId: string, roles: string[]) {
  return { authorization: `Bearer ${t.token('program_management_user', userId, roles)}` };
}

let seq = 0;
/** a template id of its own per test */
export function freshId(prefix = 'TPL'): string {
  seq += 1;
  return `${prefix}_${process.pid}_${seq}`;
}

export function templateBody(templateId: string, extra: Record<string, unknown> = {}) {
  return {
    templateId,
    type: 'system',
    status: 'active',
    to: ['ops@example.com'],
    title: `Template ${templateId}`,
    subject: 'Hello {{name}}',
    html: '<p>Dear {{name}}, your code is <b>{{code}}</b>.</p>',
    json: { design: { rows: [] } },
    ...extra,
  };
}

/** A class calling SystemEmail (sendSystemEmail admits classes only). */
export const MEMBER_CLASS: Identity = { type: 'class', classId: 'Member', instanceId: 'm-1' };

/** The outcome of a queued job once it has finished. */
export async function jobOutcome(t: TestRuntime, jobId: string) {
  const outcome = await waitFor(
    async () => {
      const { status } = await t.rt.jobs.status(jobId);
      return status.status === 'completed' || status.status === 'failed' ? status : undefined;
    },
    { what: `job ${jobId}` },
  );
  return outcome!;
}

/** sendSystemEmail as a class: the enqueue answer, and the job's outcome when it was queued. */
export async function send(t: TestRuntime, templateId: string, body: Record<string, unknown>) {
  const r = await t.rt.call('SystemEmail', 'sendSystemEmail', templateId, body, {
    identity: MEMBER_CLASS,
    origin: 'class',
  });
  return { enqueued: r, outcome: await jobOutcome(t, (r.body as { jobId: string }).jobId) };
}

/** Audit entries of a template, newest first. */
export async function auditEntries(t: TestRuntime, templateId: string): Promise<Record<string, any>[]> {
  const r = await t.rt.call('LogManager', 'getLogEntries', undefined, {
    classId: 'SystemEmail',
    entityId: templateId,
    limit: 100,
  });
  return (r.body as { entries: Record<string, any>[] }).entries;
}

/** The audit entries of a template once there are `count` of them. */
export async function entriesWhen(t: TestRuntime, templateId: string, count: number): Promise<Record<string, any>[]> {
  const entries = await waitFor(
    async () => {
      const e = await auditEntries(t, templateId);
      return e.length === count ? e : undefined;
    },
    { what: `${count} audit entries of ${templateId}` },
  );
  return entries!;
}

/**
 * A method's input as the runtime makes it from a GET query (`asQuery`; a
 * POST body is checked as sent) and the fields its schema refuses.
 */
export { schemaRefusal } from '../support/schema-check';
