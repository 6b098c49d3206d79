/**
 * A message a handler sends becomes a committed effect of its change (see
 * runtime/actor/effects.ts): checked now, given its id now, written to the
 * effect stream by the commit and handed to the delivery queue after it.
 */
import { randomUUID } from 'node:crypto';
import type { Effect } from '../actor/effects';
import type { Identity } from '../types/identity';
import { checkMail, checkSms, type OutboundMail, type OutboundPort, type OutboundSms } from './message';

export function outboundEffect(port: OutboundPort, message: unknown, identity: Identity): Effect {
  const id = randomUUID();
  const body: OutboundMail | OutboundSms =
    port === 'mail' ? { ...checkMail(message), id } : { ...checkSms(message), id };
  return { id, port, classId: `@${port}`, method: 'send', instanceId: id, body, identity };
}
