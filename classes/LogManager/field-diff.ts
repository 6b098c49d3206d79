/** The field-level diff is the platform's (classes/_platform/field-diff.ts), shared by logChange and LogManager's entries. */
export * from '../_platform/field-diff';
