/**
 * RoleManager (spec 2.8 Role, 3.3, 4.5, 5, 6): the roles of program
 * management users and their deployment to the runtime's role check.
 *
 * Singleton (instance `default`); roles live in ctx.state.private.roles by id,
 * with the built-in level-1 role `super` always present. Every create, update
 * and status change runs the workflow (events role_create, role_update,
 * role_status_update; rules in workflow-configs/RoleManager.json), is written
 * to the audit log, and is streamed to the `roles` collection, which listRoles
 * reads.
 *
 * Deployment: saveRolesToLayerAndTriggerDeployment publishes a versioned
 * snapshot of the active roles through ctx.ports.roles; the runtime's role
 * check reads it (cached 5 s per process). Every applied change queues a
 * deployment attempt; redeployments keep a cool-down (spec 8: 3 minutes), an
 * attempt inside it schedules one deployment for the end of the cool-down.
 * While the snapshot is unreadable the runtime asks getRolesForAuthentication
 * and has the snapshot regenerated (roleProvider below).
 *
 * Rules live in domain.ts and deployment.ts (pure); handlers parse, call
 * them and write state.
 */
import { randomUUID } from 'node:crypto';
import { ActorClass, Init, QueuedWrite, Read, Static, Write, type Ctx } from '../../runtime';
import { actorFromIdentity, isPrivilegedActor } from '../_platform/actor';
import { assertDeveloperOrSystem, isDeveloperOrSystem } from '../_platform/privileged';
import {
  applyApprovalCallback,
  currentStatusFor,
  PatchConflictError,
  runWorkflow,
  type ApprovalCallbackBody,
  type RunWorkflowResult,
  approvalSummary,
} from '../_platform/workflow';
import { logChange } from '../_platform/audit-log';
import { cooldownSecondsFrom, hashRoles, planDeployment, publishedRoles } from './deployment';
import {
  activeRolesMatching,
  applyChanges,
  buildListFilter,
  changeRefusal,
  ensureState,
  entityOf,
  escalationRefusal,
  holdingOf,
  levelOneApprovalRefusal,
  nameConflict,
  normalizePermissions,
  parseListQuery,
  permissionCatalogue,
  permissionErrors,
  roleDocument,
  rolesForReading,
  sameContent,
  stateFromInput,
  SUPER_ROLE_ID,
  superRole,
  touchesLevelOne,
  type Holding,
  type RoleChange,
  type RoleChanges,
  type StateInputRole,
} from './domain';
import { roleError } from './errors';
import type { DeploymentAnswer, PermissionMap, RoleEntity, RoleLevel, RoleManagerState, RoleStatus, StoredRole } from './types';
import { listingInput } from '../_platform/paging';
import { SHARED_DATA } from '../_platform/scope';

export const ROLE_MANAGER_INSTANCE = 'default';
const DEPLOY = 'saveRolesToLayerAndTriggerDeployment';
const INTERNAL_FIELDS = ['_id', '_v', '_instance', '_class', 'nameLower'];

type WorkflowEvent = 'role_create' | 'role_update' | 'role_status_update';

function now(): string {
  return new Date().toISOString();
}

/** The instance's state for writing (created on first use, super role kept intact). */
function writable(ctx: Ctx): RoleManagerState {
  return ensureState(ctx.state.private, now());
}

function findRole(roles: Iterable<StoredRole>, id: string): StoredRole {
  for (const r of roles) if (r.id === id) return r;
  throw roleError('ROLE_NOT_FOUND', `No role '${id}'`, { id });
}

function catalogueOf(ctx: Ctx): PermissionMap {
  return permissionCatalogue(ctx.ports.catalogue());
}

function checkPermissions(ctx: Ctx, permissions: PermissionMap): void {
  const errors = permissionErrors(permissions, catalogueOf(ctx));
  if (errors.length) {
    throw roleError('ROLE_INVALID_PERMISSIONS', `Unknown permissions: ${errors.map((e) => `${e.field} ${e.reason}`).join('; ')}`, { errors });
  }
}

