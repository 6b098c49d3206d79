/**
 * "Partner staff user sheet" (spec 2.9: id, name, locationIds, status,
 * createdAt, updatedAt) into the PartnerUser class, by the sheet `id`:
 * init for a new user (then updateStatus when the sheet's status is not the
 * one the creation gave), updateUser and updateStatus for one that exists.
 *
 * A partner user cannot exist without an email and a partner, which the
 * spec's sheet does not carry: the sheet adds `email` and `partnerId`
 * (required) and `role` (admin, manager or staff; default staff). The
 * `locationIds` are venues of that partner. A user that belongs to other
 * partners keeps them and their venues.
 */
import type { Row, RowProblem, RowResult, SheetDefinition } from '../types';
import { current, list, same, text } from './common';

const byPartner = <T extends { partnerId: string }>(items: T[]) =>
  [...items].sort((a, b) => (a.partnerId + JSON.stringify(a)).localeCompare(b.partnerId + JSON.stringify(b)));

function wantedOf(row: Row, held?: Record<string, unknown>) {
  const partnerId = text(row.partnerId);
  const role = text(row.role) || 'staff';
  const heldPartners = (held?.partners as { partnerId: string; role: string }[] | undefined) ?? [];
  const heldVenues = (held?.venues as { partnerId: string; venueId: string }[] | undefined) ?? [];
  return {
    fullName: text(row.name),
    email: text(row.email).toLowerCase(),
    partners: byPartner([...heldPartners.filter((p) => p.partnerId !== partnerId), { partnerId, role }]),
    venues: byPartner([
      ...heldVenues.filter((v) => v.partnerId !== partnerId),
      ...list(row.locationIds).map((venueId) => ({ partnerId, venueId })),
    ]),
  };
}

export const partnerStaff: SheetDefinition = {
  sheet: 'partner-staff',
  columns: [
    { name: 'id', type: 'string', required: true },
    { name: 'name', type: 'string', required: true },
    { name: 'email', type: 'string', required: true },
    { name: 'partnerId', type: 'string', required: true },
    { name: 'role', type: 'string', values: ['admin', 'manager', 'staff'] },
    { name: 'locationIds', type: 'list' },
    { name: 'status', type: 'string', values: ['pending', 'active', 'inactive'] },
    { name: 'createdAt', type: 'date' },
    { name: 'updatedAt', type: 'date' },
  ],
  key: (row) => text(row.id),
  async check(row, ctx) {
    const partnerId = text(row.partnerId);
    if (!(await ctx.exists('Partner', 'getPartnerDetails', partnerId)))
      return [{ column: 'partnerId', value: partnerId, reason: 'no partner with this id' }];
    const missing: string[] = [];
    for (const venueId of list(row.locationIds))
      if (!(await ctx.exists('Partner', 'getVenue', partnerId, { venueId }))) missing.push(venueId);
    const problems: RowProblem[] = [];
    if (missing.length)
      problems.push({
        column: 'locationIds',
        value: list(row.locationIds).join(','),
        reason: `no location ${missing.join(', ')} of partner ${partnerId}`,
      });
    return problems;
  },
  async apply(row, ctx, write): Promise<RowResult> {
    const id = text(row.id);
    const status = typeof row.status === 'string' ? row.status : undefined;
    const held = await current(ctx, 'PartnerUser', 'getUser', id, {}, 'user');
    if (!held) {
      if (write) {
        const res = await ctx.call('PartnerUser', 'init', id, wantedOf(row));
        const created = (res.body as { user?: { status?: string } } | null)?.user;
        if (status && status !== created?.status) await ctx.call('PartnerUser', 'updateStatus', id, { status });
      }
      return 'created';
    }
    const wanted = wantedOf(row, held);
    const heldView = {
      fullName: held.fullName,
      email: held.email,
      partners: byPartner(held.partners as { partnerId: string }[]),
      venues: byPartner(held.venues as { partnerId: string }[]),
    };
    const changed = !same(wanted, heldView);
    const statusMoves = status !== undefined && status !== held.status;
    if (!changed && !statusMoves) return 'unchanged';
    if (write) {
      if (changed) await ctx.call('PartnerUser', 'updateUser', id, wanted);
      if (statusMoves) await ctx.call('PartnerUser', 'updateStatus', id, { status });
    }
    return 'updated';
  },
};
