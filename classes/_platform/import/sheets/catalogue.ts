/**
 * The benefit catalogue's sheets (spec 2.9): "Offer category sheet" into
 * BenefitCategory (createCategory, updateCategory) and "Offer sheet" into
 * Offer (createOffer, updateOffer, updateOfferStatus), each record by its
 * sheet `id`. createdAt and updatedAt are read and checked as ISO 8601 dates
 * but not written: the classes keep their own times.
 */
import type { Row, RowProblem, RowResult, SheetDefinition } from '../types';
import { changes, current, list, text } from './common';

export const offerCategories: SheetDefinition = {
  sheet: 'offer-categories',
  columns: [
    { name: 'id', type: 'string', required: true },
    { name: 'name', type: 'string', required: true },
    { name: 'subcategories', type: 'list' },
    { name: 'keywords', type: 'list' },
    { name: 'createdAt', type: 'date' },
    { name: 'updatedAt', type: 'date' },
  ],
  key: (row) => text(row.id),
  check: () => Promise.resolve([]),
  async apply(row, ctx, write): Promise<RowResult> {
    const id = text(row.id);
    const wanted = { name: text(row.name), subcategories: list(row.subcategories), keywords: list(row.keywords) };
    const held = await current(ctx, 'BenefitCategory', 'getCategory', id, {}, 'category');
    if (!held) {
      if (write) await ctx.call('BenefitCategory', 'createCategory', id, wanted);
      return 'created';
    }
    const diff = changes(wanted, held);
    if (!Object.keys(diff).length) return 'unchanged';
    if (write) await ctx.call('BenefitCategory', 'updateCategory', id, diff);
    return 'updated';
  },
};

export const offers: SheetDefinition = {
  sheet: 'offers',
  columns: [
    { name: 'id', type: 'string', required: true },
    { name: 'partnerId', type: 'string', required: true },
    { name: 'status', type: 'string', values: ['published', 'unpublished', 'expired'] },
    { name: 'keywords', type: 'list' },
    { name: 'offerType', type: 'string', required: true },
    { name: 'startDate', type: 'date', required: true },
    { name: 'endDate', type: 'date', required: true },
    { name: 'images', type: 'list' },
    { name: 'shortDescription', type: 'string' },
    { name: 'title', type: 'string', required: true },
    { name: 'description', type: 'string' },
    { name: 'categoryIds', type: 'list' },
    { name: 'createdAt', type: 'date' },
    { name: 'updatedAt', type: 'date' },
  ],
  key: (row) => text(row.id),
  async check(row, ctx) {
    const problems: RowProblem[] = [];
    const partnerId = text(row.partnerId);
    if (!(await ctx.exists('Partner', 'getPartnerDetails', partnerId)))
      problems.push({ column: 'partnerId', value: partnerId, reason: 'no partner with this id' });
    const missing: string[] = [];
    for (const id of list(row.categoryIds))
      if (!(await ctx.exists('BenefitCategory', 'getCategory', id))) missing.push(id);
    if (missing.length)
      problems.push({
        column: 'categoryIds',
        value: list(row.categoryIds).join(','),
        reason: `no offer category ${missing.join(', ')}`,
      });
    return problems;
  },
  async apply(row: Row, ctx, write): Promise<RowResult> {
    const id = text(row.id);
    const wanted: Record<string, unknown> = {
      partnerId: text(row.partnerId),
      keywords: list(row.keywords),
      offerType: text(row.offerType),
      startDate: row.startDate,
      endDate: row.endDate,
      images: list(row.images),
      shortDescription: text(row.shortDescription),
      title: text(row.title),
      description: text(row.description),
      categoryIds: list(row.categoryIds),
    };
    const status = typeof row.status === 'string' ? row.status : undefined;
    const held = await current(ctx, 'Offer', 'getOffer', id, {}, 'offer');
    if (!held) {
      if (write) await ctx.call('Offer', 'createOffer', id, { ...wanted, ...(status ? { status } : {}) });
      return 'created';
    }
    const diff = changes(wanted, held);
    const statusMoves = status !== undefined && status !== held.status;
    if (!Object.keys(diff).length && !statusMoves) return 'unchanged';
    if (write) {
      if (Object.keys(diff).length) await ctx.call('Offer', 'updateOffer', id, diff);
      if (statusMoves) await ctx.call('Offer', 'updateOfferStatus', id, { status });
    }
    return 'updated';
  },
};
