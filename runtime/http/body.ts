/**
 * The JSON body parser. Its size limit is BODY_LIMIT, or the smaller
 * MethodOptions.bodyLimit of the method the request addresses (through the
 * CALL path or a route alias), chosen before a byte is read and left in
 * res.locals.bodyLimit (for the error's message). Right after parsing, a body nested deeper than
 * MAX_JSON_DEPTH is refused (BODY_TOO_DEEP), iteratively, before any
 * handler or schema validation walks it recursively.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { runtimeError } from '../errors';
import type { ClassRegistry, RegisteredMethod } from '../actor/registry';
import { nestedDeeperThan, parseByteSize } from './body-guards';

export interface BodyLimit {
  bytes: number;
  label: string;
}

export class BodyParsers {
  readonly globalLimit: BodyLimit;
  private readonly maxJsonDepth: number;
  /** methods whose own limit is below the global one */
  private readonly methodLimits = new Map<RegisteredMethod, BodyLimit>();
  private readonly parsers = new Map<number, express.RequestHandler>();
  /** methods with `formBody`: a form-encoded body is parsed as a form (one flat level of strings), any other as JSON */
  private readonly formParsers = new Map<number, express.RequestHandler>();

  constructor(registry: ClassRegistry, bodyLimit: string, maxJsonDepth: number | undefined) {
    this.globalLimit = { bytes: parseByteSize(bodyLimit), label: bodyLimit };
    this.maxJsonDepth = maxJsonDepth ?? 64;
    for (const cls of registry.list()) {
      for (const m of cls.methodsByName.values()) {
        const own = m.options.bodyLimit;
        if (own === undefined) continue;
        let bytes: number;
        try {
          bytes = parseByteSize(own);
        } catch (err) {
          throw new Error(`${cls.id}.${m.name}: bodyLimit: ${(err as Error).message}`, { cause: err });
        }
        if (bytes < this.globalLimit.bytes) this.methodLimits.set(m, { bytes, label: String(own) });
      }
    }
  }

  /** the method's own limit, when it is below the global one */
  limitOf(method: RegisteredMethod): BodyLimit | undefined {
    return this.methodLimits.get(method);
  }

  /** the limit chosen for this request (res.locals.bodyLimit), else the global one */
  limitFor(res: Response): BodyLimit {
    return (res.locals.bodyLimit as BodyLimit | undefined) ?? this.globalLimit;
  }

  /** Parses the body under `limit` (a form too when `form`), refuses one nested too deep, then `then`. */
  parse(req: Request, res: Response, next: NextFunction, limit: BodyLimit, then: () => void, form = false): void {
    (form ? this.formParserFor(limit.bytes) : this.parserFor(limit.bytes))(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (nestedDeeperThan(req.body, this.maxJsonDepth)) {
        return next(
          runtimeError('BODY_TOO_DEEP', `JSON body nested deeper than ${this.maxJsonDepth} levels`, {
            maxDepth: this.maxJsonDepth,
          }),
        );
      }
      then();
    });
  }

  private parserFor(bytes: number): express.RequestHandler {
    let parser = this.parsers.get(bytes);
    if (!parser) this.parsers.set(bytes, (parser = express.json({ limit: bytes, type: () => true, strict: false })));
    return parser;
  }

  private formParserFor(bytes: number): express.RequestHandler {
    let parser = this.formParsers.get(bytes);
    if (!parser) {
      const form = express.urlencoded({ limit: bytes, extended: false, parameterLimit: 100 });
      const json = this.parserFor(bytes);
      parser = (req, res, next) => {
        if (!req.is('application/x-www-form-urlencoded')) return json(req, res, next);
        form(req, res, (err?: unknown) => {
          if (err) return next(err);
          // querystring's object: a repeated field is an array; the last value counts, as a form's does
          const fields = Object.create(null) as Record<string, string>;
          for (const [k, v] of Object.entries(req.body as Record<string, string | string[]>))
            fields[k] = Array.isArray(v) ? v[v.length - 1] : v;
          req.body = fields;
          next();
        });
      };
      this.formParsers.set(bytes, parser);
    }
    return parser;
  }
}
