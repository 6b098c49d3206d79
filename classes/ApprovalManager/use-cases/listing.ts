/** listApprovals: the streamed `approvals` collection, newest first; `actionable: true` is open to every approver. */
import type { Ctx, InstanceState } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { listedDocument, listingInput, pageInfo, problemsText } from '../../_platform/paging';
import { buildListFilter, LIST_APPROVALS, listingRow, parseListQuery } from '../rules';
import { approvalError } from '../errors';
import type { ListApprovalsBody } from '../types';
import { requirePermissionUnless } from './common';

/**
 * A STATIC has no instance state: its context is a `Ctx` of no state (as
 * listTiers's) because the shared listingInput takes a `Ctx`. The body is
 * ListApprovalsBody; a GET's query passes the same names as strings.
 */
export async function listApprovals(ctx: Ctx<InstanceState, ListApprovalsBody>) {
  const raw = listingInput(ctx);
  // judged before the filters, so a caller without the permission learns nothing from a 400
  const actionable = raw.actionable === true || raw.actionable === 'true';
  await requirePermissionUnless(
    ctx,
    actionable,
    'only the actionable listing (actionable: true) is open to approvers without it',
  );
  const parsed = parseListQuery(raw);
  if (!parsed.ok) {
    throw approvalError('APPROVAL_INVALID_QUERY', `Invalid listing: ${problemsText(parsed.errors)}`, {
      errors: parsed.errors,
    });
  }
  const q = parsed.query;
  const filter = buildListFilter(q, actorFromIdentity(ctx.identity), q.actionable ? await ctx.roles() : []);
  const found = await ctx.documents.find<Record<string, unknown>>('approvals', filter, {
    sort: LIST_APPROVALS.sort,
    skip: (q.page - 1) * q.limit,
    limit: q.limit,
  });
  const approvals = found.items.map((doc) => listingRow(listedDocument(doc)));
  return { approvals, ...pageInfo(found.total, q.page, q.limit) };
}
