/**
 * Benchmark fixture (bench/notify.bench.ts): one STATIC call that asks
 * NotificationManager.sendNotification (a class-only WRITE) for one send to
 * `count` members, each with a mail address and an inbox, built here so the
 * HTTP body stays small. Loaded only by the benchmark (CLASS_DIRS=classes,bench/classes).
 */
import { ActorClass, Static, client, type StaticCtx } from '../../../runtime';
import type { NotificationManager } from '../../../classes/NotificationManager/NotificationManager.class';

interface SendBody {
  templateId: string;
  count: number;
  /** which recipients: `email`, `in_app` or both */
  channels: ('email' | 'in_app')[];
  /** the send's mark: the `name` parameter, so each inbox item and mail of this send can be told apart */
  tag: string;
}

/** member i's inbox and mail address, as the benchmark checks them */
export const benchInbox = (i: number) => `Mbench${i}`;
export const benchAddress = (i: number) => `member${i}@bench.example`;

@ActorClass({ id: 'NotifyBench' })
export class NotifyBench {
  @Static({ access: ['integration_user'], schema: false })
  async send(ctx: StaticCtx<SendBody>) {
    const { templateId, count, channels, tag } = ctx.request.body;
    const to: string[] = [];
    for (let i = 0; i < count; i++) {
      if (channels.includes('email')) to.push(benchAddress(i));
      if (channels.includes('in_app')) to.push(benchInbox(i));
    }
    await client<typeof NotificationManager>(ctx, 'NotificationManager').sendNotification(templateId, {
      to,
      parameters: { name: tag, loginUrl: 'https://bench.example/login' },
    });
    return { recipients: count, to: to.length };
  }
}
