/**
 * run: the rule for an event, from the class's Workflow instance when there
 * is one, else from its rule file (engine.ts picks exactly one rule).
 */
import { client, isUnknownInstance, type DeepReadonly, type StaticCtx } from '../../../runtime';
import type { LoadedConfig } from '../config';
import { selectRule, targetStatusOf } from '../rules';
import { workflowError } from '../errors';
import type { RunInput } from '../../../schemas/Workflow/inputs';
import type { WorkflowConfig } from '../types';
import type { getState } from './configuration';

/**
 * Workflow's own READ as a typed client of another Workflow instance sees it:
 * typed from the handler the class delegates to, so this module does not
 * import the class file that imports it (no import cycle).
 */
type ConfigurationReader = abstract new () => { getState: typeof getState };

/** The configuration of `classId` stored in its Workflow instance; undefined when there is no instance. */
async function storedConfiguration(
  ctx: StaticCtx<RunInput>,
  classId: string,
): Promise<DeepReadonly<WorkflowConfig> | undefined> {
  try {
    return await client<ConfigurationReader>(ctx, 'Workflow').getState(classId);
  } catch (err) {
    if (!isUnknownInstance(err)) throw err;
    return undefined;
  }
}

/** The status the entity asks for (its `status`, when it is a string). */
function requestedStatus(entity: object): string | undefined {
  return 'status' in entity && typeof entity.status === 'string' ? entity.status : undefined;
}

/** body {classId, event, currentStatus, entity, actor} → {rule, ruleIndex, targetStatus, source}. */
export async function run(ctx: StaticCtx<RunInput>, files: ReadonlyMap<string, LoadedConfig>) {
  const input = ctx.request.body;
  let config: DeepReadonly<WorkflowConfig> | undefined = await storedConfiguration(ctx, input.classId);
  let source: 'instance' | 'file' = 'instance';
  if (!config) {
    config = files.get(input.classId)?.config;
    source = 'file';
  }
  if (!config) {
    throw workflowError('WORKFLOW_NO_CONFIGURATION', `No workflow configuration for class '${input.classId}'`, {
      classId: input.classId,
    });
  }
  const picked = selectRule(config, input);
  if (!picked.ok) throw workflowError(picked.code, picked.message, picked.details);
  return {
    rule: picked.rule,
    ruleIndex: picked.index,
    targetStatus: targetStatusOf(picked.rule, requestedStatus(input.entity)) ?? null,
    source,
  };
}
