/**
 * Idle kept-alive connections outlive a load balancer's idle time-out (60 s on
 * the common ones), so the balancer closes them, never the service just as a
 * request is sent on one. Real HTTP: the answer announces the time-out.
 */
import * as http from 'node:http';
import { startTestRuntime, type TestRuntime } from '../support/harness';

let t: TestRuntime;
beforeAll(async () => {
  t = await startTestRuntime();
});
afterAll(() => t.stop());

test('an answer keeps its connection alive for 65 s', async () => {
  const agent = new http.Agent({ keepAlive: true });
  try {
    const headers = await new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
      http
        .get(`${t.base}/health`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.headers));
        })
        .on('error', reject);
    });
    expect(headers.connection).toBe('keep-alive');
    expect(headers['keep-alive']).toBe('timeout=65');
  } finally {
    agent.destroy();
  }
});
