/**
 * RoleManager (spec 2.8 Role, 3.3, 4.5, 5, 6): the roles of program
 * management users and their deployment to the runtime's role check.
 *
 * Singleton (instance `default`); roles live in ctx.state.private.roles by id,
 * with the built-in level-1 role `super` always present. Every create, update
 * and status change is an approval-gated change (events role_create,
 * role_update, role_status_update; rules in workflow-configs/RoleManager.json),
 * is written to the audit log, and is streamed to the `roles` collection,
 * which listRoles reads.
 *
 * Deployment: saveRolesToLayerAndTriggerDeployment publishes a versioned
 * snapshot of the active roles through ctx.ports.roles; the runtime's role
 * check reads it (cached 5 s per process). Every applied change queues a
 * deployment attempt; redeployments keep a cool-down (spec 8: 3 minutes), an
 * attempt inside it schedules one deployment for the end of the cool-down.
 * While the snapshot is unreadable the runtime asks getRolesForAuthentication
 * and has the snapshot regenerated (roleProvider below).
 *
 * This file declares the methods (access, kind, time-outs) and delegates:
 * each body lives in use-cases/<use case>.ts, the rules in domain.ts and
 * deployment.ts (pure). README.md has the methods, choices and error codes.
 */
import { ActorClass, Init, QueuedWrite, Read, Static, Write, type ReadCtx, type StaticCtx } from '../../runtime';
import type {
  CreateRoleInput,
  GetPermissionsInput,
  GetRoleInput,
  GetRolesForAuthenticationInput,
  ListRolesInput,
  SaveRolesToLayerAndTriggerDeploymentInput,
  SetStateInput,
  UpdateRoleInput,
  UpdateStatusInput,
} from '../../schemas/RoleManager/inputs';
import { SHARED_DATA } from '../_platform/scope';
import type { ApprovalCallbackBody } from '../_platform/workflow';
import { cooldownSecondsFrom, publishedRoles } from './deployment';
import { LIST_ROLES, roleDocument, rolesForReading } from './rules';
import { invalidInput, invalidListing } from './errors';
import type { DeploymentAnswer, RoleManagerClassState } from './types';
import { DEPLOY, ROLE_MANAGER_INSTANCE, type RoleCtx } from './use-cases/common';
import * as create from './use-cases/create';
import * as update from './use-cases/update';
import * as status from './use-cases/status';
import * as reading from './use-cases/read';
import * as listing from './use-cases/listing';
import * as approval from './use-cases/approval';
import * as deployment from './use-cases/deployment';
import * as restore from './use-cases/restore';

const PM = 'program_management_user';

@ActorClass<RoleManagerClassState>({
  id: 'RoleManager',
  description: 'Roles of program management users and their deployment to the role check (spec 2.8, 3.3, 5)',
  // roles are the programme's: company users may read them, never change them
  tenancy: SHARED_DATA,
  // before RoleManager's instance exists (a fresh project), the built-in super role holds: its first call is not refused
  roleProvider: {
    instanceId: ROLE_MANAGER_INSTANCE,
    getRoles: 'getRolesForAuthentication',
    regenerate: DEPLOY,
    absentRoles: publishedRoles(rolesForReading({})),
  },
  stream: {
    collections: {
      roles: { listings: [LIST_ROLES] },
    },
    toDocuments: (state) =>
      Object.values(state.private.roles ?? {}).map((r) => ({ collection: 'roles', id: r.id, doc: roleDocument(r) })),
  },
})
export class RoleManager {
  private readonly cooldownMs: number;

  constructor(env: NodeJS.ProcessEnv = {}) {
    this.cooldownMs = cooldownSecondsFrom(env) * 1000;
  }

  /** Creates the singleton with the built-in super role and publishes the first snapshot (seeds run it). */
  @Init({ access: [PM, 'class'], instanceId: () => ROLE_MANAGER_INSTANCE })
  async init(ctx: RoleCtx) {
    return deployment.init(ctx);
  }

  /**
   * body {name, description?, permissions?, level?: 1 | 10 (default 10)}: a role, `inactive` until its
   * role_create approval. Only permissions the caller holds; level 1 only by level-1 users and only
   * through an approval with approvers (README "No privilege beyond your own").
   */
  @Write({ access: [PM], upsert: true, timeoutSeconds: 30 })
  async createRole(ctx: RoleCtx<CreateRoleInput>) {
    return create.createRole(ctx);
  }

  /** body {id, name?, description? (null removes it), permissions?}: through role_update. */
  @Write({ access: [PM], upsert: true, timeoutSeconds: 30 })
  async updateRole(ctx: RoleCtx<UpdateRoleInput>) {
    return update.updateRole(ctx);
  }

  /** body {id, status: active|inactive}: through role_status_update. */
  @Write({ access: [PM], upsert: true, timeoutSeconds: 30 })
  async updateStatus(ctx: RoleCtx<UpdateStatusInput>) {
    return status.updateStatus(ctx);
  }

  /** body or query {id}. */
  @Read({ access: [PM, 'class'], onValidationError: invalidInput })
  getRole(ctx: ReadCtx<RoleManagerClassState, GetRoleInput>) {
    return reading.getRole(ctx);
  }

  /** Listing from the streamed `roles` collection: status, search (name, description), page, limit (1-100, default 20); by name. */
  @Read({ access: [PM, 'class'], onValidationError: invalidListing })
  async listRoles(ctx: ReadCtx<RoleManagerClassState, ListRolesInput>) {
    return listing.listRoles(ctx);
  }

  /** The permission catalogue: class key → method names a program management user may call. */
  @Static({ access: [PM, 'class'] })
  getPermissions(ctx: StaticCtx<GetPermissionsInput>) {
    return reading.getPermissions(ctx);
  }

  /** body {names?}: the active roles whose id or name is listed (all active roles without names). The role check's fallback. */
  @Read({ access: [PM, 'class'] })
  getRolesForAuthentication(ctx: ReadCtx<RoleManagerClassState, GetRolesForAuthenticationInput>) {
    return reading.getRolesForAuthentication(ctx);
  }

  /** The approval callback of role_create, role_update and role_status_update (approve and reject). */
  @QueuedWrite({ access: ['class:ApprovalManager'], timeoutSeconds: 60 })
  async approve(ctx: RoleCtx<ApprovalCallbackBody>) {
    return approval.approve(ctx);
  }

  /**
   * Publishes the snapshot of the active roles when it differs from the one
   * the role check reads. Answers {isUpdated, deploymentScheduled?,
   * nextDeploymentAvailable?, hash}.
   */
  @QueuedWrite({ access: [PM, 'class'], upsert: true, timeoutSeconds: 60 })
  async saveRolesToLayerAndTriggerDeployment(
    ctx: RoleCtx<SaveRolesToLayerAndTriggerDeploymentInput>,
  ): Promise<DeploymentAnswer> {
    return deployment.saveRolesToLayerAndTriggerDeployment(ctx, this.cooldownMs);
  }

  /**
   * Replaces the roles (body {roles: Role[]}) after validation. An operator's
   * restore tool, for the system identity and developers only (403 9016 for
   * everyone else, level 1 too).
   */
  @Write({ access: [PM], upsert: true, timeoutSeconds: 30 })
  async setState(ctx: RoleCtx<SetStateInput>) {
    return restore.setState(ctx);
  }
}
