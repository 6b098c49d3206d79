/** What the LogManager tests share: a method schema's check of a GET query, as the runtime makes it. */

/**
 * A method's input as the runtime makes it from a GET query (`asQuery`; a
 * POST body is checked as sent) and the fields its schema refuses.
 */
export { schemaRefusal } from '../support/schema-check';
