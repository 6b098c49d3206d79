/** listHeldHrPushes: the members whose deactivating HR push the quarantine holds (hr-hold.ts), oldest hold first. */
import { listedDocument, pageInfo } from '../../_platform/paging';
import { MEMBERS_COLLECTION } from '../listing-rules';
import type { MemberStaticCtx } from '../member-state';
import type { ListHeldHrPushesInput } from '../../../schemas/Member/inputs';

export async function listHeldHrPushes(ctx: MemberStaticCtx<ListHeldHrPushesInput>) {
  const q = ctx.request.body;
  const page = q.page ?? 1;
  const limit = q.limit ?? 20;
  // a company user's listing is limited to its company by the platform (the collection's tenantField)
  const filter: Record<string, unknown> = {
    hrDeactivationHeld: true,
    ...(q.companyId ? { companyId: q.companyId } : {}),
  };
  const { items, total } = await ctx.documents.find(MEMBERS_COLLECTION, filter, {
    sort: { hrHeldAt: 1, _id: 1 },
    skip: (page - 1) * limit,
    limit,
  });
  const held = items.map((doc) => {
    const d = listedDocument(doc, ['emailLower', 'hrHeldAt']);
    return {
      memberId: d.id,
      staffId: d.staffId,
      fullName: d.fullName,
      status: d.status,
      companyId: d.companyId,
      isDependant: d.isDependant,
      primaryMemberId: d.primaryMemberId,
      ...(d.hrHeld as object),
    };
  });
  return { held, ...pageInfo(total, page, limit) };
}
