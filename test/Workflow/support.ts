/** Shared helpers of the workflow tests. */
import type { Operation } from 'rfc6902';
import { patchBytes } from '../../classes/ApprovalManager/rules';
import { startTestRuntime, type TestRuntime, seedRoles } from '../support/harness';

/** a one-operation patch whose JSON is exactly `bytes` bytes of UTF-8 */
export function patchOfSize(bytes: number, char = 'x', path = '/blob'): Operation[] {
  const base = patchBytes([{ op: 'add', path, value: '' }]);
  const per = Buffer.byteLength(char, 'utf8');
  const n = (bytes - base) / per;
  if (!Number.isInteger(n) || n < 0) throw new Error(`cannot build ${bytes} bytes from '${char}'`);
  return [{ op: 'add', path, value: char.repeat(n) }];
}

export const WORKFLOW_ENV = {
  CLASS_DIRS: process.env.WORKFLOW_TEST_CLASS_DIRS || 'classes,test/fixtures/classes',
  SCHEMA_DIRS: 'schemas,test/fixtures/schemas',
  WORKFLOW_CONFIG_DIR: 'workflow-configs,test/fixtures/workflow-configs',
};

/** A test runtime serving the service classes and the Gadget fixture (classes get the env at construction). */
export async function startWorkflowRuntime(extra: Record<string, string> = {}): Promise<TestRuntime> {
  return startTestRuntime({ env: { ...WORKFLOW_ENV, ...extra } });
}

/** Role snapshot: super (level 1), approver, senior, clerk (level 10). */
export async function writeRoles(t: TestRuntime): Promise<void> {
  const gadget = ['init', 'update', 'updateStatus', 'getGadget'];
  const approvals = ['getApproval', 'listApprovals'];
  const roles = [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    { id: 'r-approver', name: 'approver', level: 10, permissions: { Gadget: gadget, ApprovalManager: approvals } },
    { id: 'r-senior', name: 'senior', level: 10, permissions: { Gadget: gadget, ApprovalManager: approvals } },
    { id: 'r-clerk', name: 'clerk', level: 10, permissions: { Gadget: gadget, ApprovalManager: approvals } },
  ];
  await seedRoles(t, roles);
}

export function bearer(t: TestRuntime, userId: string, roles: string[], extra: Record<string, unknown> = {}) {
  const token = t.rt.tokens.sign({ sub: userId, identity: 'program_management_user', roles, ...extra });
  return { authorization: `Bearer ${token}` };
}
