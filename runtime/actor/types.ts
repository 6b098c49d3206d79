import type { Logger } from 'pino';
import type { Signer } from '../auth/signer';
import type { BlobStore } from '../files/blob-store';
import type { DocumentStore, Filter, IndexSpec } from '../stream/document-store';
import type { ListingSpec } from '../stream/listing';
import type { ActorError } from '../errors';
import type { JournalReader, MethodJournal } from './journal';

export type MethodKind = 'INIT' | 'READ' | 'WRITE' | 'QUEUED_WRITE' | 'STATIC' | 'INTERNAL';

/** Kinds that change state and therefore hold the instance exclusively. */
export const EXCLUSIVE_KINDS: ReadonlySet<MethodKind> = new Set(['INIT', 'WRITE', 'QUEUED_WRITE', 'INTERNAL']);

export type IdentityType =
  'program_management_user' | 'enduser' | 'member_otp' | 'integration_user' | 'class' | 'system' | 'anonymous';

export interface Identity {
  type: IdentityType;
  /** user id (JWT subject), API key id, or for class identities the calling instance id */
  userId?: string;
  roles?: string[];
  claims?: Record<string, unknown>;
  /** for class identities: the calling class and instance */
  classId?: string;
  instanceId?: string;
  /**
   * The tenant this identity's data access is limited to (a company, for a
   * company user); absent: not limited. Set from the token's `tenant` claim;
   * class-to-class calls, queued jobs and tasks carry the tenant of the call
   * that made them, so a class acting for a tenant-bound caller is held to the
   * same scope. See ClassOptions.tenancy for what it limits.
   */
  tenant?: string;
  /**
   * The only methods (`Class.method`) this identity may call, from a token
   * issued with `methods` (ctx.tokens.issue): any other is refused with 403
   * TOKEN_NOT_FOR_METHOD. Absent: whatever its type and roles allow.
   */
  methods?: readonly string[];
}

/** The identity types a bearer token may carry. */
export type TokenIdentityType = 'program_management_user' | 'enduser' | 'member_otp';

/**
 * A class holding the users that sign in as one token type (ClassOptions.identitySource):
 * for every request bearing a token of `tokenType` (other than a development
 * token), the runtime calls `method` (a READ or INTERNAL of the class) as the
 * system identity on the instance named by the token's subject, with an empty
 * body, and takes the caller's roles, tenant and developer flag from its
 * answer (an IdentitySourceAnswer) instead of the token. Its answer is cached
 * per subject in each process for IDENTITY_CACHE_SECONDS.
 */
export interface IdentitySourceOptions {
  /** one of the token identity types (TokenIdentityType) */
  tokenType: IdentityType;
  method: string;
}

/** What an identity source's method answers for a subject (README "Tokens and identity sources"). */
export interface IdentitySourceAnswer {
  /** false: every token of the subject is refused (401) */
  active: boolean;
  /** role ids or names (for program_management_user: checked against the deployed roles) */
  roles: string[];
  /** the tenant the subject is limited to; absent: not limited */
  tenant?: string;
  /** the developer flag (identity.claims.developer) */
  developer?: boolean;
  /** ISO time: tokens (and refresh tokens) issued before it are refused, e.g. after a password change */
  validAfter?: string;
  /** display name (identity.claims.name), for audit records */
  name?: string;
}

/** What a class asks for when it signs a caller in (ctx.tokens.issue). */
export interface TokenIssueRequest {
  /** the subject: the user's id (for a type with an identity source, the source class's instance id) */
  sub: string;
  /** one of the token identity types (TokenIdentityType) */
  type: IdentityType;
  /** the tenant the token is limited to (an identity source's answer takes precedence) */
  tenant?: string;
  /** `Class.method` names the token may call, and nothing else; absent: any the identity may */
  methods?: string[];
  /** lifetime of the access token, 1-86400 s; default ACCESS_TOKEN_TTL_SECONDS */
  ttlSeconds?: number;
  /** also return a refresh token (exchanged at POST /<projectId>/auth/refresh) */
  refresh?: boolean;
}

