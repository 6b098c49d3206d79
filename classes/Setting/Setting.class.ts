/**
 * Setting (spec 2.4, 3.3, 4.5): the singleton (instance `default`) holding
 * the five setting groups of the program: company groups, member types,
 * member sub types, tier types and the tier configuration (payment periods).
 *
 * State: ctx.state.private = SettingState ({groups, pendingApprovals}).
 * Every create, update and status change runs the workflow (events
 * `setting_create`, `setting_update`, `setting_status_update`, with
 * additionalData.group; rules in workflow-configs/Setting.json), is written to
 * the audit log, and is streamed: each record of the four list groups is a
 * document of collection `settings` (field `group`), which the list methods
 * read. Creating methods create the singleton on first use (upsert).
 *
 * Handlers are thin: the rules are in rules.ts and list-query.ts.
 */
import { randomUUID } from 'node:crypto';
import { ActorClass, ActorError, Init, QueuedWrite, Read, Write, type Ctx } from '../../runtime';
import { actorFromIdentity } from '../_platform/actor';
import { assertDeveloperOrSystem } from '../_platform/privileged';
import { openRecord, ownEntry } from '../_platform/records';
import { applyApprovalCallback, approvalSummary, PatchConflictError, runWorkflow, type ApprovalCallbackBody } from '../_platform/workflow';
import { logChange } from '../_platform/audit-log';
import { SHARED_DATA } from '../_platform/scope';
import { SETTING_PATCH_CONFLICT, settingError } from './errors';
import { pageOf, parseSettingListQuery } from './list-query';
import {
  activeConfig,
  applyValueUpdate,
  asEntity,
  buildValue,
  checkPaymentPeriods,
  checkStatusMove,
  checkValue,
  emptySettingState,
  findMemberSubTypeByRelation,
  findMemberTypeBySystemIdentifier,
  findValue,
  fromEntity,
  GROUP_INFO,
  isSettingGroup,
  pendingKey,
  requireValue,
  SETTINGS_COLLECTION,
  settingDocuments,
  stateProblems,
  valuesOf,
  valueView,
  type ValueInput,
} from './rules';
import type { ListGroup, PaymentPeriod, SettingGroup, SettingGroups, SettingState, SettingValue, TierConfig } from './types';

export const SETTING_INSTANCE = 'default';
export const SETTING_EVENTS = { create: 'setting_create', update: 'setting_update', status: 'setting_status_update' } as const;

const PM = ['program_management_user'] as const;
const PM_AND_CLASSES = ['program_management_user', 'class'] as const;

function guardSingleton(ctx: Ctx): void {
  if (ctx.instanceId !== SETTING_INSTANCE) {
    throw settingError('SETTING_SINGLETON_ONLY', `Setting is a singleton: call instance '${SETTING_INSTANCE}', not '${ctx.instanceId}'`);
  }
}

/** The state to change (created with the defaults on first use). */
function writable(ctx: Ctx): SettingState {
  guardSingleton(ctx);
  const s = ctx.state.private as SettingState;
  if (!s.groups) Object.assign(s, emptySettingState());
  // keyed by `${group}:${id}` from caller input: a null-prototype record, like every map keyed by input
  s.pendingApprovals = openRecord(s.pendingApprovals);
  return s;
}

/** The state to read (never changed). */
function readable(ctx: Ctx): SettingState {
  guardSingleton(ctx);
  const s = ctx.state.private as Partial<SettingState>;
  return s.groups ? (s as SettingState) : emptySettingState();
}

/** A parameter from the body, else from the query string (GET). */
function param(ctx: Ctx, name: string): unknown {
  const body = (ctx.request.body ?? {}) as Record<string, unknown>;
  return body[name] ?? (ctx.request.query ?? {})[name];
}

function requiredString(ctx: Ctx, name: string): string {
  const v = param(ctx, name);
  if (typeof v !== 'string' || v.trim().length === 0 || v.length > 200) {
    throw settingError('SETTING_INVALID_QUERY', `${name} is required (a string of 1 to 200 characters)`, { errors: [{ field: name, reason: 'is required' }] });
  }
  return v;
}


function refuseWhilePending(state: SettingState, group: SettingGroup | 'all', entityId: string): void {
  const waiting = ownEntry(state.pendingApprovals, pendingKey(group, entityId));
  if (waiting) {
    throw settingError('SETTING_APPROVAL_PENDING', `${group === 'all' ? 'The settings' : `${GROUP_INFO[group].label} '${entityId}'`} wait for approval ${waiting}`, {
      group,
      id: entityId,
      approvalId: waiting,
    });
  }
}

