/** The context every handler receives (ctx), by kind. */
import type { Logger } from 'pino';
import type { JournalReader } from '../actor/journal';
import type { CallResult, EffectRequest, RequestInfo, ResponseInit, ScheduleRequest } from './calls';
import type { DocumentReader } from './documents';
import type { Identity } from './identity';
import type { MethodKind } from './kinds';
import type { RateLimits } from './limits';
import type { MailMessage, MessageSender, SmsMessage } from './mail';
import type { Ports } from './ports';
import type { RoleDefinition } from './roles';
import type { DeepReadonly, InstanceState } from './state';
import type { TokenIssuer } from './tokens';

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
 * What every handler receives, whatever its kind. `I` is the request body the
 * method declares (validated by its JSON Schema before the handler runs).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the body's default, as RequestInfo's (types/calls.ts)
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
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the body's default, as RequestInfo's (types/calls.ts)
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
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the body's default, as RequestInfo's (types/calls.ts)
export interface StaticCtx<I = any>
  extends
    ReadCtx<InstanceState, I>,
    Pick<Ctx<InstanceState, I>, 'effect' | 'emit' | 'enqueue' | 'schedule' | 'mail' | 'sms' | 'tokens'> {}

/**
 * The context of an INIT, WRITE, QUEUED_WRITE or INTERNAL handler: `S` is the
 * class's state (`@ActorClass<S>`), `I` the method's request body.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the body's default, as RequestInfo's (types/calls.ts)
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
