/**
 * A local HR system for trying `register-from-hr` without the real one (docs/hr-integration.md, "A local HR
 * system"): the contract of classes/Member/hr-client.ts (spec 4.4), over node:http, knowing the two employees
 * of examples/import/register-from-hr.csv with records the registration rules admit on top of
 * examples/seed.json (HR status Active, employment type Permanent → the seed's member type, company BG-100 →
 * the seed's Acme Airlines). Dev-only (scripts/ stays out of the image); nothing is stored: a restart forgets
 * the member ids it was sent.
 *
 *   npm run hr:demo [-- <port>]            (or: npx tsx scripts/hr-demo-server.ts [port]; default 4010, 0 = any free port)
 *   HR_API_KEY=<key> npm run hr:demo       requests must then carry it as x-api-key (401 otherwise), as the service sends it
 *
 *   POST /employees/lookup     {email}               → the employee (200), 404 when unknown (email case aside)
 *   POST /employees/member-id  {employeeId, memberId} → {success: true}; 404 for an unknown employee, 400 without both
 *   GET  /employees/member-ids                        → the member ids recorded so far, by employee id
 *
 * The first stdout line names the URL it listens on (`HR demo server listening on http://127.0.0.1:<port>`);
 * every request is logged on stdout after it. SIGINT or SIGTERM stops it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonSender, listen, portArgument, sameKey } from './demo-server';

/** an HR record: the two fields the demo keys on, the rest answered as it is */
interface DemoEmployee {
  employeeId: string;
  email: string;
  [field: string]: unknown;
}

/** the two employees of examples/import/register-from-hr.csv, as the HR lookup answers them */
export const DEMO_EMPLOYEES: DemoEmployee[] = [
  {
    employeeId: 'E3001',
    birthdate: '1992-03-14',
    email: 'nadia.karim@acme.example',
    name: 'Nadia',
    surname: 'Karim',
    phone: '+971500000201',
    grade: 'G5',
    isCabinCrew: false,
    employmentType: 'Permanent',
    companyId: 'BG-100',
    status: 'Active',
    lastStatusUpdatedAt: '2026-01-05T08:00:00Z',
    address: '12 Airport Road, Dubai',
    country: 'AE',
    dependants: [],
  },
  {
    employeeId: 'E3002',
    birthdate: '1987-11-02',
    email: 'omar.farouk@acme.example',
    name: 'Omar',
    surname: 'Farouk',
    phone: '+971500000202',
    grade: 'G7',
    isCabinCrew: true,
    employmentType: 'Permanent',
    companyId: 'BG-100',
    status: 'Active',
    lastStatusUpdatedAt: '2026-02-10T08:00:00Z',
    address: '4 Garhoud Street, Dubai',
    country: 'AE',
    dependants: [],
  },
];

export interface HrDemoOptions {
  /** default 4010; 0 picks a free port (the answer's `port` names it) */
  port?: number;
  host?: string;
  /** when set, a request without this x-api-key is refused with 401 */
  apiKey?: string;
  /** a line per request; default none */
  log?: (line: string) => void;
}

export interface HrDemo {
  url: string;
  port: number;
  /** member ids recorded through the member-id update, by employee id */
  memberIds: Map<string, string>;
  stop(): Promise<void>;
}

export async function startHrDemo(opts: HrDemoOptions = {}): Promise<HrDemo> {
  const host = opts.host ?? '127.0.0.1';
  const log = opts.log ?? (() => {});
  const byEmail = new Map(DEMO_EMPLOYEES.map((e) => [String(e.email).toLowerCase(), e]));
  const ids = new Set(DEMO_EMPLOYEES.map((e) => String(e.employeeId)));
  const memberIds = new Map<string, string>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '').split('?')[0];
    const send = jsonSender(req, res, log);
    if (opts.apiKey && !sameKey(req.headers['x-api-key'], opts.apiKey))
      return send(401, { message: 'missing or wrong x-api-key' });
    if (req.method === 'GET' && path === '/employees/member-ids') return send(200, Object.fromEntries(memberIds));
    if (path !== '/employees/lookup' && path !== '/employees/member-id') return send(404, { message: 'no route' });
    if (req.method !== 'POST') return send(405, { message: 'POST only' });
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      body = parsed as Record<string, unknown>;
    } catch {
      return send(400, { message: 'the body must be a JSON object' });
    }
    if (path === '/employees/lookup') {
      const email = typeof body.email === 'string' ? body.email : '';
      const employee = byEmail.get(email.trim().toLowerCase());
      return employee ? send(200, employee, email) : send(404, { message: 'not found' }, email);
    }
    const { employeeId, memberId } = body;
    if (typeof employeeId !== 'string' || !employeeId || typeof memberId !== 'string' || !memberId)
      return send(400, { success: false, message: 'employeeId and memberId are required' });
    if (!ids.has(employeeId)) return send(404, { success: false, message: `no employee ${employeeId}` }, employeeId);
    memberIds.set(employeeId, memberId);
    return send(200, { success: true }, `${employeeId} = ${memberId}`);
  };

  const server = await listen(handle, host, opts.port ?? 4010);
  return {
    url: server.url,
    port: server.port,
    memberIds,
    stop: server.stop,
  };
}

if (require.main === module) {
  const port = portArgument('HR_DEMO_PORT', '4010');
  const apiKey = process.env.HR_API_KEY || undefined;
  startHrDemo({ port, apiKey, log: (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`) }).then(
    (hr) => {
      process.stdout.write(`HR demo server listening on ${hr.url}\n`);
      process.stdout.write(
        `  employees: ${DEMO_EMPLOYEES.map((e) => `${e.employeeId} ${e.email}`).join(', ')}; ` +
          `${apiKey ? 'x-api-key required (HR_API_KEY)' : 'no API key checked (HR_API_KEY unset)'}\n`,
      );
      const stop = () => void hr.stop().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (err: Error) => {
      process.stderr.write(`HR demo server could not start: ${err.message}\n`);
      process.exit(1);
    },
  );
}