function checkName(roles: Iterable<StoredRole>, name: string, exceptId?: string): void {
  const clash = nameConflict(roles, name, exceptId);
  if (clash) throw roleError('ROLE_NAME_TAKEN', `A role named '${clash.name}' already exists`, { name, roleId: clash.id });
}

function refuse(role: StoredRole, change: Parameters<typeof changeRefusal>[1]): void {
  const refusal = changeRefusal(role, change);
  if (!refusal) return;
  const messages: Record<string, string> = {
    ROLE_BUILT_IN: `The built-in role '${role.id}' cannot be changed`,
    ROLE_PENDING_APPROVAL: `Role '${role.id}' waits for approval ${role.pendingApprovalId}`,
    ROLE_STATUS_UNCHANGED: `Role '${role.id}' is already ${role.status}`,
    ROLE_INVALID_INPUT: `Invalid status`,
  };
  throw roleError(refusal, messages[refusal] ?? refusal, { id: role.id, status: role.status, pendingApprovalId: role.pendingApprovalId });
}

/** What the caller may grant: everything for the system identity and developers, else what its active roles grant. */
async function callerHolding(ctx: Ctx): Promise<Holding> {
  if (isDeveloperOrSystem(ctx.identity)) return { all: true };
  return holdingOf(await ctx.roles());
}

/** No privilege beyond your own (domain.ts escalationRefusal): 403 9012, 9013 or 9014. */
async function refuseEscalation(ctx: Ctx, change: RoleChange): Promise<void> {
  const refusal = escalationRefusal(change, await callerHolding(ctx), ctx.identity.roles ?? []);
  if (refusal) throw roleError(refusal.error, refusal.message, refusal.details);
}

function levelOneRefusal(ctx: Ctx, change: RoleChange, ruleApprovers: readonly string[], autoApproved: boolean): void {
  const refusal = levelOneApprovalRefusal({ levelOne: touchesLevelOne(change), system: ctx.identity.type === 'system', ruleApprovers, autoApproved });
  if (refusal) throw roleError(refusal.error, refusal.message, { reason: refusal.reason, approvers: [...ruleApprovers] });
}

/**
 * A level-1 role change waits for an approval with approvers (403 9015
 * otherwise). Judged before the workflow runs, so a refused change leaves no
 * approval record: the rule the workflow will pick, and the developer bypass
 * that would approve it at once. runWorkflow's result is checked again after
 * (the rules may change in between).
 */
async function requireLevelOneApproval(ctx: Ctx, change: RoleChange, event: WorkflowEvent, oldEntity: RoleEntity | null, newEntity: RoleEntity): Promise<void> {
  if (!touchesLevelOne(change) || ctx.identity.type === 'system') return;
  const actor = actorFromIdentity(ctx.identity);
  const run = await ctx.call('Workflow', 'run', undefined, { classId: ctx.classId, event, currentStatus: currentStatusFor(oldEntity, newEntity), entity: newEntity, actor });
  const { rule } = run.body as { rule: { approvers: string[] } };
  levelOneRefusal(ctx, change, rule.approvers, isPrivilegedActor(actor));
}

async function enqueueDeployment(ctx: Ctx, trigger: string): Promise<string> {
  return (await ctx.enqueue('RoleManager', DEPLOY, ROLE_MANAGER_INSTANCE, { trigger })).jobId;
}

/**
 * Applies a workflow outcome. Auto-approved: the change applies now, is
 * logged, and a deployment is queued. Manual: the role keeps its state (a
 * new role is stored `inactive`, and logged as created) and remembers the
 * approval it waits for; the approve callback finishes the change.
 */