function replaceValue(state: SettingState, group: ListGroup, value: SettingValue): void {
  const list = valuesOf(state.groups, group);
  const i = list.findIndex((v) => v.id === value.id);
  if (i >= 0) list[i] = value;
  else list.push(value);
}

// ---------------------------------------------------------------- generic record operations

async function createValue(ctx: Ctx, group: ListGroup) {
  const state = writable(ctx);
  const input = ctx.request.body as ValueInput;
  const record = buildValue(group, input, actorFromIdentity(ctx.identity), new Date().toISOString(), input.id ?? randomUUID());
  checkValue(state.groups, group, record, { isNew: true });
  const wf = await runWorkflow(ctx, {
    event: SETTING_EVENTS.create,
    entityId: record.id,
    oldEntity: null,
    newEntity: asEntity(group, record),
    approveCallback: 'approveSetting',
    rejectCallback: 'approveSetting',
    additionalData: { group },
  });
  const stored = wf.isApproved ? fromEntity<SettingValue>(wf.simulatedApprovedState) : record;
  replaceValue(state, group, stored);
  if (!wf.isApproved) state.pendingApprovals[pendingKey(group, record.id)] = wf.approvalRecord.id;
  await logChange(ctx, { entityType: group, entityId: record.id, before: null, after: { ...stored }, additionalData: { group, approvalId: wf.approvalRecord.id } });
  ctx.response.status = 201;
  return { item: valueView(state, group, stored), approval: approvalSummary(wf.approvalRecord), newStatus: wf.newStatus ?? null };
}

async function changeValue(ctx: Ctx, group: ListGroup, event: string, requested: SettingValue, old: SettingValue, state: SettingState) {
  const wf = await runWorkflow(ctx, {
    event,
    entityId: old.id,
    oldEntity: asEntity(group, old),
    newEntity: asEntity(group, requested),
    approveCallback: 'approveSetting',
    rejectCallback: 'approveSetting',
    additionalData: { group },
  });
  if (wf.isApproved) {
    const applied = fromEntity<SettingValue>(wf.simulatedApprovedState);
    replaceValue(state, group, applied);
    await logChange(ctx, { entityType: group, entityId: old.id, before: { ...old }, after: { ...applied }, additionalData: { group, approvalId: wf.approvalRecord.id } });
  } else {
    state.pendingApprovals[pendingKey(group, old.id)] = wf.approvalRecord.id;
  }
  const current = findValue(state.groups, group, old.id)!;
  return { item: valueView(state, group, current), approval: approvalSummary(wf.approvalRecord), newStatus: wf.newStatus ?? null };
}

async function updateValue(ctx: Ctx, group: ListGroup) {
  const state = writable(ctx);
  const input = ctx.request.body as ValueInput & { id: string };
  const old = requireValue(state.groups, group, input.id);
  refuseWhilePending(state, group, old.id);
  const requested = applyValueUpdate(group, old, input, new Date().toISOString());
  checkValue(state.groups, group, requested, { isNew: false });
  return changeValue(ctx, group, SETTING_EVENTS.update, requested, old, state);
}

async function updateValueStatus(ctx: Ctx, group: ListGroup) {
  const state = writable(ctx);
  const { id, status } = ctx.request.body as { id: string; status: unknown };
  const old = requireValue(state.groups, group, id);
  refuseWhilePending(state, group, old.id);
  const target = checkStatusMove(group, old.id, old.status, status);
  const requested = { ...old, status: target, updatedAt: new Date().toISOString() } as SettingValue;
  return changeValue(ctx, group, SETTING_EVENTS.status, requested, old, state);
}

/** a record of a list group, as the get and find methods answer it (their typed clients' answer) */
export type ValueView<G extends ListGroup> = SettingGroups[G]['value'][number] & { pendingApprovalId: string | null };

function getValue<G extends ListGroup>(ctx: Ctx, group: G): ValueView<G> {
  const state = readable(ctx);
  // requireValue finds the record in `group`'s own list, so it is that group's record type
  return valueView(state, group, requireValue(state.groups, group, requiredString(ctx, 'id'))) as ValueView<G>;
}

