/**
 * A class's rules at run time: init, setState and updateWorkflowConfiguration
 * write them (validated and audit-logged), getState reads them.
 */
import type { Ctx, ReadCtx } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { logChange } from '../../_platform/audit-log';
import { assertDeveloperOrSystem } from '../../_platform/privileged';
import { isForeignConfiguration } from '../access';
import { configProblems } from '../config';
import { workflowError } from '../errors';
import type { ConfigInput } from '../../../schemas/Workflow/inputs';
import type { WorkflowClassState } from '../types';

/** a Workflow handler's context: the instance's configuration, and the method's body `I` */
export type WorkflowCtx<I = Record<string, never>> = Ctx<WorkflowClassState, I>;

/** the configuration as stored; `written`: the version this write commits (every write changes updatedAt) */
export function view(ctx: ReadCtx<WorkflowClassState, unknown>, written = false) {
  const s = ctx.state.public;
  const version = written ? ctx.version + 1 : ctx.version;
  return {
    classId: s.classId,
    rules: s.rules,
    updatedAt: s.updatedAt,
    updatedBy: s.updatedBy,
    version,
    source: 'instance' as const,
  };
}

/** getState: the configuration this instance holds. */
export function getState(ctx: ReadCtx<WorkflowClassState, Record<string, never>>) {
  return view(ctx);
}

/**
 * Who may write (access.ts): a class only its own configuration (403 14008);
 * otherwise the system identity and developers only (403 14007).
 */
function authorizeWrite(ctx: WorkflowCtx<ConfigInput>): void {
  const identity = ctx.identity;
  if (identity.type === 'class') {
    if (isForeignConfiguration(identity, ctx.instanceId)) {
      throw workflowError(
        'WORKFLOW_FOREIGN_CONFIGURATION',
        `Class '${identity.classId}' may change only its own workflow configuration, not the one of '${ctx.instanceId}'`,
        { callerClassId: identity.classId, classId: ctx.instanceId },
      );
    }
    return;
  }
  assertDeveloperOrSystem(ctx, `Workflow.${ctx.method}`, (message, details) =>
    workflowError('WORKFLOW_DEVELOPER_ONLY', message, details),
  );
}

/**
 * init, setState and updateWorkflowConfiguration: checks the caller, the
 * body's class id against the instance and the rules, writes the
 * configuration and logs the change (LogManager, entity type
 * `workflowConfiguration`, entity id = the class id). Answers the
 * configuration as this write commits it.
 */
export async function writeConfiguration(ctx: WorkflowCtx<ConfigInput>) {
  authorizeWrite(ctx);
  const body = ctx.request.body;
  if (body.classId !== ctx.instanceId) {
    throw workflowError(
      'WORKFLOW_CONFIG_CLASS_ID_MISMATCH',
      `This Workflow instance configures class '${ctx.instanceId}'; the configuration is for '${body.classId}'`,
      { instanceId: ctx.instanceId, classId: body.classId },
    );
  }
  // the method schema is the rule-file schema; checked again here so a schema
  // file swapped for a laxer one cannot let a broken configuration in
  const problems = configProblems(body);
  if (problems.length)
    throw workflowError('WORKFLOW_INVALID_CONFIGURATION', `Invalid workflow configuration: ${problems.join('; ')}`, {
      problems,
    });
  const actor = actorFromIdentity(ctx.identity);
  const s = ctx.state.public;
  // a new instance's public state is empty: nothing configured before
  const before = s.classId === undefined ? null : { classId: s.classId, rules: s.rules };
  s.classId = body.classId;
  s.rules = body.rules;
  s.updatedAt = new Date().toISOString();
  s.updatedBy = { id: actor.id, type: actor.type };
  await logChange(ctx, {
    entityType: 'workflowConfiguration',
    entityId: body.classId,
    before,
    after: { classId: body.classId, rules: body.rules },
    additionalData: { method: ctx.method },
  });
  return view(ctx, true);
}
