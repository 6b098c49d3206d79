import type { Identity } from '../../runtime';

/** Spec 2.8 actor types. */
export type ActorType = 'program_management_user' | 'developer' | 'system' | 'member';

export interface Actor {
  id: string;
  type: ActorType;
  name?: string;
  roles?: string[];
}

/**
 * The spec actor behind a runtime identity:
 *  - program_management_user → itself (or `developer` when the token says so)
 *  - enduser / member_otp → member
 *  - integration_user → system, named after the API key
 *  - class → system, named after the calling class
 *  - system (CLI, seeds) → system; a system call naming its run (the import's
 *    `{userId: 'import', claims: {name: 'import members m.csv'}}`) → that id,
 *    named `system: <its name>` (the prefix is what keeps it privileged)
 *  - anonymous (public operations) → a system actor named `anonymous`, never privileged
 */
export function actorFromIdentity(identity: Identity): Actor {
  return bounded(identityActor(identity));
}

/** How much of an actor the records that carry one keep (the LogManager and ApprovalManager schemas' limits). */
export const ACTOR_LIMITS = { name: 200, roles: 100, role: 200 } as const;

/**
 * Pure: the actor within ACTOR_LIMITS: a longer display name is cut, roles
 * beyond the first 100 and role names over 200 characters are left out, so a
 * token with a long name or many roles does not make every audited change a
 * 400. The id is kept whole: cutting it would credit the change to someone
 * else (ids are the service's own, far shorter; a longer one is refused).
 */
export function bounded(actor: Actor): Actor {
  const out: Actor = { id: actor.id, type: actor.type };
  if (actor.name !== undefined) out.name = actor.name.slice(0, ACTOR_LIMITS.name);
  if (actor.roles !== undefined)
    out.roles = actor.roles.filter((r) => r.length <= ACTOR_LIMITS.role).slice(0, ACTOR_LIMITS.roles);
  return out;
}

/** the name of a system actor that names its run (an import): `system: import members m.csv` */
const SYSTEM_RUN_PREFIX = 'system: ';

function identityActor(identity: Identity): Actor {
  switch (identity.type) {
    case 'program_management_user':
      return {
        id: identity.userId ?? 'unknown',
        type: identity.claims?.developer === true ? 'developer' : 'program_management_user',
        ...(identity.claims?.name
          ? {
              name:
                typeof identity.claims.name === 'string' ? identity.claims.name : JSON.stringify(identity.claims.name),
            }
          : {}),
        roles: identity.roles ?? [],
      };
    case 'enduser':
    case 'member_otp':
      return { id: identity.userId ?? 'unknown', type: 'member' };
    case 'integration_user':
      return { id: identity.userId ?? 'integration', type: 'system', name: `integration:${identity.userId ?? 'key'}` };
    case 'class':
      return {
        id: identity.instanceId ?? identity.classId ?? 'class',
        type: 'system',
        name: `class:${identity.classId}`,
      };
    case 'system': {
      const name = identity.claims?.name;
      return {
        id: identity.userId || 'system',
        type: 'system',
        name: typeof name === 'string' && name ? `${SYSTEM_RUN_PREFIX}${name}` : 'system',
      };
    }
    default:
      // an unauthenticated caller (public sign-in operations): a system actor that is not the privileged `system`
      return { id: 'anonymous', type: 'system', name: 'anonymous' };
  }
}

const ACTOR_TYPES: readonly string[] = ['program_management_user', 'developer', 'system', 'member'];

/**
 * The actor of a change made by the current call: in an approval callback
 * (the caller is the class ApprovalManager and the body carries the review's
 * `reviewedBy`), the reviewer who approved the change, not the class that
 * delivered it; otherwise the caller (actorFromIdentity). A reviewer of an
 * unknown actor type counts as `system`.
 */
export function changeActor(identity: Identity, body: unknown): Actor {
  const reviewedBy =
    identity.type === 'class' && identity.classId === 'ApprovalManager'
      ? (body as { reviewedBy?: unknown } | null)?.reviewedBy
      : undefined;
  if (reviewedBy && typeof reviewedBy === 'object') {
    const r = reviewedBy as { id?: unknown; type?: unknown; name?: unknown; roles?: unknown };
    if (typeof r.id === 'string' && r.id !== '' && typeof r.type === 'string') {
      return bounded({
        id: r.id,
        type: (ACTOR_TYPES.includes(r.type) ? r.type : 'system') as ActorType,
        ...(typeof r.name === 'string' ? { name: r.name } : {}),
        ...(Array.isArray(r.roles) ? { roles: r.roles.filter((x): x is string => typeof x === 'string') } : {}),
      });
    }
  }
  return actorFromIdentity(identity);
}

/**
 * Developers and the system actor (CLI, seeds, an import run under its own
 * name) bypass approver checks and approvals. Only the names actorFromIdentity
 * gives the system identity count (`system`, `system: <run>`): the system
 * actors of API keys (`integration:…`), classes (`class:…`), anonymous
 * callers and the automatic approver (no name) do not, whatever else they hold.
 */
export function isPrivilegedActor(actor: Actor): boolean {
  if (actor.type === 'developer') return true;
  return actor.type === 'system' && (actor.name === 'system' || (actor.name?.startsWith(SYSTEM_RUN_PREFIX) ?? false));
}
