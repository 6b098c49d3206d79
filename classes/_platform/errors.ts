/**
 * Errors the platform modules raise themselves (not on behalf of one class).
 * The workflow step (runWorkflow) runs for the Workflow class's rules, so its
 * code stays in Workflow's spec range (7.1: 14000-14099); Workflow's own table
 * lists it from here.
 */
import { errorFactory } from '../../runtime';

export const PlatformWorkflowErrors = {
  /** runWorkflow could not build the change (patch did not apply to the old entity) */
  WORKFLOW_PATCH_FAILED: { code: 14006, status: 500 },
} as const;

export const platformWorkflowError = errorFactory('Workflow', PlatformWorkflowErrors);
