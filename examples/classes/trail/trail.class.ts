/**
 * Example class: leaves a trace in each of the runtime's records of past
 * calls (a journal entry, finished and scheduled jobs, mail and SMS, a
 * dead-lettered effect) and forgets a person's values in all of them through
 * ctx.ports.traces. test/runtime/traces*.test.ts use it. Served only when its
 * folder is listed in CLASS_DIRS.
 */
import {
  ActorClass,
  ActorError,
  Init,
  QueuedWrite,
  Static,
  Write,
  type Ctx,
  type MailMessage,
  type SmsMessage,
  type StateOf,
  type StaticCtx,
  type TraceErasure,
} from '../../../runtime';

type TrailState = StateOf<{ notes: string[] }>;

interface TellBody {
  mail?: MailMessage;
  sms?: SmsMessage;
  /** an effect on an instance that does not exist: refused by its target, so dead-lettered with this body */
  lostNote?: string;
}

const ANYONE = ['integration_user', 'class'] as const;

@ActorClass<TrailState>({ id: 'Trail', description: 'An example of the traces calls leave, and of forgetting them' })
export class Trail {
  @Init({ access: [...ANYONE], schema: false })
  open(ctx: Ctx<TrailState>) {
    ctx.state.private.notes = [];
    return { id: ctx.instanceId };
  }

  /** sends what the body names: each is a committed effect of this change */
  @Write({ access: [...ANYONE], schema: false })
  async tell(ctx: Ctx<TrailState, TellBody>) {
    const { mail, sms, lostNote } = ctx.request.body;
    const sent: Record<string, string> = {};
    if (mail) sent.mail = await ctx.mail.send(mail);
    if (sms) sent.sms = await ctx.sms.send(sms);
    if (lostNote !== undefined)
      sent.effect = await ctx.effect({
        classId: 'Trail',
        method: 'absorb',
        instanceId: `${ctx.instanceId}-nobody`,
        body: { note: lostNote },
      });
    return sent;
  }

  /** the target of tell's effect */
  @Write({ access: [...ANYONE], schema: false })
  absorb(ctx: Ctx<TrailState, { note: string }>) {
    ctx.state.private.notes.push(ctx.request.body.note);
    return { kept: ctx.request.body.note };
  }

  /** a job whose data and answer hold the note; `refuse`: it fails for good (not retried) */
  @QueuedWrite({ access: [...ANYONE], schema: false, attempts: 1 })
  keep(ctx: Ctx<TrailState, { note: string; refuse?: boolean }>) {
    const { note, refuse } = ctx.request.body;
    if (refuse) throw new ActorError(400, 'REFUSED', 'refused on purpose');
    ctx.state.private.notes.push(note);
    return { kept: note };
  }

  /** a delayed task holding the note: work not done yet */
  @Write({ access: [...ANYONE], schema: false })
  later(ctx: Ctx<TrailState, { note: string; delaySeconds: number }>) {
    const { note, delaySeconds } = ctx.request.body;
    ctx.schedule({ method: 'keep', delaySeconds, body: { note } });
    return { scheduled: true };
  }

  /** a journaled call: its entry names its subject */
  @Static({
    access: ['integration_user'],
    schema: false,
    journal: {
      name: 'trail',
      subjectField: 'subject',
      describe: ({ body }) => ({ subject: (body as { subject?: string } | undefined)?.subject }),
    },
  })
  record(ctx: StaticCtx<{ subject: string }>) {
    return { subject: ctx.request.body.subject };
  }

  /** forgets `values` in the runtime's records of past calls */
  @Static({ access: ['integration_user'], timeoutSeconds: 30 })
  forget(ctx: StaticCtx<{ values: string[] }>): Promise<TraceErasure> {
    return ctx.ports.traces.forget(ctx.request.body.values);
  }
}
