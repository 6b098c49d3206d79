/** Workflow error codes (spec 7.1: 14000-14099). Each name has one code and one HTTP status. */
import { errorFactory } from '../../runtime';
import { PlatformWorkflowErrors } from '../_platform/errors';

export const WorkflowErrors = {
  /** the configuration found for a class belongs to another class (spec 3.4 failure 1) */
  WORKFLOW_CLASS_MISMATCH: { code: 14000, status: 500 },
  /** no rule matches the event / current status / conditions (spec 3.4 failure 2) */
  WORKFLOW_NO_MATCHING_RULE: { code: 14001, status: 400 },
  /** more than one rule matches: the configuration is ambiguous (spec 3.4 failure 3) */
  WORKFLOW_MULTIPLE_RULES: { code: 14002, status: 500 },
  /** neither a Workflow instance nor a rule file configures the class */
  WORKFLOW_NO_CONFIGURATION: { code: 14003, status: 500 },
  /** a configuration sent to init/setState/updateWorkflowConfiguration breaks a rule the schema cannot express */
  WORKFLOW_INVALID_CONFIGURATION: { code: 14004, status: 400 },
  /** the class id of a configuration differs from the Workflow instance it is sent to */
  WORKFLOW_CONFIG_CLASS_ID_MISMATCH: { code: 14005, status: 400 },
  /** runWorkflow could not build the change (patch did not apply to the old entity); raised by classes/_platform/workflow.ts */
  WORKFLOW_PATCH_FAILED: PlatformWorkflowErrors.WORKFLOW_PATCH_FAILED,
  /** init / setState / updateWorkflowConfiguration by a program management user that is no developer */
  WORKFLOW_DEVELOPER_ONLY: { code: 14007, status: 403 },
  /** a class writing the workflow configuration of another class (a class may change only its own) */
  WORKFLOW_FOREIGN_CONFIGURATION: { code: 14008, status: 403 },
} as const;

export type WorkflowErrorName = keyof typeof WorkflowErrors;

export const workflowError = errorFactory('Workflow', WorkflowErrors);
