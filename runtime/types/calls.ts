/** A call as a handler sees it: the request, the answer, and what it asks to happen later. */

/** The request a handler sees; `B` is the body its method declares (`Ctx<State, Input>`), `any` when it declares none. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a method that declares no input type gets its validated body untyped, as handlers written before typed inputs read it
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

export interface EmittedEvent {
  name: string;
  payload?: unknown;
}
