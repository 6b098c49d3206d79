/**
 * May a call go ahead before anything runs: its class and method exist, its
 * caller is admitted (access rules, roles, tenancy), its body passes the
 * method's schema; and the same checks, made up front, for what a handler
 * asks to happen later (a committed effect, a queued write), so the change
 * can still be refused.
 */
import { runtimeError, unknownInstanceError } from '../errors';
import type { Authorizer } from '../auth/types';
import { assertTenantMayCall } from '../auth/tenancy';
import type { ClassRegistry, RegisteredClass, RegisteredMethod } from './registry';
import type { StateStore } from './state-store';
import type { InstanceResolver } from './instance-resolver';
import { toFieldErrors } from './validation';
import { INSTANCE_ID } from './call-request';
import type { Identity } from '../types/identity';

export interface AdmissionDeps {
  projectId: string;
  registry: ClassRegistry;
  store: StateStore;
  authorizer: Authorizer;
  resolver: InstanceResolver;
}

export class Admission {
  constructor(private readonly deps: AdmissionDeps) {}

  /** May `identity` call `method` of `cls`: access rules, roles, tenancy. Undefined when decided without a role look-up. */
  admit(identity: Identity, cls: RegisteredClass, method: RegisteredMethod): Promise<void> | void {
    const roles = this.deps.authorizer.authorize(identity, cls, method);
    if (identity.tenant === undefined) return roles;
    if (!roles) return assertTenantMayCall(identity, cls.id, method.name, method.kind, cls.options.tenancy);
    return roles.then(() => assertTenantMayCall(identity, cls.id, method.name, method.kind, cls.options.tenancy));
  }

  /** The body against the method's JSON Schema: 400 VALIDATION with field-level details, or the method's own error. */
  validate(cls: RegisteredClass, method: RegisteredMethod, body: unknown): void {
    if (!method.validate) return;
    if (method.validate(body === undefined ? {} : body)) return;
    const errors = toFieldErrors(method.validate.errors);
    if (method.options.onValidationError) throw method.options.onValidationError(errors);
    const summary = errors.map((e) => `${e.field} ${e.reason}`).join('; ');
    const err = runtimeError('VALIDATION', `Invalid input: ${summary}`, { errors });
    err.classId = cls.id;
    throw err;
  }

  /** May `identity` call `classId.method`? Throws the access error a call would get (401, 403). */
  async authorize(identity: Identity, classId: string, method: string): Promise<void> {
    const { cls, m } = this.target(classId, method);
    await this.deps.authorizer.authorize(identity, cls, m);
  }

  /**
   * Checks a committed effect up front: the target method exists, writes
   * (INIT, WRITE or INTERNAL: its commit records the effect's id), admits the
   * calling class, and names a plain instance id (not a lookup: the target
   * must not change between commit and apply).
   */
  async checkEffect(
    identity: Identity,
    classId: string,
    method: string,
    instanceId: string,
    body: unknown,
  ): Promise<void> {
    const { cls, m } = this.target(classId, method);
    if (m.kind !== 'INIT' && m.kind !== 'WRITE' && m.kind !== 'INTERNAL') {
      throw runtimeError(
        'METHOD_NOT_ALLOWED',
        `${classId}.${method} is ${m.kind}: an effect is an INIT, WRITE or INTERNAL (use ctx.enqueue for a QUEUED_WRITE)`,
      );
    }
    if (typeof instanceId !== 'string' || !INSTANCE_ID.test(instanceId))
      throw runtimeError('BAD_INSTANCE_ID', `An effect names its instance by id; got '${instanceId}'`);
    if (identity.classId === classId && identity.instanceId === instanceId) {
      throw runtimeError(
        'REENTRANT_WRITE',
        `${classId}.${method} would write the instance '${instanceId}' whose change it belongs to; change the state directly instead`,
      );
    }
    await this.admit(identity, cls, m);
    // the body is judged now, while the change can still be refused, not when the effect is applied
    this.validate(cls, m, body);
  }

  /** Checks a class's enqueue up front: method kind, access, instance. Returns the resolved instance id. */
  async checkEnqueue(identity: Identity, classId: string, method: string, instanceId: string): Promise<string> {
    const { cls, m } = this.target(classId, method);
    if (m.kind !== 'QUEUED_WRITE')
      throw runtimeError('METHOD_NOT_ALLOWED', `${classId}.${method} is ${m.kind}, not QUEUED_WRITE`);
    await this.admit(identity, cls, m);
    const { id } = await this.deps.resolver.resolve(cls, m, { classId, method, instanceId, identity, origin: 'class' });
    if (!m.options.upsert && !(await this.deps.store.exists(classId, id!))) {
      throw unknownInstanceError(this.deps.projectId, classId, instanceId);
    }
    return id!;
  }

  /** The class and method a call, effect or enqueue names (404 UNKNOWN_CLASS, UNKNOWN_METHOD otherwise). */
  private target(classId: string, method: string): { cls: RegisteredClass; m: RegisteredMethod } {
    const cls = this.deps.registry.get(classId);
    if (!cls) throw runtimeError('UNKNOWN_CLASS', `Unknown class '${classId}'`);
    const m = cls.methodsByName.get(method);
    if (!m) throw runtimeError('UNKNOWN_METHOD', `Class '${classId}' has no method '${method}'`);
    return { cls, m };
  }
}
