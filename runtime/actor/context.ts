/**
 * The context a handler runs with (ctx): what it sees of the caller, the
 * request and its instance, and the means to cause things elsewhere (calls,
 * tasks, effects, mail, events), which it collects for the commit instead of
 * doing them. The dispatcher makes one per call through `contextFactory` and
 * reads back only what `HandlerContext` adds to `Ctx`.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { REDACT_PATHS } from '../logger';
import { runtimeError } from '../errors';
import type { DocumentStore } from '../stream/document-store';
import { tenancyApi, tenantDocuments } from '../auth/tenancy';
import { outboundEffect } from '../mail/outbound';
import type { JournalReader, RedisJournals } from './journal';
import { deepFreeze } from './local-queue';
import type { ClassRegistry, RegisteredClass, RegisteredMethod } from './registry';
import { emptyState, type StateStore } from './state-store';
import type { Effect } from './effects';
import { LOOKUP_NAME, requestInfoOf, type CallRequest, type CallRunner, type ScheduledTask } from './call-request';
import type {
  CallResult,
  EffectRequest,
  EmittedEvent,
  RequestInfo,
  ResponseInit,
  ScheduleRequest,
} from '../types/calls';
import type { Ctx, LookupApi, TenancyApi } from '../types/context';
import type { DocumentReader } from '../types/documents';
import type { Identity } from '../types/identity';
import type { MethodKind } from '../types/kinds';
import type { RateLimits } from '../types/limits';
import type { MailMessage, MessageSender, SmsMessage } from '../types/mail';
import type { Ports } from '../types/ports';
import type { RoleDefinition } from '../types/roles';
import type { InstanceState } from '../types/state';
import type { TokenIssuer } from '../types/tokens';

/** the state of a STATIC call: empty, frozen, shared */
export const EMPTY_STATE: InstanceState = deepFreeze(emptyState());
/** no lookups (a STATIC's, a new instance's), frozen, shared */
export const NO_LOOKUPS: Readonly<Record<string, string>> = Object.freeze({});

/** The runtime's services a context hands to its handler. */
export interface ContextDeps {
  projectId: string;
  registry: ClassRegistry;
  store: StateStore;
  documents: DocumentStore;
  ports: Ports;
  logger: Logger;
  tokens?: TokenIssuer;
  journals?: RedisJournals;
}

/** What a context asks of the dispatcher: calls, and the up-front checks of what it queues. */
export interface ContextHost {
  call: CallRunner;
  /** checks a committed effect now, while the change can still be refused */
  checkEffect(identity: Identity, classId: string, method: string, instanceId: string, body: unknown): Promise<void>;
  /** checks a class's enqueue now; answers the resolved instance id */
  checkEnqueue(identity: Identity, classId: string, method: string, instanceId: string): Promise<string>;
  rolesOf(identity: Identity): Promise<RoleDefinition[]>;
  readonly limits: RateLimits;
}

/** The instance a context runs on, and where it collects what the commit carries (null: the kind may not). */
export interface ContextSeed {
  instanceId: string | undefined;
  state: InstanceState;
  version: number;
  lookups: Record<string, string>;
  tasks: ScheduledTask[] | null;
  events: EmittedEvent[] | null;
  effects: Effect[] | null;
}

/** A handler's context as the dispatcher drives it. */
export interface HandlerContext extends Ctx {
  /** a run on a cached snapshot without the lease: what would outlive a discarded run is refused */
  optimistic: boolean;
  /** this optimistic run asked for something only a leased run may do: it is discarded and run again */
  readonly needsLease: boolean;
  /** the response as the handler set it; undefined when it never looked */
  readonly responseIfSet: ResponseInit | undefined;
  /** the budget is spent: ctx.signal aborts, further ctx.call fails */
  abort(): void;
}

export type ContextFactory = (
  cls: RegisteredClass,
  method: RegisteredMethod,
  req: CallRequest,
  seed: ContextSeed,
) => HandlerContext;

export function contextFactory(host: ContextHost, deps: ContextDeps): ContextFactory {
  return (cls, method, req, seed) => new CtxImpl(host, deps, cls, method, req, seed);
}

const KIND_CAN_WRITE: Record<MethodKind, boolean> = {
  INIT: true,
  WRITE: true,
  QUEUED_WRITE: true,
  INTERNAL: true,
  READ: false,
  STATIC: false,
};

/** ctx.lookup: one object per call with its methods on the prototype (no closures per call) */
class CtxLookup implements LookupApi {
  constructor(
    private readonly lookups: Record<string, string>,
    private readonly store: StateStore,
    private readonly classId: string,
    private readonly method: RegisteredMethod,
  ) {}

  get(name: string): string | undefined {
    return this.lookups[name];
  }

  resolve(name: string, value: string, classId = this.classId): Promise<string | undefined> {
    return this.store.resolveLookup(classId, name, value);
  }