export interface IssuedToken {
  /** the access token (a JWT) */
  token: string;
  /** ISO time the access token expires */
  expiresAt: string;
  /** when asked for: an opaque, single-use refresh token */
  refreshToken?: string;
}

/**
 * Signs callers in (ctx.tokens): short-lived access tokens and rotating
 * refresh tokens. Issuing writes nothing a handler commits: a token issued by
 * a handler that then throws is still valid until it expires.
 */
export interface TokenIssuer {
  issue(request: TokenIssueRequest): Promise<IssuedToken>;
  /**
   * Revokes every refresh token of the subject (sign-out everywhere, password
   * change, deactivation) and forgets this process's cached identity answer
   * for it; access tokens already issued run until they expire, or until the
   * identity source refuses them.
   */
  revokeAll(sub: string, type: IdentityType): Promise<void>;
}

/**
 * Who may call a method. Plain identity types, plus:
 *  - 'public'          no authentication needed (anonymous callers admitted)
 *  - 'class'           any class calling from a handler
 *  - 'class:<ClassId>' that class only
 * The 'system' identity (CLI, seeds, scheduled tasks raised by the platform)
 * is always admitted.
 */
export type AccessRule =
  Exclude<IdentityType, 'class' | 'system' | 'anonymous'> | 'public' | 'class' | `class:${string}`;

