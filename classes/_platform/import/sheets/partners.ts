/**
 * The partners' sheets (spec 2.9) into the Partner class:
 *
 * "Partner sheet": init (create) and updatePartnerDetails, updatePartnerContact,
 * updatePartnerContract for a partner that exists, by the sheet `id`.
 * categoryId is the partner type and subCategoryId its sub types (comma
 * separated); address is the business address; contactEmail and contactPhone
 * the primary contact, named by an optional `contactName` column (the spec's
 * sheet has none), else the brand name; `contracts` holds the contract as
 * `id, start date, end date`. logo, coordinateLat and coordinateLong are read
 * and checked but not written (the partner record holds no coordinates, and a
 * logo is uploaded as an image, not named).
 *
 * "Partner location sheet": createVenue on the partner `partnerId`, then
 * updateVenueStatus for an `inactive` one; updateVenue for a venue that
 * exists. The venue's name comes from an optional `venueName` column (the
 * spec's sheet has none), else its address.
 *
 * createdAt and updatedAt are checked as ISO 8601 dates, not written.
 */
import type { ImportContext, Row, RowProblem, RowResult, SheetDefinition } from '../types';
import { changes, current, list, text } from './common';
import { isoDate } from '../run';

const ISO_DAY = /^\d{4}-\d{2}-\d{2}/;

function contract(row: Row): { contractId: string; contractStartDate: string; contractEndDate: string } | undefined {
  const [contractId, start, end] = list(row.contracts);
  if (list(row.contracts).length !== 3 || !contractId || !ISO_DAY.test(start ?? '') || !ISO_DAY.test(end ?? ''))
    return undefined;
  // a real calendar date: Date.parse alone rolled 2026-02-30 over to 2026-03-02
  const iso = (d: string) => {
    const date = isoDate(d);
    return 'iso' in date ? date.iso : undefined;
  };
  const contractStartDate = iso(start);
  const contractEndDate = iso(end);
  return contractStartDate && contractEndDate ? { contractId, contractStartDate, contractEndDate } : undefined;
}

async function partnerExists(ctx: ImportContext, partnerId: string): Promise<boolean> {
  return ctx.exists('Partner', 'getPartnerDetails', partnerId);
}

export const partners: SheetDefinition = {
  sheet: 'partners',
  columns: [
    { name: 'id', type: 'string', required: true },
    { name: 'legalName', type: 'string', required: true },
    { name: 'brandName', type: 'string', required: true },
    { name: 'partnerTier', type: 'string' },
    { name: 'logo', type: 'string' },
    { name: 'categoryId', type: 'string' },
    { name: 'subCategoryId', type: 'list' },
    { name: 'address', type: 'string', required: true },
    { name: 'coordinateLat', type: 'number' },
    { name: 'coordinateLong', type: 'number' },
    { name: 'country', type: 'string', required: true },
    { name: 'city', type: 'string', required: true },
    { name: 'website', type: 'string' },
    { name: 'contactName', type: 'string' },
    { name: 'contactEmail', type: 'string', required: true },
    { name: 'contactPhone', type: 'string', required: true },
    { name: 'contracts', type: 'list', required: true },
    { name: 'createdAt', type: 'date' },
    { name: 'updatedAt', type: 'date' },
  ],
  key: (row) => text(row.id),
  check(row) {
    const problems: RowProblem[] = [];
    if (!contract(row))
      problems.push({
        column: 'contracts',
        value: list(row.contracts).join(','),
        reason: 'not "contract id, start date, end date" (ISO 8601 dates)',
      });
    return Promise.resolve(problems);
  },
  async apply(row, ctx, write): Promise<RowResult> {
    const id = text(row.id);
    const details: Record<string, unknown> = {
      legalName: text(row.legalName),
      brandName: text(row.brandName),
      businessAddress: text(row.address),
      city: text(row.city),
      country: text(row.country),
      ...(row.partnerTier !== undefined ? { partnerTier: text(row.partnerTier) } : {}),
      ...(row.website !== undefined ? { website: text(row.website) } : {}),
      ...(row.categoryId !== undefined ? { partnerTypeId: text(row.categoryId) } : {}),
      ...(row.subCategoryId !== undefined ? { partnerSubtypeIds: list(row.subCategoryId) } : {}),
    };
    const primaryContact = {
      name: text(row.contactName) || text(row.brandName),
      email: text(row.contactEmail),
      phone: text(row.contactPhone),
    };
    const terms = contract(row)!;
    const held = await current(ctx, 'Partner', 'getPartnerDetails', id, {}, 'partner');
    if (!held) {
      if (write) await ctx.call('Partner', 'init', id, { ...details, primaryContact, ...terms });
      return 'created';
    }
    const detailChanges = changes(details, held);
    const contactChanges = changes({ primaryContact }, held);
    const contractChanges = changes(terms, held);
    if (![detailChanges, contactChanges, contractChanges].some((c) => Object.keys(c).length)) return 'unchanged';
    if (write) {
      if (Object.keys(detailChanges).length) await ctx.call('Partner', 'updatePartnerDetails', id, detailChanges);
      if (Object.keys(contactChanges).length) await ctx.call('Partner', 'updatePartnerContact', id, { primaryContact });
      if (Object.keys(contractChanges).length) await ctx.call('Partner', 'updatePartnerContract', id, contractChanges);
    }
    return 'updated';
  },
};