async function settle(ctx: Ctx, s: RoleManagerState, event: WorkflowEvent, wf: RunWorkflowResult<RoleEntity>, requested: RoleEntity, old: RoleEntity | null) {
  const id = requested.id;
  let deploymentJobId: string | null = null;
  if (wf.isApproved) {
    const applied = wf.simulatedApprovedState;
    s.roles[id] = { ...applied, pendingApprovalId: null };
    await logChange(ctx, { entityType: 'role', entityId: id, before: old as Record<string, unknown> | null, after: applied as unknown as Record<string, unknown>, additionalData: { event, approvalId: wf.approvalRecord.id } });
    deploymentJobId = await enqueueDeployment(ctx, event);
  } else {
    const kept = old ?? requested;
    s.roles[id] = { ...kept, pendingApprovalId: wf.approvalRecord.id };
    if (!old) {
      await logChange(ctx, { entityType: 'role', entityId: id, before: null, after: requested as unknown as Record<string, unknown>, additionalData: { event, approvalId: wf.approvalRecord.id } });
    }
  }
  ctx.emit(event, { roleId: id, approvalId: wf.approvalRecord.id, approvalStatus: wf.approvalRecord.approvalStatus });
  return { role: s.roles[id], approval: approvalSummary(wf.approvalRecord), deploymentJobId };
}

function idFrom(ctx: Ctx): string {
  const body = (ctx.request.body ?? {}) as { id?: unknown };
  const id = body.id ?? (ctx.request.query ?? {}).id;
  if (typeof id !== 'string' || id.length === 0) {
    throw roleError('ROLE_INVALID_INPUT', 'id is required', { errors: [{ field: 'id', reason: 'is required' }] });
  }
  return id;
}

@ActorClass({
  id: 'RoleManager',
  description: 'Roles of program management users and their deployment to the role check (spec 2.8, 3.3, 5)',
  // roles are the programme's: company users may read them, never change them
  tenancy: SHARED_DATA,
  // before RoleManager's instance exists (a fresh project), the built-in super role holds: its first call is not refused
  roleProvider: { instanceId: ROLE_MANAGER_INSTANCE, getRoles: 'getRolesForAuthentication', regenerate: DEPLOY, absentRoles: publishedRoles(rolesForReading({})) },
  stream: {
    collections: {
      roles: { indexes: [{ keys: { status: 1, nameLower: 1 } }, { keys: { nameLower: 1 } }] },
    },
    toDocuments: (state) => {
      const roles = (state.private.roles ?? {}) as Record<string, StoredRole>;
      return Object.values(roles).map((r) => ({ collection: 'roles', id: r.id, doc: roleDocument(r) }));
    },
  },
})
export class RoleManager {
  private readonly cooldownMs: number;

  constructor(env: NodeJS.ProcessEnv = {}) {
    this.cooldownMs = cooldownSecondsFrom(env) * 1000;
  }

  /** Creates the singleton with the built-in super role and publishes the first snapshot (seeds run it). */
  @Init({ access: ['program_management_user', 'class'], instanceId: () => ROLE_MANAGER_INSTANCE })
  async init(ctx: Ctx) {
    const s = writable(ctx);
    const deploymentJobId = await enqueueDeployment(ctx, 'init');
    return { roles: Object.keys(s.roles).length, deploymentJobId };
  }