async function listValues(ctx: Ctx, list: ListGroup | 'listSettings') {
  guardSingleton(ctx);
  const q = parseSettingListQuery(list, (ctx.request.query ?? {}) as Record<string, unknown>, (ctx.request.body ?? {}) as Record<string, unknown>);
  const { items, total } = await ctx.documents.find(SETTINGS_COLLECTION, q.filter, { sort: q.sort, skip: q.skip, limit: q.limit });
  return pageOf(items as Record<string, unknown>[], total, q);
}

/** Manual stream: a committed change of the instance re-projects every record. */
function streamValue(ctx: Ctx, group: ListGroup) {
  const state = writable(ctx);
  const { id } = ctx.request.body as { id: string };
  requireValue(state.groups, group, id);
  state.lastStreamed = { group, id, at: new Date().toISOString() };
  return { streamed: true, group, id, collection: SETTINGS_COLLECTION, documentId: `${group}:${id}` };
}

type ApplyOutcome<T> = { ok: true; value: T } | { ok: false; reason: string };

function applyApproved<T>(current: T, body: ApprovalCallbackBody): ApplyOutcome<T> {
  try {
    return { ok: true, value: applyApprovalCallback(current, body) };
  } catch (err) {
    if (err instanceof PatchConflictError) return { ok: false, reason: err.message };
    throw err;
  }
}

@ActorClass({
  id: 'Setting',
  description: 'Program settings: company groups, member types, member sub types, tier types, tier configuration (spec 2.4)',
  // programme reference data: company users read it, never change it
  tenancy: SHARED_DATA,
  stream: {
    collections: {
      [SETTINGS_COLLECTION]: {
        indexes: [{ keys: { group: 1, status: 1, nameKey: 1 } }, { keys: { group: 1, nameKey: 1 } }, { keys: { group: 1, tierGroup: 1 } }],
      },
    },
    toDocuments: (state) => settingDocuments(state.private as Partial<SettingState>),
  },
})
export class Setting {
  /** Creates the singleton (instance `default`) with empty groups and the default payment periods (or the given ones). */
  @Init({ access: [...PM_AND_CLASSES], instanceId: () => SETTING_INSTANCE })
  init(ctx: Ctx) {
    const { paymentPeriods } = ctx.request.body as { paymentPeriods?: PaymentPeriod[] };
    Object.assign(ctx.state.private, emptySettingState(paymentPeriods ? checkPaymentPeriods(paymentPeriods) : undefined));
    return { id: ctx.instanceId, groups: (ctx.state.private as SettingState).groups };
  }

  /** One group {group, title, description, value}; body or query {group}. */
  @Read({ access: [...PM_AND_CLASSES] })
  getSetting(ctx: Ctx) {
    const state = readable(ctx);
    const group = param(ctx, 'group');
    if (!isSettingGroup(group)) {
      throw settingError('SETTING_UNKNOWN_GROUP', `group must be one of: ${Object.keys(GROUP_INFO).join(', ')}`, {
        errors: [{ field: 'group', reason: `must be one of: ${Object.keys(GROUP_INFO).join(', ')}` }],
      });
    }
    return { group, ...state.groups[group] };
  }

  /** Records of every list group from the document store; filters group, status, search; paging. */
  @Read({ access: [...PM_AND_CLASSES] })
  listSettings(ctx: Ctx) {
    return listValues(ctx, 'listSettings');
  }

