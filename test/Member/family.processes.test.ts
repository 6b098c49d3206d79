/**
 * Family members across two api-only processes with no projector and no
 * MongoDB (test/support/api-pair.ts): listMembers answers nothing on either.
 * The family limits hold for concurrent adds through both (they read the
 * primary member's own state, whose writes are exclusive across processes),
 * and getMemberDependants answers each dependant's fields from its instance,
 * never from the listing.
 */
import { outcomes, startApiPair, type ApiPair } from '../support/api-pair';
import { createMember, seedProgram } from './support';

let pair: ApiPair;
let c: string;
let pm: Record<string, string>;

beforeAll(async () => {
  pair = await startApiPair('fam', { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas' });
  c = `/${pair.projectId}/CALL/Member`;
  pm = { authorization: `Bearer ${pair.helper.token('program_management_user', 'pm1', ['super'])}` };
  await seedProgram(pair.helper);
}, 180_000);
afterAll(() => pair?.stop());

const add = (on: 0 | 1, memberId: string, body: Record<string, unknown>) =>
  pair.post(on, `${c}/addMemberFamilyMember/${memberId}`, { name: 'Kid', surname: 'Lee', ...body }, pm);

test('concurrent adds through two processes keep the company limits: one spouse of two, three children of four (400 5010 for the rest)', async () => {
  const m = await createMember(pair.helper);
  const spouses = await Promise.all(
    [0, 1].map((on) => add(on as 0 | 1, m.id, { memberSubType: 'mst-spouse', relation: 'spouse' })),
  );
  expect(outcomes(spouses)).toEqual([
    [200, null],
    [400, 5010],
  ]);
  const children = await Promise.all(
    [0, 1, 0, 1].map((on, i) =>
      add(on as 0 | 1, m.id, { memberSubType: 'mst-child', relation: 'child', name: `Kid${i}` }),
    ),
  );
  expect(outcomes(children)).toEqual([
    [200, null],
    [200, null],
    [200, null],
    [400, 5010],
  ]);
  for (const refused of [...spouses, ...children].filter((r) => r.status === 400)) {
    expect(refused.body.details.errors.map((e: { field: string }) => e.field)).toEqual(['memberSubType']);
  }
}, 120_000);

test("getMemberDependants answers the dependants' own fields from their instances, on processes without a listing", async () => {
  const m = await createMember(pair.helper);
  const made = await add(0, m.id, {
    memberSubType: 'mst-child',
    relation: 'child',
    name: 'Sami',
    email: `sami.${m.id}@example.com`,
  });
  expect(made.status).toBe(200);
  const dependantId = made.body.familyMember.id;

  for (const on of [0, 1] as const) {
    expect((await pair.get(on, `${c}/listMembers?primaryMemberId=${m.id}`, pm)).body.totalCount).toBe(0);
    const deps = await pair.get(on, `${c}/getMemberDependants/${m.id}`, pm);
    expect(deps.status).toBe(200);
    expect(deps.body).toMatchObject({
      totalCount: 1,
      dependants: [
        {
          id: dependantId,
          relation: 'child',
          memberSubType: 'mst-child',
          // fields only the dependant's instance holds (the primary member's list does not)
          email: `sami.${m.id}@example.com`,
          fullName: 'Sami Lee',
          primaryMemberId: m.id,
          companyId: 'c-1',
          isDependant: true,
        },
      ],
    });
  }

  // another primary member's dependants are not this one's
  const other = await createMember(pair.helper);
  expect((await pair.get(1, `${c}/getMemberDependants/${other.id}`, pm)).body).toEqual({
    dependants: [],
    totalCount: 0,
  });
}, 120_000);
