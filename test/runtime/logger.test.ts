import { Writable } from 'node:stream';
import { createLogger } from '../../runtime/logger';

test('credentials and secrets are masked in log lines', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const log = createLogger('info', ['profile.birthdate'], sink);
  log.info(
    {
      headers: { authorization: 'Bearer abc.def.ghi', 'x-api-key': 'key-123' },
      body: { password: 'hunter2', otp: '123456', name: 'Ann' },
      profile: { birthdate: '1990-01-01' },
    },
    'request',
  );
  const entry = JSON.parse(lines[0]);
  expect(entry.headers).toEqual({ authorization: '[masked]', 'x-api-key': '[masked]' });
  expect(entry.body).toEqual({ password: '[masked]', otp: '[masked]', name: 'Ann' });
  expect(entry.profile.birthdate).toBe('[masked]');
});
