/** Role records (spec 2.8 Role) and the RoleManager singleton's state. */
import type { StateOf } from '../../runtime';

export type RoleStatus = 'active' | 'inactive';
export const ROLE_STATUSES: readonly RoleStatus[] = ['active', 'inactive'];

/** 1 = super (every operation), 10 = normal (explicit permissions). */
export type RoleLevel = 1 | 10;

export interface RoleCreator {
  id: string;
  type: string;
  name?: string;
}

/** class key → method names (sorted, no duplicates, no empty lists) */
export type { PermissionMap } from '../_platform/permissions';
import type { PermissionMap } from '../_platform/permissions';

/** The role as the workflow sees it (what approvals patch and the audit log records). */
export interface RoleEntity {
  id: string;
  name: string;
  description?: string;
  level: RoleLevel;
  createdBy: RoleCreator;
  permissions: PermissionMap;
  status: RoleStatus;
  createdAt: string;
  updatedAt: string;
}

/** A stored role: the entity plus the approval it waits for. */
export interface StoredRole extends RoleEntity {
  pendingApprovalId: string | null;
}

export interface DeploymentState {
  /** version of the last snapshot this class published (0: never) */
  version: number;
  /** hash of the last published snapshot */
  hash: string | null;
  /** when the last snapshot was published (ISO 8601); the cool-down runs from here */
  lastDeployedAt: string | null;
  /** when the scheduled deployment runs (ISO 8601); null when none is scheduled */
  scheduledFor: string | null;
}

/** ctx.state.private of instance `default`. */
export interface RoleManagerState {
  roles: Record<string, StoredRole>;
  deployment: DeploymentState;
}

/**
 * The RoleManager class's state (`@ActorClass<RoleManagerClassState>`):
 * private holds RoleManagerState, complete once a write ran ensureState (a
 * new or upserted instance starts empty).
 */
export type RoleManagerClassState = StateOf<Partial<RoleManagerState>>;

/** What the snapshot holds per role (the runtime's RoleDefinition). */
export interface PublishedRole {
  id: string;
  name: string;
  level: number;
  permissions: PermissionMap;
  status: RoleStatus;
}

/** Answer of saveRolesToLayerAndTriggerDeployment (spec 4.5). */
export interface DeploymentAnswer {
  isUpdated: boolean;
  deploymentScheduled?: boolean;
  nextDeploymentAvailable?: string;
  hash: string;
}