  /**
   * Replaces whole groups (migration, restore): body {groups: {<group>: {title?, description?, value}}}.
   * Checked like single changes (unique ids, names, identifiers, mappings, references);
   * refused while any approval is pending. Runs `setting_update` (group `all`).
   * For the system identity and developers only (403 10037 for everyone else, level 1 too).
   */
  @Write({ access: [...PM], upsert: true, timeoutSeconds: 30 })
  async setState(ctx: Ctx) {
    assertDeveloperOrSystem(ctx, 'Setting.setState', (message, details) => settingError('SETTING_DEVELOPER_ONLY', message, details));
    const state = writable(ctx);
    const waiting = Object.entries(state.pendingApprovals);
    if (waiting.length) {
      throw settingError('SETTING_APPROVAL_PENDING', `${waiting.length} setting change(s) wait for approval`, { pending: Object.fromEntries(waiting) });
    }
    const { groups: given } = ctx.request.body as { groups: Partial<Record<SettingGroup, { title?: string; description?: string; value: unknown }>> };
    const now = new Date().toISOString();
    const actor = actorFromIdentity(ctx.identity);
    const next: SettingGroups = JSON.parse(JSON.stringify(state.groups));
    for (const [group, g] of Object.entries(given) as [SettingGroup, { title?: string; description?: string; value: unknown }][]) {
      const value =
        group === 'tierConfig'
          ? g.value
          : (g.value as Partial<SettingValue>[]).map((v) => ({ ...v, createdBy: v.createdBy ?? actor, createdAt: v.createdAt ?? now, updatedAt: v.updatedAt ?? now }));
      (next as unknown as Record<string, unknown>)[group] = { title: g.title ?? next[group].title, description: g.description ?? next[group].description, value };
    }
    const problems = stateProblems(next);
    if (problems.length) throw settingError('SETTING_INVALID_STATE', `The settings break ${problems.length} rule(s)`, { errors: problems });
    const wf = await runWorkflow(ctx, {
      event: SETTING_EVENTS.update,
      entityId: SETTING_INSTANCE,
      oldEntity: asEntity('all', { groups: state.groups }),
      newEntity: asEntity('all', { groups: next }),
      approveCallback: 'approveSetting',
      rejectCallback: 'approveSetting',
      additionalData: { group: 'all' },
    });
    if (wf.isApproved) {
      const before = state.groups;
      state.groups = fromEntity<{ groups: SettingGroups }>(wf.simulatedApprovedState).groups;
      await logChange(ctx, { entityType: 'settings', entityId: SETTING_INSTANCE, before: { ...before }, after: { ...state.groups }, additionalData: { group: 'all', approvalId: wf.approvalRecord.id } });
    } else {
      state.pendingApprovals[pendingKey('all', SETTING_INSTANCE)] = wf.approvalRecord.id;
    }
    return { groups: state.groups, approval: approvalSummary(wf.approvalRecord) };
  }

  // ------------------------------------------------------------ company groups

  @Read({ access: [...PM_AND_CLASSES] })
  listCompanyGroups(ctx: Ctx) {
    return listValues(ctx, 'companyGroups');
  }

  @Read({ access: [...PM_AND_CLASSES], schema: 'byId' })
  getCompanyGroup(ctx: Ctx) {
    return getValue(ctx, 'companyGroups');
  }

  @Write({ access: [...PM], upsert: true })
  createCompanyGroup(ctx: Ctx) {
    return createValue(ctx, 'companyGroups');
  }

  @Write({ access: [...PM] })
  updateCompanyGroup(ctx: Ctx) {
    return updateValue(ctx, 'companyGroups');
  }

  @Write({ access: [...PM], schema: 'updateStatus' })
  updateCompanyGroupStatus(ctx: Ctx) {
    return updateValueStatus(ctx, 'companyGroups');
  }

  @Write({ access: [...PM], schema: 'streamValue' })
  streamCompanyGroup(ctx: Ctx) {
    return streamValue(ctx, 'companyGroups');
  }

  // ------------------------------------------------------------ member types

  @Write({ access: [...PM], upsert: true })
  createMemberType(ctx: Ctx) {
    return createValue(ctx, 'memberTypes');
  }

  @Write({ access: [...PM] })
  updateMemberType(ctx: Ctx) {
    return updateValue(ctx, 'memberTypes');
  }

  @Read({ access: [...PM_AND_CLASSES], schema: 'byId' })
  getMemberType(ctx: Ctx) {
    return getValue(ctx, 'memberTypes');
  }

  @Read({ access: [...PM_AND_CLASSES] })
  listMemberTypes(ctx: Ctx) {
    return listValues(ctx, 'memberTypes');
  }

  @Write({ access: [...PM], schema: 'updateStatus' })
  updateMemberTypeStatus(ctx: Ctx) {
    return updateValueStatus(ctx, 'memberTypes');
  }

  @Write({ access: [...PM], schema: 'streamValue' })
  streamMemberType(ctx: Ctx) {
    return streamValue(ctx, 'memberTypes');
  }

  /**
   * The member type for an HR employmentType: body or query
   * {systemIdentifier, includeInactive?}; case-insensitive; active types only
   * unless includeInactive. 404 when none.
   */
  @Read({ access: [...PM_AND_CLASSES] })
  findMemberTypeBySystemIdentifier(ctx: Ctx) {
    const state = readable(ctx);
    const systemIdentifier = requiredString(ctx, 'systemIdentifier');
    const includeInactive = param(ctx, 'includeInactive') === true || param(ctx, 'includeInactive') === 'true';
    const found = findMemberTypeBySystemIdentifier(state.groups.memberTypes.value, systemIdentifier, includeInactive);
    if (!found) {
      throw settingError('SETTING_VALUE_NOT_FOUND', `No ${includeInactive ? '' : 'active '}member type with systemIdentifier '${systemIdentifier}'`, {
        group: 'memberTypes',
        systemIdentifier,
      });
    }
    return valueView(state, 'memberTypes', found);
  }

