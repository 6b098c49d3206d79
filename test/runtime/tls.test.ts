/**
 * TLS_CERT / TLS_KEY: the service serves HTTPS only, with TLS 1.2 or later
 * (spec 5: HTTPS only). Real TLS handshakes against the runtime's port.
 */
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';
import * as tls from 'node:tls';
import * as http from 'node:http';
import { loadConfig, tlsFiles } from '../../runtime/config';
import { createLogger } from '../../runtime/logger';
import { Runtime } from '../../runtime/runtime';
import { testEnv } from '../support/harness';
import { uniqueProjectId } from '../support/redis';

const DIR = path.join(__dirname, '..', 'fixtures', 'tls');
const CERT = path.join(DIR, 'cert.pem');
const KEY = path.join(DIR, 'key.pem');
const ca = fs.readFileSync(CERT);

function get(url: string, options: https.RequestOptions = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const mod = url.startsWith('https:') ? https : http;
    const req = mod.get(url, options, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

describe('TLS configuration', () => {
  it('reads both files, or neither; one without the other stops the start', () => {
    expect(tlsFiles({})).toBeUndefined();
    expect(tlsFiles({ TLS_CERT: CERT, TLS_KEY: KEY })?.cert.toString()).toContain('BEGIN CERTIFICATE');
    expect(() => tlsFiles({ TLS_CERT: CERT })).toThrow('TLS_KEY is unset');
    expect(() => tlsFiles({ TLS_KEY: KEY })).toThrow('TLS_CERT is unset');
    expect(() => tlsFiles({ TLS_CERT: path.join(DIR, 'missing.pem'), TLS_KEY: KEY })).toThrow('TLS_CERT: cannot read');
  });
});

describe('a runtime with TLS_CERT and TLS_KEY', () => {
  let rt: Runtime;
  let port: number;

  beforeAll(async () => {
    const env = testEnv(uniqueProjectId('tls'), { TLS_CERT: CERT, TLS_KEY: KEY });
    rt = await Runtime.create(loadConfig(env), env.REDIS_URL, { logger: createLogger('silent') });
    port = (await rt.start(0))!;
  });

  afterAll(async () => {
    await rt?.stop();
  });

  it('answers over HTTPS', async () => {
    const res = await get(`https://127.0.0.1:${port}/health`, { ca });
    expect(res.status).toBe(200);
  });

  it('refuses plain HTTP on the same port', async () => {
    await expect(get(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  });

  it('refuses TLS 1.1 and accepts TLS 1.2', async () => {
    const handshake = (version: tls.SecureVersion) =>
      new Promise<string>((resolve, reject) => {
        const socket = tls.connect(
          { host: '127.0.0.1', port, ca, minVersion: version, maxVersion: version, servername: 'localhost' },
          () => {
            const v = socket.getProtocol() ?? '';
            socket.end();
            resolve(v);
          },
        );
        socket.on('error', reject);
      });
    await expect(handshake('TLSv1.2')).resolves.toBe('TLSv1.2');
    await expect(handshake('TLSv1.1')).rejects.toThrow();
  });
});
