/**
 * The workflow engine (spec 3.4), pure: picks the one rule of a class's
 * configuration that applies to an event.
 *
 *  1. rules are filtered by event and current status (`*` matches any status);
 *  2. every condition of a rule must hold;
 *  3. exactly one rule must be left: none → WORKFLOW_NO_MATCHING_RULE,
 *     several → WORKFLOW_MULTIPLE_RULES; a configuration of another class →
 *     WORKFLOW_CLASS_MISMATCH.
 *
 * Condition semantics (by operator):
 *  - equal / not_equal: deep equality of JSON values (no type coercion:
 *    5 ≠ "5"); a missing key equals nothing, so it is `not_equal` to everything.
 *  - in / not_in: `value` is an array; a scalar holds `in` when it deep-equals one
 *    element; an array holds `in` when any of its elements does (intersection:
 *    `actor.roles in ["approver"]`). not_in is the negation (a missing key is
 *    `not_in` every list).
 *  - less_than, greater_than, less_than_equal, greater_than_equal: both sides
 *    numbers (compared as numbers), or both ISO 8601 date / date-time strings
 *    (compared as instants; a date-time without offset is read as UTC). Any other
 *    pair of types (a missing key, a non-date string, a boolean...) does not hold.
 */
import { isDeepStrictEqual } from 'node:util';
import type { DeepReadonly } from '../../runtime';
import type { WorkflowErrorName } from './errors';
import { ANY, type RuleInput, type WorkflowCondition, type WorkflowConfig, type WorkflowRule } from './types';

export type SelectResult =
  | { ok: true; rule: DeepReadonly<WorkflowRule>; index: number }
  | {
      ok: false;
      code: Extract<
        WorkflowErrorName,
        'WORKFLOW_CLASS_MISMATCH' | 'WORKFLOW_NO_MATCHING_RULE' | 'WORKFLOW_MULTIPLE_RULES'
      >;
      message: string;
      details: Record<string, unknown>;
    };

/** The value at a dotted path (`a.b.0.c`); undefined when any step is missing. */
export function getPath(source: unknown, key: string): unknown {
  let cur: unknown = source;
  for (const part of key.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(part)) return undefined;
      cur = cur[Number(part)];
    } else {
      if (!Object.prototype.hasOwnProperty.call(cur, part)) return undefined;
      cur = (cur as Record<string, unknown>)[part];
    }
  }
  return cur;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Milliseconds of an ISO 8601 date or date-time string; undefined when it is not one. */
export function isoInstant(value: string): number | undefined {
  const m = ISO_DATE.exec(value);
  if (!m) return undefined;
  let text = value.replace(' ', 'T');
  if (m[4] !== undefined && m[7] === undefined) text += 'Z'; // date-time without offset: UTC
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Comparable pair: both numbers, or both ISO dates. */
function comparable(actual: unknown, expected: unknown): [number, number] | undefined {
  if (typeof actual === 'number' && typeof expected === 'number') {
    return Number.isFinite(actual) && Number.isFinite(expected) ? [actual, expected] : undefined;
  }
  if (typeof actual === 'string' && typeof expected === 'string') {
    const a = isoInstant(actual);
    const e = isoInstant(expected);
    return a !== undefined && e !== undefined ? [a, e] : undefined;
  }
  return undefined;
}

function isIn(actual: unknown, list: unknown): boolean {
  if (!Array.isArray(list) || actual === undefined) return false;
  const one = (v: unknown) => list.some((e) => isDeepStrictEqual(v, e));
  return Array.isArray(actual) ? actual.some(one) : one(actual);
}

/** Does one condition hold for this actual value? */
export function compare(operator: WorkflowCondition['operator'], actual: unknown, expected: unknown): boolean {
  switch (operator) {
    case 'equal':
      return actual !== undefined && isDeepStrictEqual(actual, expected);
    case 'not_equal':
      return actual === undefined || !isDeepStrictEqual(actual, expected);
    case 'in':
      return isIn(actual, expected);
    case 'not_in':
      return !isIn(actual, expected);
    case 'less_than':
    case 'greater_than':
    case 'less_than_equal':
    case 'greater_than_equal': {
      const pair = comparable(actual, expected);
      if (!pair) return false;
      const [a, e] = pair;
      if (operator === 'less_than') return a < e;
      if (operator === 'greater_than') return a > e;
      if (operator === 'less_than_equal') return a <= e;
      return a >= e;
    }
    default:
      return false;
  }
}

export function conditionHolds(
  condition: DeepReadonly<WorkflowCondition>,
  input: Pick<RuleInput, 'entity' | 'actor'>,
): boolean {
  const source = condition.dataSource === 'actor' ? input.actor : input.entity;
  return compare(condition.operator, getPath(source, condition.key), condition.value);
}

function sameEvent(a: string | number, b: string | number): boolean {
  return String(a) === String(b);
}

/** Rule matches event, current status and every condition. */
export function ruleMatches(rule: DeepReadonly<WorkflowRule>, input: RuleInput): boolean {
  if (!sameEvent(rule.event, input.event)) return false;
  if (rule.currentStatus !== ANY && rule.currentStatus !== input.currentStatus) return false;
  return rule.conditions.every((c) => conditionHolds(c, input));
}

/** The one rule of `config` (a rule file's, or an instance's as stored) that applies to the event, or why there is none. */
export function selectRule(config: DeepReadonly<WorkflowConfig>, input: RuleInput): SelectResult {
  if (config.classId !== input.classId) {
    return {
      ok: false,
      code: 'WORKFLOW_CLASS_MISMATCH',
      message: `The workflow configuration belongs to class '${config.classId}', not '${input.classId}'`,
      details: { configClassId: config.classId, classId: input.classId },
    };
  }
  const matching: number[] = [];
  config.rules.forEach((rule, i) => {
    if (ruleMatches(rule, input)) matching.push(i);
  });
  if (matching.length === 1) return { ok: true, rule: config.rules[matching[0]], index: matching[0] };
  const where = { classId: input.classId, event: input.event, currentStatus: input.currentStatus };
  if (matching.length === 0) {
    const forEvent = config.rules.filter((r) => sameEvent(r.event, input.event)).length;
    return {
      ok: false,
      code: 'WORKFLOW_NO_MATCHING_RULE',
      message: `No workflow rule of ${input.classId} allows event '${input.event}' from status '${input.currentStatus}'`,
      details: { ...where, rulesForEvent: forEvent },
    };
  }
  return {
    ok: false,
    code: 'WORKFLOW_MULTIPLE_RULES',
    message: `${matching.length} workflow rules of ${input.classId} match event '${input.event}' from status '${input.currentStatus}'; exactly one must`,
    details: { ...where, ruleIndexes: matching },
  };
}

/** The status a matched rule moves the entity to: its target, or (for `*`) the status the entity asks for. */
export function targetStatusOf(
  rule: Pick<WorkflowRule, 'targetStatus'>,
  requested: string | undefined,
): string | undefined {
  return rule.targetStatus === ANY ? requested : rule.targetStatus;
}
