import type { RedisConnection } from '../redis/connection';
import type { RegisteredClass, RegisteredMethod } from '../actor/registry';
import type { AccessRule, Identity } from '../types/identity';
import type { RoleDefinition, RolePublisher, RoleSnapshot } from '../types/roles';
import { runtimeError } from '../errors';
import type { Authorizer, RoleSource } from './types';

export type { RoleDefinition } from '../types/roles';
export type { RoleSource } from './types';

/** Pure rule: does the access list admit this identity's type? */
export function admits(access: readonly AccessRule[], identity: Identity): boolean {
  if (identity.type === 'system') return true;
  if (access.includes('public')) return true;
  if (identity.type === 'class') {
    return access.includes('class') || access.includes(`class:${identity.classId}` as AccessRule);
  }
  if (identity.type === 'anonymous') return false;
  return access.includes(identity.type);
}

/** Pure rule: do these roles grant `classId.method`? */
export function rolesGrant(roles: RoleDefinition[], classId: string, method: string): boolean {
  return roles.some(
    (r) => r.status !== 'inactive' && (r.level === 1 || (r.permissions?.[classId] ?? []).includes(method)),
  );
}

export class AccessControl implements Authorizer {
  constructor(private roleSource: RoleSource) {}

  setRoleSource(source: RoleSource): void {
    this.roleSource = source;
  }

  async rolesOf(identity: Identity): Promise<RoleDefinition[]> {
    if (identity.type !== 'program_management_user') return [];
    return this.roleSource.getRoles(identity.roles ?? []);
  }

  authorize(identity: Identity, cls: RegisteredClass, method: RegisteredMethod): Promise<void> | void {
    const access = method.options.access;
    if (!admits(access, identity)) {
      if (identity.type === 'anonymous') {
        throw runtimeError('UNAUTHENTICATED', `${cls.id}.${method.name} needs authentication`);
      }
      throw runtimeError('FORBIDDEN', `${identity.type} may not call ${cls.id}.${method.name}`);
    }
    // a token issued for some methods only (a member_otp token: the OTP checks) reaches nothing else
    const only = identity.methods;
    if (only !== undefined && !only.includes(`${cls.id}.${method.name}`)) {
      throw runtimeError(
        'TOKEN_NOT_FOR_METHOD',
        `This token is only good for ${only.join(', ')}, not ${cls.id}.${method.name}`,
      );
    }
    if (identity.type !== 'program_management_user' || method.options.skipRoleCheck || access.includes('public'))
      return;
    return this.checkRoles(identity, cls, method);
  }

  private async checkRoles(identity: Identity, cls: RegisteredClass, method: RegisteredMethod): Promise<void> {
    const roles = await this.roleSource.getRoles(identity.roles ?? []);
    if (!rolesGrant(roles, cls.id, method.name)) {
      throw runtimeError('FORBIDDEN', `No role of this user grants ${cls.id}.${method.name}`);
    }
  }
}

/**
 * Default role source: a JSON snapshot `{version, roles: RoleDefinition[]}`
 * in Redis, cached in memory for a few seconds. When the snapshot is missing
 * or unreadable, the fallback (if given) answers and `onMiss` is told, so the
 * owner of the roles can regenerate it.
 */
export class SnapshotRoleSource implements RoleSource {
  private cached?: { roles: RoleDefinition[]; until: number };
  /** role look-ups answered from the cached snapshot, and those that read it from Redis (read by the runtime's metrics) */
  hits = 0;
  misses = 0;

  constructor(
    private readonly redis: RedisConnection,
    private readonly key: string,
    private readonly opts: {
      cacheMs?: number;
      fallback?: (names: string[]) => Promise<RoleDefinition[]>;
      onMiss?: () => void;
    } = {},
  ) {}

  invalidate(): void {
    this.cached = undefined;
  }

  setFallback(fallback: (names: string[]) => Promise<RoleDefinition[]>, onMiss: () => void): void {
    this.opts.fallback = fallback;
    this.opts.onMiss = onMiss;
  }

  /** the publisher side: classes owning roles write the snapshot through this */
  publisher(): RolePublisher {
    return {
      publish: async (snapshot) => {
        await this.redis.set(this.key, JSON.stringify(snapshot));
        this.invalidate();
      },
      current: async () => {
        const raw = await this.redis.get(this.key);
        try {
          return raw ? (JSON.parse(raw) as RoleSnapshot) : null;
        } catch {
          return null;
        }
      },
    };
  }

  private async all(): Promise<RoleDefinition[] | undefined> {
    if (this.cached && this.cached.until > Date.now()) {
      this.hits++;
      return this.cached.roles;
    }
    this.misses++;
    try {
      const raw = await this.redis.get(this.key);
      if (!raw) return undefined;
      const parsed = JSON.parse(raw) as { roles?: RoleDefinition[] };
      if (!Array.isArray(parsed.roles)) return undefined;
      this.cached = { roles: parsed.roles, until: Date.now() + (this.opts.cacheMs ?? 5000) };
      return parsed.roles;
    } catch {
      return undefined;
    }
  }

  async getRoles(names: string[]): Promise<RoleDefinition[]> {
    if (names.length === 0) return [];
    const roles = await this.all();
    if (!roles) {
      this.opts.onMiss?.();
      return this.opts.fallback ? this.opts.fallback(names) : [];
    }
    const wanted = new Set(names);
    return roles.filter((r) => r.status !== 'inactive' && (wanted.has(r.id) || wanted.has(r.name)));
  }
}