  // ------------------------------------------------------------ member sub types

  @Write({ access: [...PM], upsert: true })
  createMemberSubType(ctx: Ctx) {
    return createValue(ctx, 'memberSubTypes');
  }

  @Write({ access: [...PM] })
  updateMemberSubType(ctx: Ctx) {
    return updateValue(ctx, 'memberSubTypes');
  }

  @Read({ access: [...PM_AND_CLASSES], schema: 'byId' })
  getMemberSubType(ctx: Ctx) {
    return getValue(ctx, 'memberSubTypes');
  }

  @Read({ access: [...PM_AND_CLASSES] })
  listMemberSubTypes(ctx: Ctx) {
    return listValues(ctx, 'memberSubTypes');
  }

  @Write({ access: [...PM], schema: 'updateStatus' })
  updateMemberSubTypeStatus(ctx: Ctx) {
    return updateValueStatus(ctx, 'memberSubTypes');
  }

  @Write({ access: [...PM], schema: 'streamValue' })
  streamMemberSubType(ctx: Ctx) {
    return streamValue(ctx, 'memberSubTypes');
  }

  /**
   * The member sub type mapping an HR relationship type (spec 4.3 `type`):
   * body or query {relation, includeInactive?}; case-insensitive; active sub
   * types only unless includeInactive. 404 when none.
   */
  @Read({ access: [...PM_AND_CLASSES] })
  findMemberSubTypeByHrmsMapping(ctx: Ctx) {
    const state = readable(ctx);
    const relation = requiredString(ctx, 'relation');
    const includeInactive = param(ctx, 'includeInactive') === true || param(ctx, 'includeInactive') === 'true';
    const found = findMemberSubTypeByRelation(state.groups.memberSubTypes.value, relation, includeInactive);
    if (!found) {
      throw settingError('SETTING_VALUE_NOT_FOUND', `No ${includeInactive ? '' : 'active '}member sub type maps the relation '${relation}'`, {
        group: 'memberSubTypes',
        relation,
      });
    }
    return valueView(state, 'memberSubTypes', found);
  }

  // ------------------------------------------------------------ tier types and tier configuration

  @Write({ access: [...PM], upsert: true })
  createTierType(ctx: Ctx) {
    return createValue(ctx, 'tierTypes');
  }

  @Write({ access: [...PM] })
  updateTierType(ctx: Ctx) {
    return updateValue(ctx, 'tierTypes');
  }

  @Read({ access: [...PM_AND_CLASSES], schema: 'byId' })
  getTierType(ctx: Ctx) {
    return getValue(ctx, 'tierTypes');
  }

  @Read({ access: [...PM_AND_CLASSES] })
  listTierTypes(ctx: Ctx) {
    return listValues(ctx, 'tierTypes');
  }

  @Write({ access: [...PM], schema: 'updateStatus' })
  updateTierTypeStatus(ctx: Ctx) {
    return updateValueStatus(ctx, 'tierTypes');
  }

  @Write({ access: [...PM], schema: 'streamValue' })
  streamTierType(ctx: Ctx) {
    return streamValue(ctx, 'tierTypes');
  }

  @Read({ access: [...PM_AND_CLASSES] })
  getPaymentPeriods(ctx: Ctx) {
    return { paymentPeriods: readable(ctx).groups.tierConfig.value.paymentPeriods };
  }

  /** Replaces the payment periods (keys unique); `setting_update` with group `tierConfig`. */
  @Write({ access: [...PM], upsert: true })
  async setPaymentPeriods(ctx: Ctx) {
    const state = writable(ctx);
    refuseWhilePending(state, 'tierConfig', 'tierConfig');
    const paymentPeriods = checkPaymentPeriods((ctx.request.body as { paymentPeriods: PaymentPeriod[] }).paymentPeriods);
    const old = state.groups.tierConfig.value;
    const wf = await runWorkflow(ctx, {
      event: SETTING_EVENTS.update,
      entityId: 'tierConfig',
      oldEntity: asEntity('tierConfig', old),
      newEntity: asEntity('tierConfig', { paymentPeriods }),
      approveCallback: 'approveSetting',
      rejectCallback: 'approveSetting',
      additionalData: { group: 'tierConfig' },
    });
    if (wf.isApproved) {
      state.groups.tierConfig.value = fromEntity(wf.simulatedApprovedState);
      await logChange(ctx, { entityType: 'tierConfig', entityId: 'tierConfig', before: { ...old }, after: { ...state.groups.tierConfig.value }, additionalData: { group: 'tierConfig', approvalId: wf.approvalRecord.id } });
    } else {
      state.pendingApprovals[pendingKey('tierConfig', 'tierConfig')] = wf.approvalRecord.id;
    }
    return { paymentPeriods: state.groups.tierConfig.value.paymentPeriods, approval: approvalSummary(wf.approvalRecord) };
  }

