/** What a class declares about each method (the decorators' options). */
import type { ActorError } from '../errors';
import type { MethodJournal } from '../actor/journal';
import type { RequestInfo } from './calls';
import type { AccessRule, Identity } from './identity';

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
