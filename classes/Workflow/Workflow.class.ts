/**
 * Workflow (spec 3.4, 4.5): one instance per configured class, instance id =
 * class id. An instance holds a class's rules when they were set at run time
 * (init / setState / updateWorkflowConfiguration); otherwise `run` uses the
 * class's rule file under WORKFLOW_CONFIG_DIR, loaded and validated when the
 * class starts.
 *
 * Entity classes do not call this class directly: they use runWorkflow from
 * classes/_platform/workflow.ts.
 *
 * This file declares the methods and delegates: each body lives in
 * use-cases/<use case>.ts, the rules in engine.ts, config.ts and access.ts
 * (pure). README.md has the methods, choices and error codes.
 */
import { ActorClass, Init, Read, Static, Write, type ReadCtx, type StaticCtx } from '../../runtime';
import { SHARED_DATA } from '../_platform/scope';
import { loadWorkflowConfigs, workflowConfigDirs, type LoadedConfig } from './config';
import type { ConfigInput, GetStateInput, RunInput } from '../../schemas/Workflow/inputs';
import type { WorkflowClassState } from './types';
import * as configuration from './use-cases/configuration';
import type { WorkflowCtx } from './use-cases/configuration';
import * as running from './use-cases/run';

/** management: program management users (role-checked) and classes; the system identity is always admitted */
const MANAGE = ['program_management_user', 'class'] as const;

// workflow rules are the programme's: company users (and classes acting for them) read them, never change them
@ActorClass<WorkflowClassState>({
  id: 'Workflow',
  description: 'Workflow rules per class and the rule engine (spec 3.4)',
  tenancy: SHARED_DATA,
})
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
    instanceId: (req) => {
      const body = req.body as { classId?: unknown } | undefined;
      return req.path.instanceId ?? (typeof body?.classId === 'string' ? body.classId : undefined);
    },
  })
  async init(ctx: WorkflowCtx<ConfigInput>) {
    return configuration.writeConfiguration(ctx);
  }

  @Read({ access: [...MANAGE] })
  getState(ctx: ReadCtx<WorkflowClassState, GetStateInput>) {
    return configuration.getState(ctx);
  }

  /** replaces the configuration (body {classId, rules}, same checks as updateWorkflowConfiguration; system, developers, the class itself) */
  @Write({ access: [...MANAGE], schema: 'config' })
  async setState(ctx: WorkflowCtx<ConfigInput>) {
    return configuration.writeConfiguration(ctx);
  }

  /**
   * Replaces the class's rules at run time; following events use them. Creates
   * the instance when the class so far ran on its rule file. For the system
   * identity, developers and the configured class itself; validated and
   * audit-logged.
   */
  @Write({ access: [...MANAGE], schema: 'config', upsert: true })
  async updateWorkflowConfiguration(ctx: WorkflowCtx<ConfigInput>) {
    return configuration.writeConfiguration(ctx);
  }

  /**
   * The rule for an event: body {classId, event, currentStatus, entity, actor}
   * → {rule, ruleIndex, targetStatus, source}. Uses the class's Workflow
   * instance when there is one, else its rule file.
   */
  @Static({ access: ['class'], schema: 'run' })
  async run(ctx: StaticCtx<RunInput>) {
    return running.run(ctx, this.files);
  }
}
