/**
 * A local HTTP server playing the HR system of spec 4.4 (node:http): employee
 * detail lookup and member-id update, with scriptable slow and failing answers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../support/harness';

export interface HrRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

/**
 * What to do with the next requests of a path: answer, or hang for `delayMs`
 * first; `hold` keeps the request unanswered until its caller goes away (a
 * killed process) or release() lets it go on.
 */
export interface Scripted {
  status?: number;
  body?: unknown;
  raw?: string;
  delayMs?: number;
  hold?: boolean;
}

export class FakeHr {
  readonly requests: HrRequest[] = [];
  readonly employees = new Map<string, Record<string, unknown>>();
  readonly memberIds = new Map<string, string>();
  /** answers used before the normal behaviour, per path, in order */
  readonly script = new Map<string, Scripted[]>();
  private server?: Server;
  private readonly holding = new Set<() => void>();
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** lets every held request go on (answered as scripted, or as usual) */
  release(): void {
    for (const go of [...this.holding]) go();
  }

  async stop(): Promise<void> {
    this.release();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** queue scripted answers for a path */
  answer(path: string, ...answers: Scripted[]): this {
    this.script.set(path, [...(this.script.get(path) ?? []), ...answers]);
    return this;
  }

  count(path: string): number {
    return this.requests.filter((r) => r.path === path).length;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    const path = req.url ?? '';
    this.requests.push({ path, headers: req.headers, body });
    const send = (status: number, payload: unknown, raw?: string) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(raw ?? JSON.stringify(payload));
    };
    const scripted = this.script.get(path)?.shift();
    if (scripted) {
      if (scripted.delayMs) await new Promise((r) => setTimeout(r, scripted.delayMs));
      if (scripted.hold) {
        await new Promise<void>((resolve) => {
          const go = () => {
            this.holding.delete(go);
            resolve();
          };
          this.holding.add(go);
          res.once('close', go);
        });
        // the caller went away while held: nothing reaches it, and nothing is done for it
        if (res.destroyed || res.writableEnded || req.socket.destroyed) return;
      }
      if (scripted.status !== undefined || scripted.raw !== undefined) {
        send(scripted.status ?? 200, scripted.body ?? {}, scripted.raw);
        return;
      }
    }
    if (path === '/employees/lookup') {
      const e = this.employees.get(String(body?.email ?? '').toLowerCase());
      if (!e) send(404, { message: 'not found' });
      else send(200, e);
      return;
    }
    if (path === '/employees/member-id') {
      if (!body?.employeeId || !body?.memberId) send(400, { success: false });
      else {
        this.memberIds.set(body.employeeId, body.memberId);
        send(200, { success: true });
      }
      return;
    }
    send(404, { message: 'no route' });
  }
}

/**
 * A crash while the HR system holds a member-id update: the next update of
 * `hr` is held, `call` is sent to the service process `proc`, and once the
 * update has reached `hr` the process is killed. Answers what became of the
 * call: `failed` when its caller got no answer (its connection went with the
 * process).
 */
export async function killWhileMemberIdHeld(
  hr: FakeHr,
  proc: { kill(): Promise<void> },
  call: () => Promise<unknown>,
): Promise<{ answered: unknown } | { failed: unknown }> {
  const path = '/employees/member-id';
  const before = hr.count(path);
  hr.answer(path, { hold: true });
  const answer = call().then(
    (r) => ({ answered: r }),
    (err: unknown) => ({ failed: err }),
  );
  await waitFor(() => hr.count(path) === before + 1, {
    timeoutMs: 30_000,
    what: 'the member-id update reaching the HR system',
  });
  await proc.kill();
  return answer;
}

export function hrEmployee(employeeId: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    employeeId,
    birthdate: '1990-01-01',
    email: `${employeeId.toLowerCase()}@example.com`,
    name: 'Grace',
    surname: 'Hopper',
    phone: '+1555',
    grade: 'G3',
    isCabinCrew: false,
    employmentType: 'Permanent',
    companyId: 'BG1',
    status: 'Active',
    lastStatusUpdatedAt: '2024-01-01T00:00:00Z',
    address: '1 Navy Yard',
    country: 'US',
    dependants: [],
    ...over,
  };
}
