/**
 * Workflow (spec 3.4, 4.5): one instance per configured class, instance id =
 * class id. An instance holds a class's rules when they were set at run time
 * (init / setState / updateWorkflowConfiguration); otherwise `run` uses the
 * class's rule file under WORKFLOW_CONFIG_DIR, loaded and validated when the
 * class starts.
 *
 * Entity classes do not call this class directly: they use runWorkflow from
 * classes/_platform/workflow.ts.
 */
import { ActorClass, Init, isUnknownInstance, Read, Static, Write, type Ctx } from '../../runtime';
import { actorFromIdentity } from '../_platform/actor';
import { assertDeveloperOrSystem } from '../_platform/privileged';
import { logChange } from '../_platform/audit-log';
import { isForeignConfiguration } from './access';
import { SHARED_DATA } from '../_platform/scope';
import { configProblems, loadWorkflowConfigs, workflowConfigDirs, type LoadedConfig } from './config';
import { selectRule, targetStatusOf } from './engine';
import { workflowError } from './errors';
import type { RuleInput, WorkflowConfig } from './types';

interface WorkflowState {
  classId: string;
  rules: WorkflowConfig['rules'];
  updatedAt: string;
  updatedBy: { id: string; type: string };
}

/** management: program management users (role-checked) and classes; the system identity is always admitted */
const MANAGE = ['program_management_user', 'class'] as const;

function stateOf(ctx: Ctx): WorkflowState {
  return ctx.state.public as WorkflowState;
}

/** the configuration as stored; `written`: the version this write commits (every write changes updatedAt) */
function view(ctx: Ctx, written = false) {
  const s = stateOf(ctx);
  const version = written ? ctx.version + 1 : ctx.version;
  return { classId: s.classId, rules: s.rules, updatedAt: s.updatedAt, updatedBy: s.updatedBy, version, source: 'instance' as const };
}

/**
 * Who may write (access.ts): a class only its own configuration (403 14008);
 * otherwise the system identity and developers only (403 14007).
 */
function authorizeWrite(ctx: Ctx): void {
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
  assertDeveloperOrSystem(ctx, `Workflow.${ctx.method}`, (message, details) => workflowError('WORKFLOW_DEVELOPER_ONLY', message, details));
}

/**
 * Checks the caller, the body's class id against the instance and the rules,
 * writes the configuration and logs the change (LogManager, entity type
 * `workflowConfiguration`, entity id = the class id).
 */
async function writeConfig(ctx: Ctx): Promise<void> {
  authorizeWrite(ctx);
  const body = ctx.request.body as WorkflowConfig;
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
  if (problems.length) throw workflowError('WORKFLOW_INVALID_CONFIGURATION', `Invalid workflow configuration: ${problems.join('; ')}`, { problems });
  const actor = actorFromIdentity(ctx.identity);
  const s = ctx.state.public as WorkflowState;
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
}

// workflow rules are the programme's: company users (and classes acting for them) read them, never change them
@ActorClass({ id: 'Workflow', description: 'Workflow rules per class and the rule engine (spec 3.4)', tenancy: SHARED_DATA })
export class Workflow {
  /** rule files, read when the runtime loads the class (a broken file fails the start) */
  private readonly files: Map<string, LoadedConfig>;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.files = loadWorkflowConfigs(workflowConfigDirs(env));
  }

  /** body {classId, rules}; the instance id is the class id (taken from the body when the path has none) */
  @Init({
    access: [...MANAGE],
    schema: 'config',
    instanceId: (req) => req.path.instanceId ?? (typeof req.body?.classId === 'string' ? req.body.classId : undefined),
  })
  async init(ctx: Ctx) {
    await writeConfig(ctx);
    return view(ctx, true);
  }

  @Read({ access: [...MANAGE] })
  getState(ctx: Ctx) {
    return view(ctx);
  }

  /** replaces the configuration (body {classId, rules}, same checks as updateWorkflowConfiguration; system, developers, the class itself) */
  @Write({ access: [...MANAGE], schema: 'config' })
  async setState(ctx: Ctx) {
    await writeConfig(ctx);
    return view(ctx, true);
  }

  /**
   * Replaces the class's rules at run time; following events use them. Creates
   * the instance when the class so far ran on its rule file. For the system
   * identity, developers and the configured class itself; validated and
   * audit-logged (writeConfig).
   */
  @Write({ access: [...MANAGE], schema: 'config', upsert: true })
  async updateWorkflowConfiguration(ctx: Ctx) {
    await writeConfig(ctx);
    return view(ctx, true);
  }

  /**
   * The rule for an event: body {classId, event, currentStatus, entity, actor}
   * → {rule, ruleIndex, targetStatus, source}. Uses the class's Workflow
   * instance when there is one, else its rule file.
   */
  @Static({ access: ['class'], schema: 'run' })
  async run(ctx: Ctx) {
    const input = ctx.request.body as RuleInput & { entity: Record<string, unknown> };
    let config: WorkflowConfig | undefined;
    let source: 'instance' | 'file' = 'instance';
    try {
      config = (await ctx.call('Workflow', 'getState', input.classId, {})).body as WorkflowConfig;
    } catch (err) {
      if (!isUnknownInstance(err)) throw err;
    }
    if (!config) {
      config = this.files.get(input.classId)?.config;
      source = 'file';
    }
    if (!config) {
      throw workflowError('WORKFLOW_NO_CONFIGURATION', `No workflow configuration for class '${input.classId}'`, { classId: input.classId });
    }
    const picked = selectRule(config, input);
    if (!picked.ok) throw workflowError(picked.code, picked.message, picked.details);
    const requested = typeof input.entity.status === 'string' ? input.entity.status : undefined;
    return { rule: picked.rule, ruleIndex: picked.index, targetStatus: targetStatusOf(picked.rule, requested) ?? null, source };
  }
}
