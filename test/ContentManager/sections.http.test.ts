/**
 * The homepage section's category and subcategory enums (spec 2.8: "filled at
 * request time from active benefit categories"), against the real
 * BenefitCategory: getContentSchemas follows a category's activation and
 * deactivation, and a section may name only what is active when it is saved.
 */
import { waitFor, type TestRuntime } from '../support/harness';
import {
  asSystem,
  bearer,
  contentBody,
  freshId,
  startContentRuntime,
  VALID_FIELDS,
  writeContentRoles,
} from './support';

let t: TestRuntime;
let p: string;

beforeAll(async () => {
  t = await startContentRuntime();
  await writeContentRoles(t);
  p = `/${t.projectId}/CALL`;
});
afterAll(() => t.stop());

interface Option {
  key: string;
  value: string;
}

async function sectionOptions(): Promise<{ categories: Option[]; subcategories: Option[] }> {
  const r = await t.get(`${p}/ContentManager/getContentSchemas?contentKey=homepage_section`);
  expect(r.status).toBe(200);
  const fields = r.body.schemas[0].fields as { key: string; options: Option[]; isMultiSelect: boolean }[];
  const of = (key: string) => fields.find((f) => f.key === key)!;
  expect([of('filterCategories').isMultiSelect, of('filterSubcategories').isMultiSelect]).toEqual([true, true]);
  return { categories: of('filterCategories').options, subcategories: of('filterSubcategories').options };
}

const category = (id: string, method: string, body: unknown) => t.rt.call('BenefitCategory', method, id, body);

test("the options follow a category's activation and deactivation", async () => {
  const dining = freshId('cat');
  const travel = freshId('cat');
  expect(
    (
      await category(dining, 'createCategory', {
        name: 'Dining',
        subcategories: ['Cafes', 'Fine dining'],
        status: 'inactive',
      })
    ).status,
  ).toBe(201);
  expect(
    (await category(travel, 'createCategory', { name: 'Travel', subcategories: ['Hotels', 'Cafes'] })).status,
  ).toBe(201);
  const first = await waitFor(
    async () => {
      const o = await sectionOptions();
      return o.categories.some((c) => c.key === travel) ? o : undefined;
    },
    { what: 'the active category among the options' },
  );
  expect(first!.categories).toEqual([{ key: travel, value: 'Travel' }]);
  expect(first!.subcategories).toEqual([
    { key: 'Hotels', value: 'Hotels' },
    { key: 'Cafes', value: 'Cafes' },
  ]);

  expect((await category(dining, 'updateCategoryStatus', { status: 'active' })).status).toBe(200);
  const both = await waitFor(
    async () => {
      const o = await sectionOptions();
      return o.categories.length === 2 ? o : undefined;
    },
    { what: 'the activated category among the options' },
  );
  expect(both!.categories).toEqual([
    { key: dining, value: 'Dining' },
    { key: travel, value: 'Travel' },
  ]);
  expect(both!.subcategories.map((s) => s.key)).toEqual(['Cafes', 'Fine dining', 'Hotels']);

  expect((await category(travel, 'updateCategoryStatus', { status: 'inactive' })).status).toBe(200);
  const after = await waitFor(
    async () => {
      const o = await sectionOptions();
      return o.categories.length === 1 ? o : undefined;
    },
    { what: 'the deactivated category gone from the options' },
  );
  expect(after).toEqual({
    categories: [{ key: dining, value: 'Dining' }],
    subcategories: [
      { key: 'Cafes', value: 'Cafes' },
      { key: 'Fine dining', value: 'Fine dining' },
    ],
  });
});

test('a section names active categories and their subcategories only, when it is saved', async () => {
  const spa = freshId('cat');
  expect(
    (await category(spa, 'createCategory', { name: 'Wellness', subcategories: ['Spas'], status: 'inactive' })).status,
  ).toBe(201);
  const admin = bearer(t, 'pm1', ['super']);
  const section = (extra: Record<string, unknown>) =>
    contentBody('homepage_section', { fields: { ...VALID_FIELDS.homepage_section, ...extra } });
  const refused = await t.post(
    `${p}/ContentManager/createContent/default`,
    section({ filterCategories: [spa], filterSubcategories: ['Spas'] }),
    admin,
  );
  expect([
    refused.status,
    refused.body.code,
    refused.body.details.errors.map((e: { field: string }) => e.field),
  ]).toEqual([400, 18001, ['fields.filterCategories.0', 'fields.filterSubcategories.0']]);

  expect((await category(spa, 'updateCategoryStatus', { status: 'active' })).status).toBe(200);
  const created = await waitFor(
    async () => {
      const r = await asSystem(t, 'createContent', section({ filterCategories: [spa], filterSubcategories: ['Spas'] }));
      return r.status === 201 ? r : undefined;
    },
    { what: 'a section naming the activated category' },
  );
  expect(created!.body.content.fields).toMatchObject({ filterCategories: [spa], filterSubcategories: ['Spas'] });

  // deactivated since: the section keeps it, and a change of other fields is not refused for it
  expect((await category(spa, 'updateCategoryStatus', { status: 'inactive' })).status).toBe(200);
  await waitFor(async () => !(await sectionOptions()).categories.some((c) => c.key === spa), {
    what: 'the category deactivated',
  });
  const update = await asSystem(t, 'updateContent', { id: created!.body.id, fields: { sortField: 'featured' } });
  expect(update.status).toBe(200);
  expect(update.body.content.fields).toMatchObject({ sortField: 'featured', filterCategories: [spa] });
  const naming = await asSystem(t, 'updateContent', { id: created!.body.id, fields: { filterCategories: [spa] } });
  expect([naming.status, naming.body.code]).toEqual([400, 18001]);
});
