/**
 * listPartnerUsers over HTTP against the document store (the streamed
 * `partnerUsers` collection): filters status, partnerId and search (full
 * name or email, case-insensitive, literal), pagination, POST body and GET
 * query, field-level refusals, and who may list.
 */
import { waitFor } from '../support/harness';
import { call, createProgramme, review, settled, startPuRuntime, uid, type Programme, type PuRuntime } from './support';

let pu: PuRuntime;
let p: Programme;
/** a tag in every name and email of this file's users, so the listing sees only them */
const tag = uid('lst');
/** the users by name: Alpha..Echo of partner p1 (Delta also of p2), Foxtrot of p2 only */
const ids: Record<string, string> = {};

const list = (body: Record<string, unknown>, headers = pu.admin) =>
  call(pu.t, 'listPartnerUsers', undefined, body, headers);
const names = (body: { users: { fullName: string }[] }) => body.users.map((u) => u.fullName.split(' ')[0]);

beforeAll(async () => {
  pu = await startPuRuntime();
  p = await createProgramme(pu.t);
  const users: [string, { partnerId: string; role: string }[], 'pending' | 'active' | 'inactive'][] = [
    ['Alpha', [{ partnerId: p.p1, role: 'admin' }], 'active'],
    ['Bravo', [{ partnerId: p.p1, role: 'staff' }], 'pending'],
    ['Charlie', [{ partnerId: p.p1, role: 'manager' }], 'active'],
    [
      'Delta',
      [
        { partnerId: p.p1, role: 'staff' },
        { partnerId: p.p2, role: 'admin' },
      ],
      'inactive',
    ],
    ['Echo', [{ partnerId: p.p1, role: 'staff' }], 'active'],
    ['Foxtrot', [{ partnerId: p.p2, role: 'staff' }], 'active'],
  ];
  for (const [name, partners, status] of users) {
    const r = await call(
      pu.t,
      'init',
      undefined,
      { fullName: `${name} ${tag}`, email: `${name.toLowerCase()}.${tag}@Example.com`, partners, venues: [] },
      pu.admin,
    );
    if (r.status !== 201) throw new Error(`init: ${r.status} ${JSON.stringify(r.body)}`);
    ids[name] = r.body.user.id;
    if (status === 'pending') continue;
    await review(pu, r.body.approval.id, 'approve');
    await settled(pu, ids[name]!);
    if (status === 'inactive') {
      const off = await call(pu.t, 'updateStatus', ids[name], { status: 'inactive' }, pu.admin);
      await review(pu, off.body.approval.id, 'approve');
      await settled(pu, ids[name]!);
    }
  }
  // every user projected with its final status
  await waitFor(
    async () =>
      (await list({ search: tag, status: 'active', limit: 100 })).body.totalCount === 4 &&
      (await list({ search: tag, status: 'inactive' })).body.totalCount === 1,
    {
      what: 'users projected',
    },
  );
});
afterAll(() => pu.stop());

describe('listPartnerUsers', () => {
  test('search on name or email, case-insensitive; ordered by name; answers users, totalCount, page, limit, totalPages', async () => {
    const r = await list({ search: tag.toUpperCase() });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ totalCount: 6, page: 1, limit: 20, totalPages: 1 });
    expect(names(r.body)).toEqual(['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot']);
    expect(names((await list({ search: `charlie.${tag}@example` })).body)).toEqual(['Charlie']);
    expect(names((await list({ search: `Echo ${tag}` })).body)).toEqual(['Echo']);
    // a regex metacharacter is a literal
    expect((await list({ search: `${tag}.*` })).body.totalCount).toBe(0);
    const user = r.body.users[0];
    expect(user).toMatchObject({
      id: ids.Alpha,
      email: `alpha.${tag}@example.com`,
      partners: [{ partnerId: p.p1, role: 'admin' }],
      status: 'active',
      pendingApproval: null,
    });
    expect(Object.keys(user)).not.toEqual(expect.arrayContaining(['search']));
    expect(Object.keys(user)).not.toEqual(expect.arrayContaining(['partnerIds']));
    expect(Object.keys(user).some((k) => k.startsWith('_'))).toBe(false);
  });

  test('filters status and partnerId, together with search', async () => {
    expect(names((await list({ search: tag, status: 'active' })).body)).toEqual([
      'Alpha',
      'Charlie',
      'Echo',
      'Foxtrot',
    ]);
    expect(names((await list({ search: tag, status: 'pending' })).body)).toEqual(['Bravo']);
    expect(names((await list({ search: tag, status: 'inactive' })).body)).toEqual(['Delta']);
    expect(names((await list({ search: tag, partnerId: p.p2 })).body)).toEqual(['Delta', 'Foxtrot']);
    expect(names((await list({ search: tag, partnerId: p.p1, status: 'active' })).body)).toEqual([
      'Alpha',
      'Charlie',
      'Echo',
    ]);
    expect((await list({ search: tag, partnerId: 'p-none' })).body).toMatchObject({
      users: [],
      totalCount: 0,
      totalPages: 0,
    });
    // a pending one shows the approval it waits for
    expect((await list({ search: tag, status: 'pending' })).body.users[0].pendingApproval).toMatchObject({
      event: 'user_create',
    });
  });

  test('pages', async () => {
    const pages = [1, 2, 3, 4].map((page) => list({ search: tag, page, limit: 2 }));
    const bodies = (await Promise.all(pages)).map((r) => r.body);
    expect(bodies.map(names)).toEqual([['Alpha', 'Bravo'], ['Charlie', 'Delta'], ['Echo', 'Foxtrot'], []]);
    expect(bodies.map((b) => [b.page, b.limit, b.totalCount, b.totalPages])).toEqual([
      [1, 2, 6, 3],
      [2, 2, 6, 3],
      [3, 2, 6, 3],
      [4, 2, 6, 3],
    ]);
  });

  test('a GET query takes the same filters; bad values are 400 naming the field', async () => {
    const q = new URLSearchParams({ search: tag, partnerId: p.p1, status: 'active', page: '2', limit: '2' });
    const r = await pu.t.get(`/${pu.t.projectId}/CALL/PartnerUser/listPartnerUsers?${q}`, pu.admin);
    expect([r.status, names(r.body), r.body.totalCount, r.body.totalPages]).toEqual([200, ['Echo'], 3, 2]);
    const bad = await pu.t.get(
      `/${pu.t.projectId}/CALL/PartnerUser/listPartnerUsers?status=gone&limit=500&colour=red`,
      pu.admin,
    );
    expect([bad.status, bad.body.code]).toEqual([400, 17108]);
    expect(bad.body.details.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'colour',
      'limit',
      'status',
    ]);
    const body = await list({ limit: 500, status: 'gone' });
    expect([
      body.status,
      body.body.code,
      body.body.details.errors.map((e: { field: string }) => e.field).sort(),
    ]).toEqual([400, 17108, ['limit', 'status']]);
  });

  test("who may list: program management users with the permission; company users read the programme's partner users", async () => {
    expect((await list({ search: tag }, pu.reader)).body.totalCount).toBe(6);
    expect((await list({ search: tag }, pu.companyUser)).body.totalCount).toBe(6);
    expect((await list({ search: tag }, pu.clerk)).status).toBe(403);
    expect((await list({ search: tag }, {})).status).toBe(401);
  });
});