export interface MethodOptions {
  /** identities admitted; required: every method says who may call it */
  access: readonly AccessRule[];
  /**
   * schema file under schemas/<Class>/ (without .json); defaults to the method name. The file must exist,
   * or the start stops naming it; `false`: the method's input is not checked by a schema (say why beside it)
   */
  schema?: string | false;
  /** time budget in seconds (READ/WRITE/STATIC/INIT/INTERNAL 1-30, QUEUED_WRITE 1-890) */
  timeoutSeconds?: number;
  /** for program_management_user: skip the role permission check (e.g. self-service methods) */
  skipRoleCheck?: boolean;
  /** WRITE/INTERNAL/QUEUED_WRITE: a missing instance is created (empty state) instead of answering unknown-instance */
  upsert?: boolean;
  /**
   * WRITE/INTERNAL: may the handler run on the state this process has cached,
   * without the lease, committing only if the instance has not moved (one
   * Redis round trip instead of two)? Such a run is discarded and the handler
   * run again under the lease when the instance moved, when it changes a
   * lookup key, or when it uses what would outlive a discarded run (ctx.call
   * of a non-READ method, ctx.tokens, ctx.limits, ctx.ports: refused in it).
   * Default true. Set false for a handler with effects of its own outside ctx
   * (a module-level client, a file write) that must not happen twice.
   */
  optimistic?: boolean;
  /**
   * READ: a missing instance reads as empty state at version 0 instead of
   * answering unknown-instance (e.g. an inbox created on its first item).
   */
  emptyWhenMissing?: boolean;
  /**
   * Who may reach which instance, judged from the caller and the instance id
   * alone: run after the access rules and before the instance is looked up,
   * so a caller it refuses learns nothing of whether the instance exists.
   * Throws the class's error to refuse (e.g. a member reaching only its own
   * id). `instanceId` is as addressed: a lookup (`name!value`) is not
   * resolved yet.
   */
  guard?: (caller: { identity: Identity; instanceId: string | undefined }) => void;
  /** QUEUED_WRITE: attempts before the job is failed (default 5) */
  attempts?: number;
  /**
   * Turns schema validation errors into the method's own error (for external
   * contracts with a fixed error shape). Receives [{field, reason}] list.
   */
  onValidationError?: (errors: FieldError[]) => Error;
  /**
   * Shapes the HTTP error answers of this method (CALL and route aliases) for
   * external contracts with a fixed error envelope: every ActorError answered
   * for a call of this method that carries no body of its own (authentication
   * and access errors raised before the handler, schema validation, malformed
   * JSON on a route alias, time-outs, ...; unexpected errors arrive as the
   * runtime's INTERNAL error) is passed through it. Errors that already carry
   * a body (e.g. the unknown-instance answer, spec 4.1 rule 3) are sent as they are.
   */
  errorShape?: (err: ActorError) => ActorError;
  /**
   * Answer a repeat of the same request (same caller, path and body, fields
   * in any order) within this many seconds with the first answer, running
   * nothing, as if it carried the first one's Idempotency-Key: for callers
   * that retry a timed-out call without a key (an HR system), so that a late
   * retry neither applies twice nor undoes a newer call. A repeat while the
   * first still runs waits for its answer. 1-86400, or a function of the
   * runtime's settings (the environment) resolved at start, 0 meaning none.
   */
  replayWindowSeconds?: number | ((env: NodeJS.ProcessEnv) => number);
  /**
   * Keep an entry of every call of this method that arrives over HTTP,
   * whatever it answered, in the named journal (runtime/actor/journal.ts):
   * caller, status and error code, duration, a digest of the body, and the
   * fields `describe` picks. Read with ctx.journals.
   */
  journal?: MethodJournal;
  /**
   * Largest JSON body of a call of this method over HTTP, in body-parser's
   * notation ('64kb', '2mb', or a number of bytes): the HTTP layer picks it
   * before parsing a request addressed to this method (CALL path or route
   * alias). It can only lower BODY_LIMIT, never raise it. A bigger body is
   * refused as BODY_TOO_LARGE (413), shaped by errorShape when there is one.
   */
  bodyLimit?: string | number;
  /**
   * Also accept `application/x-www-form-urlencoded` bodies on the CALL path
   * (a browser form posted by a third party, e.g. an identity provider's SAML
   * response): the fields arrive as strings (a repeated field: the last
   * value), in a null-prototype object, and go through the method's schema as
   * a JSON body would. Other methods parse every body as JSON.
   */
  formBody?: boolean;
  /**
   * The shape of the method's answer (its successful body), for the API
   * reference (`/openapi.json`, clients/) and for tests; the runtime never
   * checks answers on the call path. Either the name of a JSON Schema file
   * under schemas/<Class>/ (without .json; by convention `<name>.answer`),
   * which may `$ref` sibling files of that folder by file name
   * (`"company.answer.json"`, `"company.answer.json#/$defs/x"`), or an inline
   * JSON Schema. A named file that is missing stops the start.
   */
  answer?: string | Readonly<Record<string, unknown>>;
  /** the HTTP statuses the answer comes with (default: 200, or 202 for a QUEUED_WRITE's job), e.g. [200, 201] */
  answerStatuses?: readonly number[];
  /**
   * With errorShape: the shape of the method's own error envelope, as
   * `answer` (a schema file under schemas/<Class>/ or an inline schema), for
   * the API reference; without it the reference shows the shapes of the
   * bodies the shaper makes of the platform's errors.
   */
  errorAnswer?: string | Readonly<Record<string, unknown>>;
  /**
   * The errors of the class's error table this method answers (by name or
   * code), for the API reference (default: every error of the class). The
   * platform's errors are listed whatever it says.
   */
  errors?: readonly (string | number)[];
}

export interface FieldError {
  field: string;
  reason: string;
}

export interface InitOptions extends MethodOptions {
  /** computes the new instance id from the request; default: path instance id or a random UUID */
  instanceId?: (req: RequestInfo) => string | undefined;
  /**
   * false: no lease while the handler runs; the commit creates the instance
   * only if it does not exist and nobody holds its lease (409 INSTANCE_EXISTS
   * otherwise). Saves a Redis round trip per creation. Only for INITs whose
   * ids are unique by construction (random ids a caller just made) and whose
   * handlers only set state, since two racing INITs of one id would both run.
   * Default true.
   */
  lease?: boolean;
}

export interface MethodDef {
  name: string;
  kind: MethodKind;
  options: MethodOptions | InitOptions;
  handler: (ctx: Ctx) => unknown;
}

export interface ProjectedDocument {
  collection: string;
  id: string;
  doc: Record<string, unknown>;
}