  /**
   * body {name, description?, permissions?, level?: 1 | 10 (default 10)}: a role, `inactive` until its
   * role_create approval. Only permissions the caller holds; level 1 only by level-1 users and only
   * through an approval with approvers (README "No privilege beyond your own").
   */
  @Write({ access: ['program_management_user'], upsert: true, timeoutSeconds: 30 })
  async createRole(ctx: Ctx) {
    const body = ctx.request.body as { name: string; description?: string; permissions?: PermissionMap; level?: RoleLevel };
    const s = writable(ctx);
    const name = body.name.trim();
    checkName(Object.values(s.roles), name);
    const permissions = normalizePermissions(body.permissions);
    checkPermissions(ctx, permissions);
    const actor = actorFromIdentity(ctx.identity);
    const at = now();
    const role: RoleEntity = {
      id: randomUUID(),
      name,
      ...(body.description !== undefined ? { description: body.description } : {}),
      level: body.level ?? 10,
      createdBy: { id: actor.id, type: actor.type, ...(actor.name ? { name: actor.name } : {}) },
      permissions,
      status: 'inactive',
      createdAt: at,
      updatedAt: at,
    };
    const change: RoleChange = { kind: 'create', role };
    await refuseEscalation(ctx, change);
    await requireLevelOneApproval(ctx, change, 'role_create', null, role);
    const wf = await runWorkflow(ctx, { event: 'role_create', entityId: role.id, oldEntity: null, newEntity: role, approveCallback: 'approve', rejectCallback: 'approve' });
    levelOneRefusal(ctx, change, wf.rule.approvers, wf.isApproved);
    ctx.response.status = 201;
    return settle(ctx, s, 'role_create', wf, role, null);
  }

  /** body {id, name?, description? (null removes it), permissions?}: through role_update. */
  @Write({ access: ['program_management_user'], upsert: true, timeoutSeconds: 30 })
  async updateRole(ctx: Ctx) {
    const body = ctx.request.body as { id: string } & RoleChanges;
    const s = writable(ctx);
    const stored = findRole(Object.values(s.roles), body.id);
    refuse(stored, { kind: 'update' });
    const old = entityOf(stored);
    const requested = applyChanges(old, body, now());
    if (body.name !== undefined) checkName(Object.values(s.roles), requested.name, stored.id);
    if (body.permissions !== undefined) checkPermissions(ctx, requested.permissions);
    const change: RoleChange = { kind: 'update', old, next: requested };
    await refuseEscalation(ctx, change);
    if (sameContent(old, requested)) return { role: stored, approval: null, deploymentJobId: null };
    await requireLevelOneApproval(ctx, change, 'role_update', old, requested);
    const wf = await runWorkflow(ctx, { event: 'role_update', entityId: stored.id, oldEntity: old, newEntity: requested, approveCallback: 'approve', rejectCallback: 'approve' });
    levelOneRefusal(ctx, change, wf.rule.approvers, wf.isApproved);
    return settle(ctx, s, 'role_update', wf, requested, old);
  }

  /** body {id, status: active|inactive}: through role_status_update. */
  @Write({ access: ['program_management_user'], upsert: true, timeoutSeconds: 30 })
  async updateStatus(ctx: Ctx) {
    const body = ctx.request.body as { id: string; status: RoleStatus };
    const s = writable(ctx);
    const stored = findRole(Object.values(s.roles), body.id);
    refuse(stored, { kind: 'status', status: body.status });
    const old = entityOf(stored);
    const requested: RoleEntity = { ...old, status: body.status, updatedAt: now() };
    const change: RoleChange = { kind: 'status', old, status: body.status };
    await refuseEscalation(ctx, change);
    await requireLevelOneApproval(ctx, change, 'role_status_update', old, requested);
    const wf = await runWorkflow(ctx, { event: 'role_status_update', entityId: stored.id, oldEntity: old, newEntity: requested, approveCallback: 'approve', rejectCallback: 'approve' });
    levelOneRefusal(ctx, change, wf.rule.approvers, wf.isApproved);
    return settle(ctx, s, 'role_status_update', wf, requested, old);
  }

  /** body or query {id}. */
  @Read({ access: ['program_management_user', 'class'] })
  getRole(ctx: Ctx) {
    return { role: findRole(rolesForReading(ctx.state.private), idFrom(ctx)) };
  }

