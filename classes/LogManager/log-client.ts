/** logChange is the platform's audit logging (classes/_platform/audit-log.ts); this path stays for the classes that import it here. */
export * from '../_platform/audit-log';
