/**
 * Pure rules of the role deployment (spec 5, 8): the snapshot's content and
 * hash, and whether a deployment publishes now, waits for the cool-down, or
 * has nothing to do.
 */
import { createHash } from 'node:crypto';
import type { DeepReadonly } from '../../runtime';
import type { PublishedRole, StoredRole } from './types';

/** Spec 8: role deployment cool-down. */
export const DEFAULT_COOLDOWN_SECONDS = 180;

/** JSON with object keys sorted at every level (arrays keep their order); undefined members left out. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The snapshot's roles: the active ones, sorted by id, with what the role check reads. */
export function publishedRoles(roles: Iterable<DeepReadonly<StoredRole>>): PublishedRole[] {
  const out: PublishedRole[] = [];
  for (const r of roles) {
    if (r.status !== 'active') continue;
    const permissions: Record<string, string[]> = {};
    for (const classId of Object.keys(r.permissions).sort()) permissions[classId] = [...r.permissions[classId]].sort();
    out.push({ id: r.id, name: r.name, level: r.level, permissions, status: r.status });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** sha256 (hex) of the canonical JSON of the published roles. */
export function hashRoles(roles: PublishedRole[]): string {
  return createHash('sha256').update(canonicalJson(roles)).digest('hex');
}

export interface PlanInput {
  now: number;
  /** hash of the roles as they are now */
  hash: string;
  /** the snapshot the role check reads; null when it is missing or unreadable */
  current: { hash?: string; version?: number } | null;
  /** version this class published last */
  publishedVersion: number;
  lastDeployedAt: number | null;
  /** when an already scheduled deployment runs; null when none */
  scheduledFor: number | null;
  cooldownMs: number;
}

export type DeploymentPlan =
  | { kind: 'unchanged' }
  | { kind: 'publish'; version: number; restore: boolean }
  | { kind: 'wait'; nextAvailable: number; schedule: boolean };

/**
 * - the snapshot already holds these roles (same hash) → unchanged;
 * - the snapshot is missing → publish at once (a restoration: the cool-down
 *   limits redeployments of changed roles; while the snapshot is missing every
 *   role check asks getRolesForAuthentication);
 * - the last deployment is less than the cool-down ago → wait until it ends,
 *   scheduling one deployment then unless one is already scheduled for it;
 * - otherwise publish, version = the highest version seen + 1.
 */
export function planDeployment(p: PlanInput): DeploymentPlan {
  if (p.current && p.current.hash === p.hash) return { kind: 'unchanged' };
  const version =
    Math.max(p.publishedVersion, Number.isInteger(p.current?.version) ? (p.current!.version as number) : 0) + 1;
  if (!p.current) return { kind: 'publish', version, restore: true };
  if (p.lastDeployedAt !== null && p.now - p.lastDeployedAt < p.cooldownMs) {
    const nextAvailable = p.lastDeployedAt + p.cooldownMs;
    const schedule = !(p.scheduledFor !== null && p.scheduledFor >= nextAvailable);
    return { kind: 'wait', nextAvailable, schedule };
  }
  return { kind: 'publish', version, restore: false };
}

/** Reads ROLE_DEPLOYMENT_COOLDOWN_SECONDS (a number ≥ 0; default 180). */
export function cooldownSecondsFrom(env: NodeJS.ProcessEnv): number {
  const raw = env.ROLE_DEPLOYMENT_COOLDOWN_SECONDS;
  if (raw === undefined || raw === '') return DEFAULT_COOLDOWN_SECONDS;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) {
    throw new Error(`ROLE_DEPLOYMENT_COOLDOWN_SECONDS must be a number of seconds >= 0, not '${raw}'`);
  }
  return n;
}