  /** Listing from the streamed `roles` collection: status, search (name, description), page, limit (1-100, default 20); by name. */
  @Read({ access: ['program_management_user', 'class'] })
  async listRoles(ctx: Ctx) {
    const raw = listingInput(ctx);
    const parsed = parseListQuery(raw);
    if (!parsed.ok) {
      throw roleError('ROLE_INVALID_QUERY', `Invalid listing: ${parsed.errors.map((e) => `${e.field} ${e.reason}`).join('; ')}`, { errors: parsed.errors });
    }
    const q = parsed.query;
    const found = await ctx.documents.find<Record<string, unknown>>('roles', buildListFilter(q), {
      sort: { nameLower: 1, _id: 1 },
      skip: (q.page - 1) * q.limit,
      limit: q.limit,
    });
    const roles = found.items.map((doc) => Object.fromEntries(Object.entries(doc).filter(([k]) => !INTERNAL_FIELDS.includes(k))));
    return { roles, totalCount: found.total, page: q.page, limit: q.limit, totalPages: Math.ceil(found.total / q.limit) };
  }

  /** The permission catalogue: class key → method names a program management user may call. */
  @Static({ access: ['program_management_user', 'class'] })
  getPermissions(ctx: Ctx) {
    return { permissions: catalogueOf(ctx) };
  }

  /** body {names?}: the active roles whose id or name is listed (all active roles without names). The role check's fallback. */
  @Read({ access: ['program_management_user', 'class'] })
  getRolesForAuthentication(ctx: Ctx) {
    const { names } = (ctx.request.body ?? {}) as { names?: string[] };
    return { roles: publishedRoles(activeRolesMatching(rolesForReading(ctx.state.private), names)) };
  }

  /** The approval callback of role_create, role_update and role_status_update (approve and reject). */
  @QueuedWrite({ access: ['class:ApprovalManager'], timeoutSeconds: 60 })
  async approve(ctx: Ctx) {
    const body = ctx.request.body as ApprovalCallbackBody;
    const s = writable(ctx);
    const stored = findRole(Object.values(s.roles), body.entityId);
    if (stored.pendingApprovalId !== body.approvalId) {
      throw roleError('ROLE_APPROVAL_MISMATCH', `Approval ${body.approvalId} is not the one role '${stored.id}' waits for`, {
        pendingApprovalId: stored.pendingApprovalId,
      });
    }
    const before = entityOf(stored);
    const additionalData = { event: body.event, approvalId: body.approvalId, action: body.action, reviewedBy: body.reviewedBy };
    if (body.action !== 'approve') {
      s.roles[stored.id] = { ...stored, pendingApprovalId: null };
      ctx.emit(String(body.event), { roleId: stored.id, approvalId: body.approvalId, approvalStatus: 'rejected' });
      return { role: s.roles[stored.id], applied: false, deploymentJobId: null };
    }
    let after: RoleEntity;
    try {
      after = applyApprovalCallback(before, body);
    } catch (err) {
      if (err instanceof PatchConflictError) throw roleError('ROLE_APPROVAL_CONFLICT', err.message, { problems: err.problems });
      throw err;
    }
    checkName(Object.values(s.roles), after.name, stored.id);
    s.roles[stored.id] = { ...after, pendingApprovalId: null };
    await logChange(ctx, { entityType: 'role', entityId: stored.id, before: before as unknown as Record<string, unknown>, after: after as unknown as Record<string, unknown>, additionalData });
    const deploymentJobId = await enqueueDeployment(ctx, String(body.event));
    ctx.emit(String(body.event), { roleId: stored.id, approvalId: body.approvalId, approvalStatus: 'approved' });
    return { role: s.roles[stored.id], applied: true, deploymentJobId };
  }

