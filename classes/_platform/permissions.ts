/**
 * What a program management user may grant, from the roles it holds: nobody
 * grants what they do not hold. RoleManager checks it for role edits and
 * ProgramManagementUser for role assignments, so the rule lives here once.
 * Unit-tested in test/RoleManager/escalation-rules.test.ts.
 */

/** class id -> the method names a permission names */
export type PermissionMap = Record<string, string[]>;

export interface CatalogueEntry {
  name: string;
  kind: string;
  access: readonly string[];
}

/**
 * The permission catalogue (getPermissions): class key → the method names a
 * program management user may call (access includes program_management_user),
 * sorted; classes without such methods are left out.
 */
export function permissionCatalogue(raw: Record<string, readonly CatalogueEntry[]>): PermissionMap {
  const out: PermissionMap = {};
  for (const classId of Object.keys(raw).sort()) {
    const methods = raw[classId].filter((m) => m.access.includes('program_management_user')).map((m) => m.name);
    if (methods.length) out[classId] = [...new Set(methods)].sort();
  }
  return out;
}

/** A role as the role check knows it (the runtime's RoleDefinition: ctx.roles()). */
export interface HeldRole {
  id?: string;
  name?: string;
  level: number;
  permissions?: Record<string, readonly string[]>;
  status?: string;
}

/**
 * What an actor may grant: everything (the system identity, developers, a
 * holder of an active level-1 role), or the union of its active roles'
 * permissions.
 */
export type Holding = { all: true } | { all: false; permissions: PermissionMap };

export function holdingOf(roles: readonly HeldRole[], holdsEverything = false): Holding {
  const active = roles.filter((r) => r.status !== 'inactive');
  if (holdsEverything || active.some((r) => r.level === 1)) return { all: true };
  const union = Object.create(null) as Record<string, Set<string>>;
  for (const r of active) {
    for (const [classId, methods] of Object.entries(r.permissions ?? {})) {
      if (!Array.isArray(methods)) continue;
      const set = (union[classId] ??= new Set<string>());
      for (const m of methods as readonly string[]) set.add(m);
    }
  }
  const permissions: PermissionMap = {};
  for (const classId of Object.keys(union).sort()) permissions[classId] = [...union[classId]].sort();
  return { all: false, permissions };
}

/** `Class.method` entries of `requested` that `holding` does not grant, sorted. */
export function permissionsNotHeld(requested: PermissionMap, holding: Holding): string[] {
  if (holding.all) return [];
  const out: string[] = [];
  for (const classId of Object.keys(requested)) {
    const held = Object.prototype.hasOwnProperty.call(holding.permissions, classId) ? holding.permissions[classId] : [];
    for (const m of requested[classId]) if (!held.includes(m)) out.push(`${classId}.${m}`);
  }
  return [...new Set(out)].sort();
}
