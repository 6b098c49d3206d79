/** Workflow configuration (spec 3.4): one rule file or Workflow instance per class. */
import type { StateOf } from '../../runtime';

import type { Operator } from '../_platform/vocabulary';

export { OPERATORS, type Operator } from '../_platform/vocabulary';

export interface WorkflowCondition {
  /** where `key` is read: the (new) entity or the actor that caused the event */
  dataSource: 'entity' | 'actor';
  /** dotted path, e.g. `status`, `address.country`, `roles` */
  key: string;
  operator: Operator;
  value: unknown;
}

export interface WorkflowRule {
  event: string | number;
  /** a status or `*` (any) */
  currentStatus: string;
  /** a status or `*` (keep the status the entity asks for) */
  targetStatus: string;
  conditions: WorkflowCondition[];
  /** role names; empty = auto-approve */
  approvers: string[];
  /**
   * May the maker of a change (the actor that caused the event) approve it
   * itself, when it also holds an approver role? Default false: four eyes.
   */
  allowSelfApproval?: boolean;
  description?: string;
}

export interface WorkflowConfig {
  classId: string;
  rules: WorkflowRule[];
}

export const ANY = '*';

/** What the engine needs to pick a rule. */
export interface RuleInput {
  classId: string;
  event: string | number;
  currentStatus: string;
  entity: unknown;
  actor: unknown;
}

/** A Workflow instance's configuration (public state; empty before its first write). */
export interface WorkflowState {
  classId: string;
  rules: WorkflowConfig['rules'];
  updatedAt: string;
  updatedBy: { id: string; type: string };
}

/** The Workflow class's state (`@ActorClass<WorkflowClassState>`): public holds WorkflowState, private nothing. */
export type WorkflowClassState = StateOf<Record<string, never>, WorkflowState>;