export interface CollectionOptions {
  indexes?: IndexSpec[];
  /**
   * the listings that read this collection (order and filter sets); the
   * indexes they need are derived from them (runtime/stream/listing.ts)
   */
  listings?: ListingSpec[];
  /**
   * Field (dotted path) holding the tenant a document belongs to. Reads of
   * this collection by a tenant-bound caller (ctx.documents) only see
   * documents whose field equals the caller's tenant. Required on every
   * collection of a class with `tenancy: {kind: 'owned'}`.
   */
  tenantField?: string;
  /**
   * Counts of this collection's documents an operator watches (e.g. records
   * waiting for review), exported as runtime_document_count{collection, gauge},
   * counted at each scrape: give each filter an index.
   */
  gauges?: DocumentGauge[];
}

/** One count of a collection's documents on /metrics (CollectionOptions.gauges). */
export interface DocumentGauge {
  /** the series' `gauge` label: 1-64 of [a-z0-9_] */
  name: string;
  help: string;
  filter: Filter;
}

export interface StreamOptions<S extends InstanceState = InstanceState> {
  /** collections this class writes, with their indexes */
  collections: Record<string, CollectionOptions>;
  /** turns committed state into the documents to upsert (all of the instance's documents) */
  toDocuments(state: S, instanceId: string): ProjectedDocument[];
}

/**
 * An extra HTTP route that reaches one of the class's methods, for external
 * contracts with fixed paths. The method answers exactly as through CALL.
 */
export interface RouteAlias {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** express path, e.g. '/members/hr/employee' */
  path: string;
  /** the class's method to call */
  target: string;
  /** instance id to call (for singletons, 'default'); taken from the path's :instanceId when absent */
  instanceId?: string;
}

/**
 * A class that owns role definitions tells the runtime how to ask it for
 * roles when the published snapshot cannot be read, and how to have the
 * snapshot regenerated (spec 5).
 */
export interface RoleProviderOptions {
  instanceId: string;
  /** method answering {roles: RoleDefinition[]} for body {names: string[]} */
  getRoles: string;
  /** method that republishes the snapshot */
  regenerate: string;
  /**
   * roles that hold while the provider has no instance yet (a fresh project,
   * before its first publication): e.g. a built-in super role, so the first
   * back-office call is not refused while the regeneration it triggers runs
   */
  absentRoles?: readonly RoleDefinition[];
}

/**
 * How a class's data relates to tenants (identity.tenant), enforced by the
 * runtime for every method, before and after the handler, for callers bound to
 * a tenant (callers without a tenant are not limited):
 *
 *  - `owned`: each instance belongs to one tenant, `owner(state)`. A
 *    tenant-bound caller reaches only instances its tenant owns (READ, WRITE,
 *    QUEUED_WRITE, INTERNAL: checked on the state before the handler), and
 *    every state it commits (INIT, WRITE, ...) must still be owned by its
 *    tenant: it can neither create data for another tenant nor move data out
 *    of its own. Its collections declare `tenantField`, so listings are
 *    filtered to the caller's tenant.
 *  - `shared`: reference data of no tenant (settings, tiers, roles). Tenant-bound
 *    users may call READ and STATIC methods; INIT, WRITE and QUEUED_WRITE are
 *    refused to them (classes acting for them may still write).
 *  - `records`: an instance holding records of many tenants (a singleton of
 *    companies). The runtime cannot see which record a call touches, so each
 *    handler checks the records it reads or writes with `ctx.tenancy.check(tenant)`;
 *    its collections declare `tenantField`.
 *
 * A class that declares no tenancy refuses tenant-bound callers altogether
 * (403 OUT_OF_SCOPE), and its collections cannot be read by them: a new class
 * is closed to company users until it says how its data is scoped.
 */
export type TenancyOptions<S extends InstanceState = InstanceState> =
  { kind: 'owned'; owner(state: S): string | undefined | null } | { kind: 'shared' } | { kind: 'records' };

/** `S`: the class's state (`@ActorClass<S>`), which `stream.toDocuments` and `tenancy.owner` receive */
export interface ClassOptions<S extends InstanceState = InstanceState> {
  id: string;
  /** how the class's data is scoped to tenants (see TenancyOptions); none: closed to tenant-bound callers */
  tenancy?: TenancyOptions<S>;
  description?: string;
  routes?: RouteAlias[];
  roleProvider?: RoleProviderOptions;
  /** streaming to the document database; omitted for classes that are not listed */
  stream?: StreamOptions<S>;
  /** fields whose values are masked in logs (added to the runtime's defaults) */
  sensitiveFields?: string[];
  /** this class holds the users of a token type: their roles, tenant and status come from it (see IdentitySourceOptions) */
  identitySource?: IdentitySourceOptions;
}

