/**
 * The seed file's benefit catalogue (classes/_platform/seed.ts): categories
 * and offers created through their classes as the system actor, with the
 * file's status, after the partners they name; a second run skips them; an
 * offer of no partner fails alone.
 */
import { applySeed } from '../../classes/_platform/seed';
import { call, startCatalogueRuntime, uid, type CatalogueRuntime } from '../BenefitCategory/support';

let c: CatalogueRuntime;
beforeAll(async () => {
  c = await startCatalogueRuntime(['classes/Setting']);
});
afterAll(() => c.stop());

test('categories and offers of the file are created with its status after its partners; a second run skips them; an offer of no partner fails alone', async () => {
  const system = (classId: string, method: string, instanceId: string | undefined, body: unknown) =>
    c.t.rt.call(classId, method, instanceId, body);
  const [partnerId, categoryId, offerId, orphanId] = [uid('partner'), uid('cat'), uid('offer'), uid('offer')];
  const offer = (id: string, partner: string) => ({
    id,
    partnerId: partner,
    status: 'published',
    offerType: 'discount',
    startDate: '2026-01-01T00:00:00Z',
    endDate: '2026-12-31T23:59:59Z',
    title: 'Sunset dinner',
    categoryIds: [categoryId],
  });
  const doc = {
    partners: [
      {
        id: partnerId,
        legalName: 'Sunrise LLC',
        brandName: 'Sunrise',
        businessAddress: '1 Beach Road',
        city: 'Dubai',
        country: 'AE',
        primaryContact: { name: 'Lina Haddad', email: 'lina@partner.example', phone: '+971500000000' },
        contractId: 'C-1',
        contractStartDate: '2026-01-01',
        contractEndDate: '2027-01-01',
      },
    ],
    benefitCategories: [
      {
        id: categoryId,
        name: 'Dining',
        subcategories: ['Fine dining', 'Cafés'],
        keywords: ['food'],
        status: 'inactive',
      },
    ],
    offers: [offer(offerId, partnerId), offer(orphanId, 'partner-nobody')],
  };
  const first = await applySeed(doc, system);
  expect(first.map((o) => [o.kind, o.id, o.result])).toEqual([
    ['partner', partnerId, 'created'],
    ['benefitCategory', categoryId, 'created'],
    ['offer', offerId, 'created'],
    ['offer', orphanId, 'failed'],
  ]);
  expect(first[3]!.error).toMatchObject({ code: 18072 });
  expect((await call(c.t, 'BenefitCategory', 'getCategory', categoryId, {}, c.admin)).body.category).toMatchObject({
    subcategories: ['Fine dining', 'Cafés'],
    status: 'inactive',
  });
  expect((await call(c.t, 'Offer', 'getOffer', offerId, {}, c.admin)).body.offer).toMatchObject({
    partnerId,
    status: 'published',
    categoryIds: [categoryId],
  });

  const again = await applySeed({ benefitCategories: doc.benefitCategories, offers: [doc.offers[0]!] }, system);
  expect(again.map((o) => o.result)).toEqual(['skipped', 'skipped']);
});
