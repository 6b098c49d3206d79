/**
 * One email format for what classes check themselves (configuration, what an
 * identity provider asserts): the format the request schemas use
 * (`"format": "email"`, ajv-formats), so a value is an email here exactly when
 * it would be one in a request. Recipients of a mail are checked by the mail
 * port's own rule instead (runtime isMailAddress), which decides what can be sent.
 */
import { fullFormats } from 'ajv-formats/dist/formats';

const FORMAT = fullFormats.email as RegExp;

export function isEmail(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 254 && FORMAT.test(value);
}