  set(name: string, value: string): void {
    if (!KIND_CAN_WRITE[this.method.kind])
      throw runtimeError(
        'READ_ONLY',
        `${this.classId}.${this.method.name} (${this.method.kind}) cannot set lookup keys`,
      );
    if (!LOOKUP_NAME.test(name)) throw new Error(`invalid lookup name '${name}'`);
    if (typeof value !== 'string' || value.length === 0 || value.length > 256) {
      throw new Error(`lookup '${name}' needs a value of 1-256 characters`);
    }
    this.lookups[name] = value;
  }

  remove(name: string): void {
    if (!KIND_CAN_WRITE[this.method.kind])
      throw runtimeError(
        'READ_ONLY',
        `${this.classId}.${this.method.name} (${this.method.kind}) cannot remove lookup keys`,
      );
    delete this.lookups[name];
  }
}

/** each class's logger: the runtime's, also masking the class's `sensitiveFields` (top level and one level down) */
const classLoggers = new WeakMap<RegisteredClass, Logger>();
function classLogger(base: Logger, cls: RegisteredClass): Logger {
  let logger = classLoggers.get(cls);
  if (!logger) {
    const fields = cls.options.sensitiveFields ?? [];
    logger = fields.length
      ? base.child(
          {},
          { redact: { paths: [...REDACT_PATHS, ...fields.flatMap((f) => [f, `*.${f}`])], censor: '[masked]' } },
        )
      : base;
    classLoggers.set(cls, logger);
  }
  return logger;
}

class CtxImpl implements HandlerContext {
  readonly projectId: string;
  readonly classId: string;
  readonly method: string;
  readonly kind: MethodKind;
  readonly identity: Identity;
  readonly instanceId: string | undefined;
  readonly state: InstanceState;
  readonly version: number;
  private readonly lookups: Record<string, string>;
  private readonly tasks: ScheduledTask[] | null;
  private readonly events: EmittedEvent[] | null;
  private readonly effectList: Effect[] | null;
  private logger?: Logger;
  private abortController?: AbortController;
  private aborted = false;
  optimistic = false;
  needsLease = false;
  private lookupApi?: LookupApi;
  private requestInfo?: RequestInfo;
  private responseInit?: ResponseInit;

  constructor(
    private readonly host: ContextHost,
    private readonly deps: ContextDeps,
    private readonly cls: RegisteredClass,
    private readonly registered: RegisteredMethod,
    private readonly req: CallRequest,
    seed: ContextSeed,
  ) {
    this.projectId = deps.projectId;
    this.classId = cls.id;
    this.method = registered.name;
    this.kind = registered.kind;
    this.identity = req.identity;
    this.instanceId = seed.instanceId;
    this.state = seed.state;
    this.version = seed.version;
    this.lookups = seed.lookups;
    this.tasks = seed.tasks;
    this.events = seed.events;
    this.effectList = seed.effects;
  }

  /** made on first use, like request and response: a handler that does not look pays nothing */
  get lookup(): LookupApi {
    return (this.lookupApi ??= new CtxLookup(this.lookups, this.deps.store, this.cls.id, this.registered));
  }

  get request(): RequestInfo {
    return (this.requestInfo ??= requestInfoOf(this.deps.projectId, this.req, this.instanceId));
  }

  get response(): ResponseInit {
    return (this.responseInit ??= {});
  }

  set response(value: ResponseInit) {
    this.responseInit = value;
  }

  get responseIfSet(): ResponseInit | undefined {
    return this.responseInit;
  }

  /** child logger, made on first use (most handlers never log) */
  get log(): Logger {
    this.logger ??= classLogger(this.deps.logger, this.cls).child({
      classId: this.classId,
      method: this.method,
      instanceId: this.instanceId,
      requestId: this.req.requestId,
    });
    return this.logger;
  }

  /** the abort signal is made on first use (most handlers never look at it) */
  get signal(): AbortSignal {
    this.abortController ??= new AbortController();
    if (this.aborted) this.abortController.abort();
    return this.abortController.signal;
  }

  abort(): void {
    this.aborted = true;
    this.abortController?.abort();
  }

  /** Refuses, in an optimistic run, what would outlive it when it is discarded. */
  private underLease(what: string): void {
    if (!this.optimistic) return;
    this.needsLease = true;
    throw runtimeError(
      'INTERNAL',
      `${this.classId}.${this.method}: ${what} needs the instance's lease; the run is discarded and run again with it`,
    );
  }

  get ports(): Ports {
    this.underLease('ctx.ports');
    return this.deps.ports;
  }

  get documents(): DocumentReader {
    const d = this.deps.documents;
    const tenant = this.identity.tenant;
    if (tenant !== undefined) return tenantDocuments(d, tenant, (c) => this.deps.registry.collectionScope(c));
    return { find: d.find.bind(d), get: d.get.bind(d), count: d.count.bind(d) };
  }

