/**
 * Identity sources: the stored user is the truth, the token is a session.
 *
 * A class declaring `identitySource: {tokenType, method}` holds the users that
 * sign in as that token type. For a bearer token of that type (a session
 * token; development tokens keep their own claims, see TokenService) the
 * resolver calls `<class>.<method>` as the system identity on the instance
 * named by the token's subject and takes the caller's roles, tenant, developer
 * flag and name from its answer (IdentitySourceAnswer), refusing with 401 an
 * unknown subject, an inactive one, or a token issued before its `validAfter`.
 * Answers are cached per subject in each process for IDENTITY_CACHE_SECONDS:
 * that is how long a deactivated user's token, or a token issued before a
 * password change, may keep working on a process that asked just before.
 */
import type { ClassRegistry } from '../actor/registry';
import type { CallResult } from '../types/calls';
import type { Identity, IdentitySourceAnswer, IdentityType } from '../types/identity';
import { ActorError, isUnknownInstance, RuntimeCodes, runtimeError } from '../errors';
import {
  DEV_CLAIM,
  identify,
  identifyNow,
  ISSUED_MS_CLAIM,
  TOKEN_IDENTITIES,
  type ApiKeyStore,
  type TokenService,
} from './auth';

export interface IdentitySourceRef {
  classId: string;
  method: string;
}

/**
 * The identity source of each token type, from the classes' options. Stops
 * the start when two classes claim one type, or a source names a method its
 * class lacks, or one that is not a READ or INTERNAL.
 */
export function identitySources(registry: ClassRegistry): Map<IdentityType, IdentitySourceRef> {
  const out = new Map<IdentityType, IdentitySourceRef>();
  for (const cls of registry.list()) {
    const source = cls.options.identitySource;
    if (!source) continue;
    const where = `${cls.id}: identitySource`;
    if (!TOKEN_IDENTITIES.includes(source.tokenType))
      throw new Error(`${where}: tokenType must be one of ${TOKEN_IDENTITIES.join(', ')}`);
    const method = cls.methodsByName.get(source.method);
    if (!method) throw new Error(`${where}: ${cls.id} has no method '${source.method}'`);
    if (method.kind !== 'READ' && method.kind !== 'INTERNAL')
      throw new Error(`${where}: ${cls.id}.${source.method} must be a READ or INTERNAL (it is ${method.kind})`);
    const other = out.get(source.tokenType);
    if (other) throw new Error(`${where}: '${source.tokenType}' already comes from ${other.classId}`);
    out.set(source.tokenType, { classId: cls.id, method: source.method });
  }
  return out;
}

/** Calls a source's method as the system identity on one instance (the dispatcher). */
export type SourceCall = (classId: string, method: string, instanceId: string) => Promise<CallResult>;

/** The entries a resolver keeps at most; the oldest go first. */
const CACHE_MAX = 10_000;

/** Checks a source's answer (its class's contract; a wrong one is a 500 naming the source, never an admission). */
export function parseSourceAnswer(body: unknown, where: string): IdentitySourceAnswer {
  const bad = (reason: string) =>
    new ActorError(500, RuntimeCodes.INTERNAL.code, `Identity source ${where} answered ${reason}`);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw bad('no object');
  const b = body as Record<string, unknown>;
  if (typeof b.active !== 'boolean') throw bad('no boolean `active`');
  if (!Array.isArray(b.roles) || !b.roles.every((r) => typeof r === 'string')) throw bad('no string array `roles`');
  const out: IdentitySourceAnswer = { active: b.active, roles: [...b.roles] };
  if (b.tenant !== undefined && b.tenant !== null) {
    if (typeof b.tenant !== 'string' || b.tenant.length === 0 || b.tenant.length > 200)
      throw bad('a `tenant` that is not a string of 1-200 characters');
    out.tenant = b.tenant;
  }
  if (b.developer !== undefined && b.developer !== null) {
    if (typeof b.developer !== 'boolean') throw bad('a `developer` that is not a boolean');
    out.developer = b.developer;
  }
  if (b.validAfter !== undefined && b.validAfter !== null) {
    if (typeof b.validAfter !== 'string' || Number.isNaN(Date.parse(b.validAfter)))
      throw bad('a `validAfter` that is not an ISO time');
    out.validAfter = b.validAfter;
  }
  if (b.name !== undefined && b.name !== null) {
    if (typeof b.name !== 'string') throw bad('a `name` that is not a string');
    out.name = b.name;
  }
  return out;
}

export interface IdentityResolverOptions {
  tokens: TokenService;
  apiKeys: ApiKeyStore;
  sources: Map<IdentityType, IdentitySourceRef>;
  call: SourceCall;
  /** IDENTITY_CACHE_SECONDS (0: every request asks the source) */
  cacheSeconds: number;
}

/** The caller's identity: API keys, development tokens, and session tokens completed by their identity source. */
export class IdentityResolver {
  private readonly cache = new Map<string, { answer: IdentitySourceAnswer; until: number }>();
  private readonly inflight = new Map<string, Promise<IdentitySourceAnswer>>();
  private readonly cacheMs: number;
  /** answers taken from the cache, and those its source was asked for (or a request in flight shared); read by the runtime's metrics */
  hits = 0;
  misses = 0;

