/**
 * Imported first by a test of the password hashing itself: the suite runs
 * with a cheaper SCRYPT_LOG_N (global-setup.js), and such a test checks the
 * parameters production hashes with. Module loading runs this before
 * classes/_platform/passwords.ts reads the variable.
 */
delete process.env.SCRYPT_LOG_N;