export const locations: SheetDefinition = {
  sheet: 'locations',
  columns: [
    { name: 'id', type: 'string', required: true },
    { name: 'partnerId', type: 'string', required: true },
    { name: 'status', type: 'string', values: ['active', 'inactive'] },
    { name: 'venueName', type: 'string' },
    { name: 'address', type: 'string', required: true },
    { name: 'coordinateLat', type: 'number', required: true },
    { name: 'coordinateLong', type: 'number', required: true },
    { name: 'contactPersonFullName', type: 'string', required: true },
    { name: 'contactPersonEmail', type: 'string', required: true },
    { name: 'contactPersonPhone', type: 'string', required: true },
    { name: 'createdAt', type: 'date' },
    { name: 'updatedAt', type: 'date' },
  ],
  key: (row) => text(row.id),
  async check(row, ctx) {
    const partnerId = text(row.partnerId);
    return (await partnerExists(ctx, partnerId))
      ? []
      : [{ column: 'partnerId', value: partnerId, reason: 'no partner with this id' }];
  },
  async apply(row, ctx, write): Promise<RowResult> {
    const venueId = text(row.id);
    const partnerId = text(row.partnerId);
    const wanted: Record<string, unknown> = {
      venueName: text(row.venueName) || text(row.address),
      address: text(row.address),
      contactName: text(row.contactPersonFullName),
      contactEmail: text(row.contactPersonEmail),
      contactPhone: text(row.contactPersonPhone),
      mapCoordinates: { latitude: row.coordinateLat, longitude: row.coordinateLong },
    };
    const status = typeof row.status === 'string' ? row.status : undefined;
    const held = await current(ctx, 'Partner', 'getVenue', partnerId, { venueId }, 'venue');
    if (!held) {
      if (write) {
        await ctx.call('Partner', 'createVenue', partnerId, { id: venueId, ...wanted });
        if (status && status !== 'active')
          await ctx.call('Partner', 'updateVenueStatus', partnerId, { venueId, status });
      }
      return 'created';
    }
    const diff = changes(wanted, held);
    const statusMoves = status !== undefined && status !== held.status;
    if (!Object.keys(diff).length && !statusMoves) return 'unchanged';
    if (write) {
      if (Object.keys(diff).length) await ctx.call('Partner', 'updateVenue', partnerId, { venueId, ...diff });
      if (statusMoves) await ctx.call('Partner', 'updateVenueStatus', partnerId, { venueId, status });
    }
    return 'updated';
  },
};
