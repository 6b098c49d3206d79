/** The runtime's public API for classes. Classes import from here only. */
export { ActorClass, Init, Read, Write, QueuedWrite, Static, Internal } from './actor/decorators';
export { client } from './actor/client';
export type { AnswerOf, ClassClient, ClientMethod, InputOf } from './actor/client';
export type { CallResult, EffectRequest, RequestInfo, ScheduleRequest } from './types/calls';
export type { ClassOptions, RouteAlias, RoleProviderOptions, TenancyOptions } from './types/classes';
export type { BaseCtx, Ctx, ReadCtx, ReadLookupApi, LookupApi, StaticCtx, TenancyApi } from './types/context';
export type { DocumentGauge, ProjectedDocument } from './types/documents';
export type {
  AccessRule,
  Identity,
  IdentitySourceAnswer,
  IdentitySourceOptions,
  IdentityType,
  TokenIdentityType,
} from './types/identity';
export type { MethodKind } from './types/kinds';
export type { RateLimit, RateLimitResult, RateLimits } from './types/limits';
export type { MailMessage, MessageSender, SmsMessage } from './types/mail';
export type { FieldError, MethodOptions } from './types/methods';
export type { CatalogueMethod, TraceEraser, TraceErasure, TraceStore } from './types/ports';
export type { RoleDefinition, RolePublisher, RoleSnapshot } from './types/roles';
export type { DeepReadonly, InstanceState, StateOf } from './types/state';
export type { IssuedToken, TokenIssueRequest, TokenIssuer } from './types/tokens';
export {
  ActorError,
  classError,
  classErrorCode,
  errorFactory,
  isClassError,
  isNotDeployed,
  isUnknownInstance,
  RuntimeCodes,
  UNKNOWN_INSTANCE_CODE,
} from './errors';
export type { RuntimeCode } from './errors';
/** the codes of the Idempotency-Key refusals (409 still running, 422 another request), for a class's error envelope */
export { IDEMPOTENCY_IN_PROGRESS, IDEMPOTENCY_MISMATCH } from './http/idempotency';
export { projectRoot } from './config';
/** is this a plain address the mail port sends to (local@domain)? */
export { isAddress as isMailAddress } from './mail/message';
/** server-rendered pages a class folder contributes (`*.pages.ts`) */
export type {
  PageAnswer,
  PageCallOptions,
  PageCallResult,
  PageCtx,
  PageHandler,
  PageModule,
  PageRoute,
  PageSite,
  PageAsset,
} from './http/pages';
export { rolesGrant } from './auth/access';
export type { DocumentStore, Filter, FindOptions, FindResult, IndexSpec, PageResult } from './stream/document-store';
export type { ListingSpec } from './stream/listing';
export type {
  JournalCall,
  JournalEntry,
  JournalPage,
  JournalQuery,
  JournalReader,
  JournalValue,
  MethodJournal,
} from './actor/journal';

/** A long class-contributed CLI command's progress on stderr: a bar on a terminal, a line every few seconds otherwise. */
export { progress } from './cli-progress';
export type { CliProgress, CliProgressOptions } from './cli-progress';

/** What class-contributed CLI commands (`*.cli.ts`) get to run against a runtime. */
export type WithRuntime = <T>(fn: (rt: import('./runtime').Runtime) => Promise<T>) => Promise<T>;