  constructor(private readonly opts: IdentityResolverOptions) {
    this.cacheMs = opts.cacheSeconds * 1000;
  }

  /** The identity of a request's headers (x-api-key, Authorization: Bearer, or anonymous). */
  identify(headers: Record<string, string | string[] | undefined>): Promise<Identity> {
    return identify(headers, this.opts.apiKeys, this);
  }

  /** identify without a promise when nothing has to be read (see identifyNow); it may throw */
  identifyNow(headers: Record<string, string | string[] | undefined>): Identity | Promise<Identity> {
    return identifyNow(headers, this.opts.apiKeys, this);
  }

  hasSource(type: IdentityType): boolean {
    return this.opts.sources.has(type);
  }

  /** A bearer token's identity: the token's claims, completed (and checked) by its type's identity source. */
  async verify(token: string): Promise<Identity> {
    const identity = this.opts.tokens.verify(token);
    const claims = identity.claims ?? {};
    if (claims[DEV_CLAIM] === true || !this.opts.sources.has(identity.type)) return identity;
    const issuedMs = typeof claims[ISSUED_MS_CLAIM] === 'number' ? claims[ISSUED_MS_CLAIM] : Number(claims.iat) * 1000;
    const answer = (await this.check(identity.type, identity.userId!, issuedMs))!;
    const out: Identity = {
      type: identity.type,
      userId: identity.userId,
      roles: answer.roles,
      claims: {
        ...claims,
        roles: answer.roles,
        developer: answer.developer === true,
        ...(answer.name !== undefined ? { name: answer.name } : {}),
      },
    };
    if (answer.tenant !== undefined) out.tenant = answer.tenant;
    if (identity.methods !== undefined) out.methods = identity.methods;
    return out;
  }

  /**
   * The source's answer for a subject holding a credential issued at
   * `issuedMs`, or a 401 when the subject is unknown, inactive, or the
   * credential older than its validAfter. `fresh`: ask the source, not the
   * cache (a refresh-token exchange). Undefined when the type has no source.
   */
  async check(
    type: IdentityType,
    sub: string,
    issuedMs: number,
    fresh = false,
  ): Promise<IdentitySourceAnswer | undefined> {
    if (!this.opts.sources.has(type)) return undefined;
    const answer = await this.answer(type, sub, fresh);
    if (!answer.active) throw runtimeError('UNAUTHENTICATED', 'This user is not active');
    if (answer.validAfter !== undefined && !(issuedMs >= Date.parse(answer.validAfter))) {
      throw runtimeError(
        'UNAUTHENTICATED',
        "This token was issued before the user's credentials changed: sign in again",
      );
    }
    return answer;
  }

  /** Forgets this process's cached answer for a subject (the next request asks its source). */
  invalidate(type: IdentityType, sub: string): void {
    const key = `${type}\u0000${sub}`;
    this.cache.delete(key);
    this.inflight.delete(key);
  }

  private answer(type: IdentityType, sub: string, fresh: boolean): Promise<IdentitySourceAnswer> {
    const key = `${type}\u0000${sub}`;
    if (!fresh) {
      const hit = this.cache.get(key);
      if (hit) {
        if (hit.until > Date.now()) {
          this.hits++;
          return Promise.resolve(hit.answer);
        }
        this.cache.delete(key);
      }
      this.misses++;
      // concurrent requests of one subject share one call to its source
      const pending = this.inflight.get(key);
      if (pending) return pending;
    }
    const loading = this.load(type, sub);
    if (!fresh) this.inflight.set(key, loading);
    loading.then(
      (answer) => {
        // an answer invalidated while it was loading is not kept
        const current = !fresh && this.inflight.get(key) === loading;
        if (current) this.inflight.delete(key);
        if (this.cacheMs > 0 && (current || fresh)) this.remember(key, answer);
      },
      () => {
        if (this.inflight.get(key) === loading) this.inflight.delete(key);
        this.cache.delete(key);
      },
    );
    return loading;
  }

  private remember(key: string, answer: IdentitySourceAnswer): void {
    this.cache.delete(key);
    this.cache.set(key, { answer, until: Date.now() + this.cacheMs });
    if (this.cache.size > CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
  }

  private async load(type: IdentityType, sub: string): Promise<IdentitySourceAnswer> {
    const source = this.opts.sources.get(type)!;
    const where = `${source.classId}.${source.method}`;
    let result: CallResult;
    try {
      result = await this.opts.call(source.classId, source.method, sub);
    } catch (err) {
      // no such user (the runtime's unknown instance, the class's own 404, an id no instance can have): not signed in
      if (
        isUnknownInstance(err) ||
        (err instanceof ActorError && (err.status === 404 || err.code === RuntimeCodes.BAD_INSTANCE_ID.code))
      ) {
        throw runtimeError('UNAUTHENTICATED', "This token's user does not exist");
      }
      throw err;
    }
    if (result.status === 404) throw runtimeError('UNAUTHENTICATED', "This token's user does not exist");
    if (result.status < 200 || result.status >= 300)
      throw new ActorError(500, RuntimeCodes.INTERNAL.code, `Identity source ${where} answered ${result.status}`);
    return parseSourceAnswer(result.body, where);
  }
}
