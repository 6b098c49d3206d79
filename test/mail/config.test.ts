/** The mail settings of the configuration: read, checked, and refused with a message that names the variable. */
import { loadConfig } from '../../runtime/config';

const base = { PROJECT_ID: 'mailcfg' };

test('defaults: the embedded adapter, a local sender, 8 attempts from 2 s, 10 at once', () => {
  const c = loadConfig(base);
  expect(c.smtpUrl).toBeUndefined();
  expect(c).toMatchObject({
    mailFrom: 'no-reply@localhost',
    mailAttempts: 8,
    mailBackoffMs: 2000,
    mailConcurrency: 10,
  });
});

test('SMTP_URL must be an smtp:// or smtps:// URL with a host; a bad one is never echoed (it may hold a password)', () => {
  expect(loadConfig({ ...base, SMTP_URL: 'smtps://user:secret@mail.example.com:465' }).smtpUrl).toBe(
    'smtps://user:secret@mail.example.com:465',
  );
  expect(loadConfig({ ...base, SMTP_URL: 'smtp://127.0.0.1:2525?pool=false' }).smtpUrl).toBe(
    'smtp://127.0.0.1:2525?pool=false',
  );
  expect(() => loadConfig({ ...base, SMTP_URL: 'http://user:secret@mail.example.com' })).toThrow(
    /SMTP_URL must start with smtp:\/\/ or smtps:\/\//,
  );
  expect(() => loadConfig({ ...base, SMTP_URL: 'not a url secret' })).toThrow(/SMTP_URL must be a URL/);
  for (const bad of ['http://user:secret@mail.example.com', 'not a url secret']) {
    try {
      loadConfig({ ...base, SMTP_URL: bad });
    } catch (err) {
      expect((err as Error).message).not.toContain('secret');
    }
  }
});

test('MAIL_FROM is an address or Name <address>', () => {
  expect(loadConfig({ ...base, MAIL_FROM: 'Membership <no-reply@example.com>' }).mailFrom).toBe(
    'Membership <no-reply@example.com>',
  );
  expect(() => loadConfig({ ...base, MAIL_FROM: 'nobody' })).toThrow(/MAIL_FROM must be a mail address/);
});

test('attempts, backoff and concurrency are bounded integers', () => {
  expect(loadConfig({ ...base, MAIL_ATTEMPTS: '1', MAIL_BACKOFF_MS: '10', MAIL_CONCURRENCY: '1000' })).toMatchObject({
    mailAttempts: 1,
    mailBackoffMs: 10,
    mailConcurrency: 1000,
  });
  expect(() => loadConfig({ ...base, MAIL_ATTEMPTS: '0' })).toThrow(/MAIL_ATTEMPTS must be an integer >= 1/);
  expect(() => loadConfig({ ...base, MAIL_ATTEMPTS: '101' })).toThrow(/MAIL_ATTEMPTS must be at most 100/);
  expect(() => loadConfig({ ...base, MAIL_BACKOFF_MS: '5' })).toThrow(/MAIL_BACKOFF_MS/);
  expect(() => loadConfig({ ...base, MAIL_CONCURRENCY: 'many' })).toThrow(/MAIL_CONCURRENCY/);
});

test('production needs SMTP_URL: the embedded adapter would show every sign-in code on an unauthenticated page', () => {
  expect(() => loadConfig({ ...base, NODE_ENV: 'production' })).toThrow(/SMTP_URL must be set in production/);
  expect(loadConfig({ ...base, NODE_ENV: 'production', SMTP_URL: 'smtp://mail.example.com:587' }).smtpUrl).toBe(
    'smtp://mail.example.com:587',
  );
});