export interface ClassDef {
  id: string;
  options: ClassOptions;
  methods: Map<string, MethodDef>;
  /** classes may take the runtime's environment (the variables the process was configured with) */
  ctor: new (env: NodeJS.ProcessEnv) => object;
}

/** The four state partitions (GUIDE 2, spec 2). */
export interface InstanceState {
  public: Record<string, any>;
  private: Record<string, any>;
  user: Record<string, any>;
  role: Record<string, any>;
}

/**
 * A class's state type with its own partitions: `StateOf<{ tier: Tier }>`
 * types `private` (and `public` when given); declared once per class as
 * `@ActorClass<State>` and in its handlers' `Ctx<State>` / `ReadCtx<State>`.
 */
export interface StateOf<
  Private extends object = Record<string, any>,
  Public extends object = Record<string, any>,
> extends InstanceState {
  public: Public;
  private: Private;
}

/** The request a handler sees; `B` is the body its method declares (`Ctx<State, Input>`), `any` when it declares none. */
export interface RequestInfo<B = any> {
  body: B;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
  path: { projectId: string; classId: string; method: string; instanceId?: string };
  /**
   * the HTTP caller's address (express's req.ip: the connection's peer, as no proxy is trusted);
   * undefined for calls from classes, queued jobs and tasks, whose callers pass it on in the body
   */
  ip?: string;
  requestId?: string;
}