  /** Active values of every group, payment periods and tier groups (back office forms; Company's reference checks). */
  @Read({ access: [...PM_AND_CLASSES] })
  getProgramManagementConfig(ctx: Ctx) {
    return activeConfig(readable(ctx).groups);
  }

  // ------------------------------------------------------------ approvals

  /**
   * Approval callback (approve and reject) of every Setting event. Approve:
   * the approved patch is applied to the record (or tier configuration, or
   * all groups for setState). Reject: nothing changes, except that a record
   * whose creation is rejected becomes `inactive`. An approved change that no
   * longer fits (patch conflict, a name taken meanwhile) is not applied; the
   * record stops waiting and the result says why.
   */
  @QueuedWrite({ access: ['class:ApprovalManager'] })
  async approveSetting(ctx: Ctx) {
    const state = writable(ctx);
    const body = ctx.request.body as ApprovalCallbackBody;
    const group = body.additionalData?.group as SettingGroup | 'all';
    const key = pendingKey(group, body.entityId);
    const waiting = ownEntry(state.pendingApprovals, key);
    if (waiting !== body.approvalId) {
      throw settingError('SETTING_APPROVAL_MISMATCH', `Approval ${body.approvalId} is not the one ${key} waits for`, { waiting: waiting ?? null });
    }
    delete state.pendingApprovals[key];
    const conflict = (reason: string) => {
      ctx.log.warn({ approvalId: body.approvalId, key, reason }, 'approved setting change not applied');
      return { applied: false, action: body.action, code: SETTING_PATCH_CONFLICT, reason };
    };
    const logged = (entityType: string, before: object, after: object) =>
      logChange(ctx, { entityType, entityId: body.entityId, before: { ...before }, after: { ...after }, additionalData: { group, approvalId: body.approvalId, action: body.action } });

    if (group === 'all' || group === 'tierConfig') {
      if (body.action !== 'approve') return { applied: false, action: body.action };
      const current: object = group === 'all' ? { groups: state.groups } : state.groups.tierConfig.value;
      const out = applyApproved(asEntity(group, current), body);
      if (!out.ok) return conflict(out.reason);
      if (group === 'all') {
        const next = fromEntity(out.value as unknown as { groups: SettingGroups }).groups;
        const problems = stateProblems(next);
        if (problems.length) return conflict(problems.map((p) => p.reason).join('; '));
        const before = state.groups;
        state.groups = next;
        await logged('settings', before, next);
      } else {
        const before = state.groups.tierConfig.value;
        state.groups.tierConfig.value = fromEntity(out.value as unknown as TierConfig);
        await logged('tierConfig', before, state.groups.tierConfig.value);
      }
      return { applied: true, action: body.action };
    }

    const record = findValue(state.groups, group, body.entityId);
    if (!record) return conflict(`${GROUP_INFO[group].label} '${body.entityId}' no longer exists`);
    let next: SettingValue;
    if (body.action === 'approve') {
      const out = applyApproved(asEntity(group, record), body);
      if (!out.ok) return conflict(out.reason);
      next = fromEntity<SettingValue>(out.value);
      try {
        checkValue(state.groups, group, next, { isNew: false });
      } catch (err) {
        if (err instanceof ActorError) return conflict(err.message);
        throw err;
      }
    } else if (body.event === SETTING_EVENTS.create && record.status === 'pending') {
      next = { ...record, status: 'inactive', updatedAt: new Date().toISOString() } as SettingValue;
    } else {
      return { applied: false, action: body.action, item: valueView(state, group, record) };
    }
    replaceValue(state, group, next);
    await logged(group, record, next);
    return { applied: true, action: body.action, item: valueView(state, group, next) };
  }
}