  /**
   * Publishes the snapshot of the active roles when it differs from the one
   * the role check reads (see deployment.ts planDeployment). Answers
   * {isUpdated, deploymentScheduled?, nextDeploymentAvailable?, hash}.
   * body {trigger?}: 'scheduled' marks the run scheduled at the end of a cool-down.
   */
  @QueuedWrite({ access: ['program_management_user', 'class'], upsert: true, timeoutSeconds: 60 })
  async saveRolesToLayerAndTriggerDeployment(ctx: Ctx): Promise<DeploymentAnswer> {
    const { trigger } = (ctx.request.body ?? {}) as { trigger?: string };
    const s = writable(ctx);
    const dep = s.deployment;
    if (trigger === 'scheduled') dep.scheduledFor = null;
    const roles = publishedRoles(Object.values(s.roles));
    const hash = hashRoles(roles);
    const current = await ctx.ports.roles.current();
    const at = Date.now();
    const plan = planDeployment({
      now: at,
      hash,
      current: current && typeof current === 'object' && Array.isArray(current.roles) ? current : null,
      publishedVersion: dep.version,
      lastDeployedAt: dep.lastDeployedAt ? Date.parse(dep.lastDeployedAt) : null,
      scheduledFor: dep.scheduledFor ? Date.parse(dep.scheduledFor) : null,
      cooldownMs: this.cooldownMs,
    });
    if (plan.kind === 'unchanged') {
      return { isUpdated: false, hash };
    }
    if (plan.kind === 'wait') {
      const nextDeploymentAvailable = new Date(plan.nextAvailable).toISOString();
      if (plan.schedule) {
        ctx.schedule({ method: DEPLOY, delaySeconds: Math.max(0, (plan.nextAvailable - at) / 1000), body: { trigger: 'scheduled' } });
        dep.scheduledFor = nextDeploymentAvailable;
      }
      return { isUpdated: false, deploymentScheduled: true, nextDeploymentAvailable, hash };
    }
    const publishedAt = new Date(at).toISOString();
    try {
      await ctx.ports.roles.publish({ version: plan.version, hash, publishedAt, roles });
    } catch (err) {
      throw roleError('ROLE_DEPLOYMENT_FAILED', `The role snapshot could not be published: ${(err as Error).message}`);
    }
    s.deployment = { version: plan.version, hash, lastDeployedAt: publishedAt, scheduledFor: null };
    ctx.log.info({ version: plan.version, hash, roles: roles.length, restore: plan.restore }, 'role snapshot published');
    return { isUpdated: true, hash };
  }

  /**
   * Replaces the roles (body {roles: Role[]}) after validation: unique ids and
   * names, permissions within the catalogue. The built-in super role is kept;
   * the deployment record (cool-down clock) is kept. Logged, and a deployment
   * is queued. Not a workflow event: an operator's restore tool, for the
   * system identity and developers only (403 9016 for everyone else, level 1 too).
   */
  @Write({ access: ['program_management_user'], upsert: true, timeoutSeconds: 30 })
  async setState(ctx: Ctx) {
    assertDeveloperOrSystem(ctx, 'RoleManager.setState', (message, details) => roleError('ROLE_DEVELOPER_ONLY', message, details));
    const body = ctx.request.body as { roles: StateInputRole[] };
    const s = writable(ctx);
    const at = now();
    const result = stateFromInput(body.roles, catalogueOf(ctx), s.roles[SUPER_ROLE_ID] ?? superRole(at), at);
    if (!result.ok) {
      const summary = result.errors.map((e) => `${e.field} ${e.reason}`).join('; ');
      throw result.status === 'conflict'
        ? roleError('ROLE_NAME_TAKEN', `Role names must be unique: ${summary}`, { errors: result.errors })
        : roleError('ROLE_INVALID_STATE', `Invalid role state: ${summary}`, { errors: result.errors });
    }
    const before = Object.fromEntries(Object.values(s.roles).map((r) => [r.id, entityOf(r)]));
    const after = Object.fromEntries(Object.values(result.roles).map((r) => [r.id, entityOf(r)]));
    s.roles = result.roles;
    await logChange(ctx, { entityType: 'roles', entityId: ROLE_MANAGER_INSTANCE, before, after, additionalData: { event: 'setState' } });
    const deploymentJobId = await enqueueDeployment(ctx, 'setState');
    return { roles: Object.keys(s.roles).sort(), deploymentJobId };
  }
}
