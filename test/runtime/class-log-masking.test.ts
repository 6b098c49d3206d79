/**
 * A class's `sensitiveFields` are masked in what its handlers log (ctx.log),
 * at the top level and one level down, beside the runtime's own credential
 * paths. Real runtime, real log lines.
 */
import * as path from 'node:path';
import { loadConfig } from '../../runtime/config';
import { Runtime } from '../../runtime/runtime';
import { EXAMPLE_CLASS_DIR, TEST_API_KEY, testEnv, waitFor } from '../support/harness';
import { capturedLogger } from '../support/log-lines';
import { uniqueProjectId } from '../support/redis';

let rt: Runtime;
let base: string;
let projectId: string;
const { lines, logger } = capturedLogger();

beforeAll(async () => {
  projectId = uniqueProjectId('mask');
  const env = testEnv(projectId, { CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'log-fixtures')}` });
  rt = await Runtime.create(loadConfig(env), env.REDIS_URL, { logger });
  base = `http://127.0.0.1:${await rt.start(0)}`;
});
afterAll(() => rt?.stop());

test("a handler's log line masks the class's sensitive fields and the runtime's credentials, and keeps the rest", async () => {
  const res = await fetch(`${base}/${projectId}/CALL/Secretive/logBody`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY },
    body: JSON.stringify({ cardNumber: '4111111111111111', pin: '1234', password: 'hunter2hunter2', name: 'Ann' }),
  });
  expect(res.status).toBe(200);
  const line = (await waitFor(() => lines.find((l) => l.msg === 'secretive body'), { what: 'the log line' }))!;
  expect(line.cardNumber).toBe('[masked]');
  expect(line.body).toEqual({ cardNumber: '[masked]', pin: '[masked]', password: '[masked]', name: 'Ann' });
  expect(JSON.stringify(lines)).not.toContain('4111111111111111');
});
