/**
 * What an operator sees of stored data, masked the same wherever they look
 * (`cli inspect`, the operator console): every field the logger treats as a
 * secret and the class's sensitiveFields, at any depth. Pure, and imports
 * only the logger's paths, so both can use it without an import cycle.
 */
import { REDACT_PATHS } from './logger';

const MASK = '[masked]';

/** the field names masked everywhere: the class's sensitiveFields and the logger's `*.field` paths */
export function maskedFields(sensitiveFields: readonly string[] = []): Set<string> {
  const fromLogger = REDACT_PATHS.filter((p) => p.startsWith('*.')).map((p) => p.slice(2));
  return new Set([...fromLogger, ...sensitiveFields]);
}

/** A copy of `value` with every property named in `fields` (at any depth) masked. */
export function maskFields(value: unknown, fields: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => maskFields(v, fields));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = fields.has(k) ? MASK : maskFields(v, fields);
    return out;
  }
  return value;
}
