/** listHrLedger: the HR ledger (hr-ledger.ts), read from the runtime's call journal. */
import { HR_JOURNAL } from '../hr-ledger';
import type { MemberStaticCtx } from '../member-state';
import type { ListHrLedgerInput } from '../../../schemas/Member/inputs';

export async function listHrLedger(ctx: MemberStaticCtx<ListHrLedgerInput>) {
  const q = ctx.request.body;
  const page = await ctx.journals.list(HR_JOURNAL, {
    subject: q.employeeId,
    status: q.status,
    code: q.code,
    from: q.from,
    to: q.to,
    limit: q.limit ?? 20,
    cursor: q.cursor,
  });
  return { entries: page.entries, nextCursor: page.nextCursor ?? null, scanned: page.scanned };
}
