/** Test fixture: a journaled method (MethodOptions.journal) and a reader of its journal. */
import { ActorClass, ActorError, Static, type StaticCtx } from '../../../../runtime';

interface Push {
  record: string;
  company?: string;
  secret?: string;
  fail?: 'domain' | 'crash';
}

@ActorClass({ id: 'Ledgered', description: 'call journal fixture', tenancy: { kind: 'shared' } })
export class Ledgered {
  @Static({
    access: ['integration_user'],
    schema: false,
    journal: {
      name: 'pushes',
      subjectField: 'record',
      tenantField: 'company',
      // ids and field names only: `secret` never reaches the journal
      describe: ({ body, answer }) => {
        const b = (body ?? {}) as Partial<Push>;
        return {
          record: b.record,
          company: b.company,
          fields: Object.keys(b)
            .filter((k) => k !== 'secret')
            .sort(),
          echoed: (answer as { echoed?: boolean } | undefined)?.echoed ?? false,
        };
      },
    },
  })
  push(ctx: StaticCtx<Push>) {
    const b = ctx.request.body;
    if (typeof b.record !== 'string') throw new ActorError(400, 4001, 'record is required');
    if (b.fail === 'domain') throw new ActorError(404, 4004, `no record ${b.record}`);
    if (b.fail === 'crash') throw new Error('handler crashed');
    return { echoed: true, record: b.record };
  }

  @Static({ access: ['integration_user', 'enduser'], schema: false })
  ledger(ctx: StaticCtx<{ journal?: string } & Record<string, unknown>>) {
    const { journal, ...query } = ctx.request.body;
    return ctx.journals.list(journal ?? 'pushes', query);
  }
}
