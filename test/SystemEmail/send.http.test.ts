/**
 * sendSystemEmail's refusals over real Redis and HTTP: an inactive template,
 * no recipient, parameters missing or not strings, and callers that are no
 * class. Mails that arrive at an SMTP server: system-email.smtp.test.ts.
 */
import { ActorError } from '../../runtime/errors';
import type { TestRuntime } from '../support/harness';
import { bearer, freshId, MEMBER_CLASS, send, startSystemEmailRuntime, templateBody, writeRoles } from './support';

let t: TestRuntime;

beforeAll(async () => {
  t = await startSystemEmailRuntime();
  await writeRoles(t);
});
afterAll(() => t.stop());

async function created(extra: Record<string, unknown> = {}): Promise<string> {
  const id = freshId('SEND');
  await t.rt.call('SystemEmail', 'createSystemEmailTemplate', id, templateBody(id, extra));
  return id;
}

describe('sendSystemEmail', () => {
  test('an inactive template sends nothing (409 11005)', async () => {
    const id = await created({ status: 'inactive' });
    const { enqueued, outcome } = await send(t, id, { parameters: { name: 'Ann', code: '1' } });
    expect(enqueued.status).toBe(202);
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { status: 409, body: { code: 11005, classId: 'SystemEmail' } },
    });
  });

  test('every parameter the template uses must be given: the missing ones are listed (400 11008)', async () => {
    const id = await created();
    const { outcome } = await send(t, id, { parameters: { other: 'x' } });
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { status: 400, body: { code: 11008, details: { missing: ['name', 'code'] } } },
    });
  });

  test('a parameter that is not a string is refused before anything is queued, naming it', async () => {
    const id = await created();
    const err = await t.rt
      .call(
        'SystemEmail',
        'sendSystemEmail',
        id,
        { parameters: { name: 'Ann', code: 42 } },
        { identity: MEMBER_CLASS, origin: 'class' },
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ActorError);
    expect((err as ActorError).status).toBe(400);
    expect(JSON.stringify((err as ActorError).toBody())).toContain('parameters');
    expect(JSON.stringify((err as ActorError).toBody())).toContain('code');
  });

  test('no recipient in the call or the template (400 11006)', async () => {
    const id = await created({ to: [] });
    const { outcome } = await send(t, id, { parameters: { name: 'Ann', code: '1' } });
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { status: 400, body: { code: 11006, details: { errors: [{ field: 'to' }] } } },
    });
  });

  test('classes send; program management users do not', async () => {
    const id = await created();
    const r = await t.post(
      `/${t.projectId}/CALL/SystemEmail/sendSystemEmail/${id}`,
      { parameters: { name: 'Ann', code: '1' } },
      bearer(t, 'pm1', ['super']),
    );
    expect([r.status, r.body.code]).toEqual([403, 1008]);
  });
});
