/**
 * The CALL path, `/<projectId>/CALL/<ClassId>/<method>[/<instanceId>]`,
 * parsed here and nowhere else: as express's router would match
 * `/:projectId/CALL/:classId/:method{/:instanceId}` (path-to-regexp 8:
 * case-insensitive, an optional trailing slash, parameters URI-decoded).
 */

export interface CallParams {
  projectId: string;
  classId: string;
  method: string;
  instanceId?: string;
}

const CALL_ROUTE = /^\/([^/]+)\/CALL\/([^/]+)\/([^/]+)(?:\/([^/]+))?\/?$/i;

/**
 * The call a request path names, or undefined when it is not a CALL path.
 * Throws a 400 URIError (as express's router does) when a segment is
 * malformed percent-encoding.
 */
export function parseCallPath(path: string): CallParams | undefined {
  const m = CALL_ROUTE.exec(path);
  if (m === null) return undefined;
  return {
    projectId: decodeParam(m[1]),
    classId: decodeParam(m[2]),
    method: decodeParam(m[3]),
    instanceId: m[4] === undefined ? undefined : decodeParam(m[4]),
  };
}

/** a path parameter, URI-decoded as express's router does it (a malformed one is a 400) */
function decodeParam(value: string): string {
  // nothing escaped (the usual case): decodeURIComponent would answer the same string
  if (value.indexOf('%') === -1) return value;
  try {
    return decodeURIComponent(value);
  } catch (err) {
    if (err instanceof URIError) {
      err.message = `Failed to decode param '${value}'`;
      (err as URIError & { status?: number }).status = 400;
    }
    throw err;
  }
}
