/** listApprovals: the streamed `approvals` collection, newest first; `actionable: true` is open to every approver. */
import type { StaticCtx } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { listedDocument, pageInfo } from '../../_platform/paging';
import type { ListApprovalsInput } from '../../../schemas/ApprovalManager/inputs';
import { buildListFilter, LIST_APPROVALS, listingRow, listQuery } from '../rules';
import { requirePermissionUnless } from './common';

export async function listApprovals(ctx: StaticCtx<ListApprovalsInput>) {
  const q = listQuery(ctx.request.body);
  await requirePermissionUnless(
    ctx,
    q.actionable,
    'only the actionable listing (actionable: true) is open to approvers without it',
  );
  const filter = buildListFilter(q, actorFromIdentity(ctx.identity), q.actionable ? await ctx.roles() : []);
  const found = await ctx.documents.find<Record<string, unknown>>('approvals', filter, {
    sort: LIST_APPROVALS.sort,
    skip: (q.page - 1) * q.limit,
    limit: q.limit,
  });
  const approvals = found.items.map((doc) => listingRow(listedDocument(doc)));
  return { approvals, ...pageInfo(found.total, q.page, q.limit) };
}