  get journals(): JournalReader {
    const journals = this.deps.journals;
    if (!journals) throw new Error('call journals are not available in this runtime');
    return journals.reader(this.identity, (name) => this.deps.registry.journal(name));
  }

  get tenancy(): TenancyApi {
    return tenancyApi(this.identity, this.cls.options.tenancy, () => this.state);
  }

  get limits(): RateLimits {
    this.underLease('ctx.limits');
    return this.host.limits;
  }

  /** issuing a token is a side effect: not for READ handlers */
  get tokens(): TokenIssuer {
    if (this.kind === 'READ')
      throw runtimeError('READ_ONLY', `${this.classId}.${this.method} (READ) cannot issue tokens`);
    if (!this.deps.tokens) throw runtimeError('INTERNAL', 'no token issuer configured');
    this.underLease('ctx.tokens');
    return this.deps.tokens;
  }

  /** this class as the caller of another method; a tenant-bound call's tenant goes along */
  private asClass(): Identity {
    const tenant = this.identity.tenant;
    return tenant === undefined
      ? { type: 'class', classId: this.classId, instanceId: this.instanceId }
      : { type: 'class', classId: this.classId, instanceId: this.instanceId, tenant };
  }

  roles(): Promise<RoleDefinition[]> {
    return this.host.rolesOf(this.identity);
  }

  async enqueue(classId: string, method: string, instanceId: string, body?: unknown): Promise<{ jobId: string }> {
    if (!this.tasks) throw runtimeError('READ_ONLY', `${this.classId}.${this.method} (READ) cannot queue writes`);
    const identity = this.asClass();
    const target = await this.host.checkEnqueue(identity, classId, method, instanceId);
    const id = randomUUID();
    this.tasks.push({ id, classId, method, instanceId: target, body, delayMs: 0, identity, enqueue: true });
    // the id the job will have in BullMQ (it names its bucket when there are several)
    return { jobId: this.deps.store.keys.jobId(classId, target, id) };
  }

  async effect(call: EffectRequest): Promise<string> {
    if (!this.effectList) throw runtimeError('READ_ONLY', `${this.classId}.${this.method} (READ) cannot cause effects`);
    const identity = this.asClass();
    await this.host.checkEffect(identity, call.classId, call.method, call.instanceId, call.body ?? {});
    const id = randomUUID();
    this.effectList.push({
      id,
      classId: call.classId,
      method: call.method,
      instanceId: call.instanceId,
      body: call.body ?? {},
      identity,
    });
    return id;
  }

  /** a mail or SMS is a committed effect of this change, handed to its delivery queue after the commit */
  get mail(): MessageSender<MailMessage> {
    // the executor runs at once: the message is checked and collected before send returns, a refusal rejects
    return { send: (message) => new Promise((resolve) => resolve(this.outbound('mail', message))) };
  }

  get sms(): MessageSender<SmsMessage> {
    return { send: (message) => new Promise((resolve) => resolve(this.outbound('sms', message))) };
  }

  private outbound(port: 'mail' | 'sms', message: unknown): string {
    if (!this.effectList) throw runtimeError('READ_ONLY', `${this.classId}.${this.method} (READ) cannot send messages`);
    const effect = outboundEffect(port, message, this.asClass());
    this.effectList.push(effect);
    return effect.id;
  }

  async call(classId: string, method: string, instanceId?: string, body?: unknown): Promise<CallResult> {
    if (this.aborted) throw runtimeError('TIMEOUT', `${this.classId}.${this.method} has run out of time`);
    // a READ changes nothing: called as often as the run is
    if (this.optimistic && this.deps.registry.get(classId)?.methodsByName.get(method)?.kind !== 'READ')
      this.underLease(`ctx.call of ${classId}.${method}`);
    const frame = { classId: this.classId, instanceId: this.instanceId, exclusive: KIND_CAN_WRITE[this.kind] };
    return this.host.call({
      classId,
      method,
      instanceId,
      body,
      identity: this.asClass(),
      origin: 'class',
      requestId: this.req.requestId,
      chain: [...(this.req.chain ?? []), frame],
    });
  }

  schedule(task: ScheduleRequest): void {
    if (!this.tasks) throw runtimeError('READ_ONLY', `${this.classId}.${this.method} (READ) cannot schedule tasks`);
    if (!Number.isFinite(task.delaySeconds) || task.delaySeconds < 0) throw new Error('delaySeconds must be >= 0');
    const classId = task.classId ?? this.classId;
    const instanceId = task.instanceId ?? (classId === this.classId ? this.instanceId : undefined);
    this.tasks.push({
      id: randomUUID(),
      classId,
      method: task.method,
      instanceId,
      body: task.body,
      delayMs: Math.round(task.delaySeconds * 1000),
      identity: this.asClass(),
    });
  }

  emit(name: string, payload?: unknown): void {
    if (!this.events) throw runtimeError('READ_ONLY', `${this.classId}.${this.method} (READ) cannot emit events`);
    this.events.push({ name, payload });
  }
}