export interface ResponseInit {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export interface ScheduleRequest {
  classId?: string;
  method: string;
  /** defaults to the scheduling instance when classId is omitted */
  instanceId?: string;
  body?: unknown;
  delaySeconds: number;
}

export interface EffectRequest {
  classId: string;
  method: string;
  instanceId: string;
  body?: unknown;
}

/**
 * A mail a handler sends with `ctx.mail.send`: committed with the handler's
 * change and delivered after it by a worker (README "Mail"). Addresses are
 * plain `local@domain`; `from` and `replyTo` may be `Name <local@domain>`;
 * `from` defaults to MAIL_FROM; html or text (or both) is required.
 */
export interface MailMessage {
  to: string[];
  cc?: string[];
  bcc?: string[];
  from?: string;
  replyTo?: string;
  subject: string;
  html?: string;
  text?: string;
}

/** An SMS a handler sends with `ctx.sms.send` (phone numbers as `+` and 6-15 digits), committed and delivered like a mail. */
export interface SmsMessage {
  to: string[];
  text: string;
}

/**
 * Sends messages of one kind as part of the handler's change: the message is
 * checked now (400 VALIDATION naming the field otherwise), committed with the
 * change and handed to a delivery queue only once the change commits, so a
 * handler that throws, times out or loses its commit sends nothing. Resolves
 * to the message id, chosen now (a mail's Message-ID header is `<id@PROJECT_ID>`).
 */
export interface MessageSender<M> {
  send(message: M): Promise<string>;
}

export interface EmittedEvent {
  name: string;
  payload?: unknown;
}

/** A limit of `max` counted hits in any window of `windowSeconds` (ctx.limits.hit). */
export interface RateLimit {
  max: number;
  windowSeconds: number;
}

export interface RateLimitResult {
  /** this hit was within the limit (and counted); a refused hit is not counted */
  allowed: boolean;
  /** hits still allowed in the window after this one (0 when refused) */
  remaining: number;
  /** 0 when allowed; otherwise seconds until a hit is allowed again (rounded up: a Retry-After value) */
  retryAfterSeconds: number;
}

/**
 * Throttling counters shared by every process of the project (Redis, a
 * sliding window; runtime/actor/rate-limit.ts), for every handler kind. A
 * counter is named by the class (`name`: 1-64 of [A-Za-z0-9_.-]) and keyed by
 * what it throttles (an address, an account), which is hashed before it
 * becomes part of a Redis key. Counters are not state: a handler that throws
 * keeps its hits.
 */
export interface RateLimits {
  /** counts one hit of `key` under `name`, unless `limit` is already reached */
  hit(name: string, key: string, limit: RateLimit): Promise<RateLimitResult>;
  /** forgets every hit of `key` under `name` (e.g. the failed attempts, after a success) */
  reset(name: string, key: string): Promise<void>;
}

/** Lookup keys as every handler may use them (READ and STATIC included): nothing here writes. */
export interface ReadLookupApi {
  /** the value this instance holds for a lookup name */
  get(name: string): string | undefined;
  /**
   * The id of the instance that lookup key `name!value` names, or undefined
   * when none does: one Redis read of the committed key, no call. `classId`
   * defaults to the calling class. Like a READ, it sees committed keys only.
   */
  resolve(name: string, value: string, classId?: string): Promise<string | undefined>;
}

export interface LookupApi extends ReadLookupApi {
  /** set (or move) this instance's lookup key `name!value`; unique per class, checked at commit */
  set(name: string, value: string): void;
  /** drop this instance's lookup key for `name` */
  remove(name: string): void;
}

/**
 * `T` with every property, array element, map and set entry read-only, at any
 * depth: the state a READ or STATIC handler sees (frozen at run time as well).
 */
export type DeepReadonly<T> = T extends (...args: any[]) => unknown
  ? T
  : T extends ReadonlyMap<infer K, infer V>
    ? ReadonlyMap<DeepReadonly<K>, DeepReadonly<V>>
    : T extends ReadonlySet<infer E>
      ? ReadonlySet<DeepReadonly<E>>
      : T extends readonly unknown[]
        ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
        : T extends object
          ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
          : T;

/**
 * What every handler receives, whatever its kind. `I` is the request body the
 * method declares (validated by its JSON Schema before the handler runs).
 */
export interface BaseCtx<I = any> {
  readonly projectId: string;
  readonly classId: string;
  readonly method: string;
  readonly kind: MethodKind;
  /** undefined for STATIC */
  readonly instanceId: string | undefined;
  readonly identity: Identity;
  readonly request: RequestInfo<I>;
  /** version of the instance as read (0 for INIT) */
  readonly version: number;
  /** set the answer; a handler's return value is the body when none is set */
  response: ResponseInit;
  readonly log: Logger;
  /** aborted when the method passes its time budget */
  readonly signal: AbortSignal;
  /** documents projected by classes, for listings (read-only use) */
  readonly documents: DocumentReader;
  /** the call journals methods keep (MethodOptions.journal), newest first; a tenant-bound caller sees only its tenant's entries */
  readonly journals: JournalReader;
  /** outside systems behind ports (file content, signed tokens, ...) */
  readonly ports: Ports;
  /** the role definitions of the caller (program management users; empty for others) */
  roles(): Promise<RoleDefinition[]>;
  /** the caller's tenant scope (see ClassOptions.tenancy) */
  readonly tenancy: TenancyApi;
  /** throttling counters shared by every process (see RateLimits) */
  readonly limits: RateLimits;
  /** call another class's method as this class (prefer the typed `client<typeof Callee>(ctx, 'Callee')`) */
  call(classId: string, method: string, instanceId?: string, body?: unknown): Promise<CallResult>;
}

/**
 * The context of a READ or STATIC handler: the committed state, deep
 * read-only, and nothing that writes (no lookup.set/remove, schedule,
 * enqueue, emit, effect, mail, sms), so the compiler refuses a write; the run-time freeze
 * of the snapshot stays as the second line. A `Ctx<S>` is a `ReadCtx<S>`, so
 * helpers that only read take `ReadCtx<S>` and serve both kinds.
 */
export interface ReadCtx<S extends InstanceState = InstanceState, I = any> extends BaseCtx<I> {
  /** the last committed state, frozen (empty for STATIC) */
  readonly state: DeepReadonly<S>;
  readonly lookup: ReadLookupApi;
}

/**
 * The context of a STATIC handler: no instance, so no state and no lookup
 * keys of its own to write; what it causes elsewhere goes through the same
 * means as a write's (the runtime applies a STATIC's effects once it has
 * answered, dispatches its tasks and jobs and appends its events).
 */
export interface StaticCtx<I = any>
  extends
    ReadCtx<InstanceState, I>,
    Pick<Ctx<InstanceState, I>, 'effect' | 'emit' | 'enqueue' | 'schedule' | 'mail' | 'sms' | 'tokens'> {}

/**
 * The context of an INIT, WRITE, QUEUED_WRITE or INTERNAL handler: `S` is the
 * class's state (`@ActorClass<S>`), `I` the method's request body.
 */
export interface Ctx<S extends InstanceState = InstanceState, I = any> extends BaseCtx<I> {
  /** state partitions: a draft for INIT/WRITE/QUEUED_WRITE/INTERNAL, committed when the handler returns */
  readonly state: S;
  readonly lookup: LookupApi;
  /**
   * Queue a QUEUED_WRITE on another (or this) instance as this class. Checked
   * now (method, access, instance); in INIT/WRITE handlers the job is committed
   * with the state and only queued once the commit succeeds.
   */
  enqueue(classId: string, method: string, instanceId: string, body?: unknown): Promise<{ jobId: string }>;
  /**
   * A call to another instance that belongs to this change (its approval
   * record, its audit entry, a mail): checked now, committed with the change,
   * applied after the commit, effectively once (the target's commit records
   * the effect's id). A handler that throws, times out or loses its commit
   * leaves no effect. The target is an INIT, WRITE or INTERNAL method named by
   * instance id (an INIT's id chosen now). In a STATIC handler, which commits
   * nothing, effects are applied once it has answered. Returns the effect's id.
   */
  effect(call: EffectRequest): Promise<string>;
  /** a mail that belongs to this change (see MessageSender): sent only if the change commits */
  readonly mail: MessageSender<MailMessage>;
  /** an SMS that belongs to this change (see MessageSender): sent only if the change commits */
  readonly sms: MessageSender<SmsMessage>;
  /** signs callers in: access and refresh tokens (see TokenIssuer); not for READ handlers */
  readonly tokens: TokenIssuer;
  /** run a method later (committed with the state; survives restarts) */
  schedule(task: ScheduleRequest): void;
  /** record an event, committed with the state to the project's event stream */
  emit(name: string, payload?: unknown): void;
}

export interface TenancyApi {
  /** the tenant the caller is limited to; undefined: not limited */
  readonly tenant: string | undefined;
  /** may the caller reach data of `tenant`? (always, for callers without a tenant) */
  allows(tenant: string | null | undefined): boolean;
  /** throws 403 OUT_OF_SCOPE unless the caller may reach data of `tenant` */
  check(tenant: string | null | undefined, what?: string): void;
  /** the tenant owning this instance's current state, for `owned` classes (undefined otherwise) */
  owner(): string | undefined;
}

/** A role as the runtime's role check knows it (spec 5). */
export interface RoleDefinition {
  id: string;
  name: string;
  /** 1 = super (every method), 10 = normal (explicit permissions) */
  level: number;
  /** class id → method names */
  permissions: Record<string, string[]>;
  status?: 'active' | 'inactive';
}

export interface RoleSnapshot {
  version: number;
  hash: string;
  publishedAt: string;
  roles: RoleDefinition[];
}

/** The published role snapshot that the runtime's role check reads (spec 5 "deployed as a cached dependency"). */
export interface RolePublisher {
  publish(snapshot: RoleSnapshot): Promise<void>;
  current(): Promise<RoleSnapshot | null>;
}

/** One method of a class as the registry knows it (for permission catalogues). */
export interface CatalogueMethod {
  name: string;
  kind: string;
  access: readonly string[];
}

export interface Ports {
  blobs: BlobStore;
  signer: Signer;
  roles: RolePublisher;
  /** the classes this runtime serves: class id → its methods with kind and access (read-only) */
  catalogue(): Record<string, CatalogueMethod[]>;
}

export interface DocumentReader {
  find: DocumentStore['find'];
  get: DocumentStore['get'];
  count: DocumentStore['count'];
}
