/**
 * getContents, the member application's read, over HTTP: without signing in;
 * active contents only, each within its window when it has one; the spec 4.5
 * order; the group and key filters; and its entity tag: 304 without a body
 * on an unchanged tag, a new tag at once after a change, and after a content
 * enters its window.
 */
import { waitFor, type TestRuntime } from '../support/harness';
import {
  activeContent,
  asSystem,
  bearer,
  contentBody,
  freshId,
  startContentRuntime,
  writeContentRoles,
} from './support';

let t: TestRuntime;
let p: string;

beforeAll(async () => {
  t = await startContentRuntime();
  await writeContentRoles(t);
  p = `/${t.projectId}/CALL/ContentManager`;
});
afterAll(() => t.stop());

const ids = (body: { contents: { id: string }[] }) => body.contents.map((c) => c.id);
const iso = (msFromNow: number) => new Date(Date.now() + msFromNow).toISOString();
const DAY = 24 * 3600 * 1000;

test('before any content exists the singleton is unknown; init opens it empty', async () => {
  const before = await t.get(`${p}/getContents/default`);
  expect(before.status).toBe(500);
  expect((await t.rt.call('ContentManager', 'init', undefined, {})).status).toBe(200);
  const empty = await t.get(`${p}/getContents/default`);
  expect([empty.status, empty.body]).toEqual([200, { contents: [] }]);
});

describe('what is shown', () => {
  test('active only, within the window; sorted by schema order, order and updatedAt, all descending; answer fields only', async () => {
    const loginOld = await activeContent(t, 'login_login', { order: 1 });
    // the next content's updatedAt is a later millisecond
    await waitFor(() => new Date().toISOString() > loginOld.updatedAt, { what: 'the clock past the first content' });
    const loginNew = await activeContent(t, 'login_login', { order: 1 });
    const loginHigh = await activeContent(t, 'login_login', { order: 2 });
    const section = await activeContent(t, 'homepage_section', { order: 1 });
    const heroNoOrder = await activeContent(t, 'homepage_hero_banner');
    const heroWindow = await activeContent(t, 'homepage_hero_banner', {
      order: 3,
      startDate: iso(-DAY),
      endDate: iso(DAY),
    });
    const heroStartsOnly = await activeContent(t, 'homepage_hero_banner', { order: 2, startDate: iso(-DAY) });
    // not shown: ended, not started, pending, inactive
    await activeContent(t, 'homepage_hero_banner', { startDate: iso(-2 * DAY), endDate: iso(-DAY) });
    await activeContent(t, 'homepage_hero_banner', { startDate: iso(DAY) });
    expect(
      (await t.post(`${p}/createContent/default`, contentBody('homepage_hero_banner'), bearer(t, 'pm1', ['super'])))
        .body.content.status,
    ).toBe('pending');
    const off = await activeContent(t, 'onboarding_onboarding');
    expect((await asSystem(t, 'updateContentStatus', { id: off.id, status: 'inactive' })).body.content.status).toBe(
      'inactive',
    );

    const r = await t.get(`${p}/getContents/default`);
    expect(r.status).toBe(200);
    expect(ids(r.body)).toEqual([
      section.id,
      heroWindow.id,
      heroStartsOnly.id,
      heroNoOrder.id,
      loginHigh.id,
      loginNew.id,
      loginOld.id,
    ]);
    expect(r.body.contents[0]).toEqual({
      id: section.id,
      contentKey: 'homepage_section',
      contentGroupKey: 'homepage',
      status: 'active',
      order: 1,
      fields: section.fields,
    });

    // filters: groups and keys, as a list, repeated in the query, or comma-separated
    const logins = await t.get(`${p}/getContents/default?contentGroupKeys=login`);
    expect(ids(logins.body)).toEqual([loginHigh.id, loginNew.id, loginOld.id]);
    const twoKeys = await t.get(`${p}/getContents/default?contentKeys=homepage_section&contentKeys=login_login`);
    expect(ids(twoKeys.body)).toEqual([section.id, loginHigh.id, loginNew.id, loginOld.id]);
    const both = await t.post(`${p}/getContents/default`, {
      contentGroupKeys: 'homepage,login',
      contentKeys: ['homepage_section'],
    });
    expect(ids(both.body)).toEqual([section.id]);
    const bad = await t.get(`${p}/getContents/default?contentKeys=homepage_footer`);
    expect([bad.status, bad.body.code, bad.body.details.errors[0].field]).toEqual([400, 18009, 'contentKeys.0']);
  });

  test('every identity may read it, signed in or not', async () => {
    for (const headers of [{}, bearer(t, 'm1', [], 'enduser'), bearer(t, 'rd1', ['reader'])]) {
      expect((await t.get(`${p}/getContents/default`, headers)).status).toBe(200);
    }
  });
});

describe('entity tag', () => {
  test('an unchanged tag is 304 without a body; a change gives a new tag at once', async () => {
    const c = await activeContent(t, 'homepage_top_slider', { order: 50 });
    const first = await t.get(`${p}/getContents/default`);
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^"[0-9a-z.]+"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');

    const again = await fetch(`${t.base}${p}/getContents/default`, { headers: { 'if-none-match': tag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(tag);
    expect(await again.text()).toBe('');
    // as one of several tags, weakly compared, and over POST
    expect(
      (await fetch(`${t.base}${p}/getContents/default`, { headers: { 'if-none-match': `"old", W/${tag}` } })).status,
    ).toBe(304);
    expect((await t.post(`${p}/getContents/default`, {}, { 'if-none-match': tag })).status).toBe(304);
    // another filter is another answer with its own tag
    const filtered = await t.get(`${p}/getContents/default?contentGroupKeys=homepage`, { 'if-none-match': tag });
    expect(filtered.status).toBe(200);
    expect(filtered.headers.get('etag')).not.toBe(tag);

    const changed = await asSystem(t, 'updateContent', { id: c.id, fields: { actionUrl: 'https://changed.example' } });
    expect(changed.status).toBe(200);
    const after = await t.get(`${p}/getContents/default`, { 'if-none-match': tag });
    expect(after.status).toBe(200);
    const newTag = after.headers.get('etag')!;
    expect(newTag).not.toBe(tag);
    expect(after.body.contents.find((x: { id: string }) => x.id === c.id).fields.actionUrl).toBe(
      'https://changed.example',
    );
    expect((await t.get(`${p}/getContents/default`, { 'if-none-match': newTag })).status).toBe(304);

    // a status change approved later moves the tag too
    const off = await t.post(
      `${p}/updateContentStatus/default`,
      { id: c.id, status: 'inactive' },
      bearer(t, 'pm1', ['super']),
    );
    expect(off.body.approval.approvalStatus).toBe('pending');
    const waiting = await t.get(`${p}/getContents/default`, { 'if-none-match': newTag });
    expect(waiting.status).toBe(200); // the content now waits for an approval: a committed change of the singleton
    expect(ids(waiting.body)).toContain(c.id);
    const approved = await t.post(
      `/${t.projectId}/CALL/ApprovalManager/reviewApproval/${off.body.approval.id}`,
      { action: 'approve' },
      bearer(t, 'ann', ['approver']),
    );
    expect(approved.status).toBe(200);
    const hidden = await waitFor(
      async () => {
        const r = await t.get(`${p}/getContents/default`, { 'if-none-match': waiting.headers.get('etag')! });
        return r.status === 200 && !ids(r.body).includes(c.id) ? r : undefined;
      },
      { what: 'the deactivated content gone from getContents' },
    );
    expect(hidden!.headers.get('etag')).not.toBe(waiting.headers.get('etag'));
  });

  test('a content entering its window changes the tag without any write', async () => {
    const startsSoon = await activeContent(t, 'homepage_bottom_slider', { id: freshId('soon'), startDate: iso(6000) });
    const before = await t.get(`${p}/getContents/default?contentKeys=homepage_bottom_slider`);
    expect(ids(before.body)).not.toContain(startsSoon.id);
    const tag = before.headers.get('etag')!;
    const version = (await t.rt.store.read('ContentManager', 'default'))!.version;
    const shown = await waitFor(
      async () => {
        const r = await t.get(`${p}/getContents/default?contentKeys=homepage_bottom_slider`, { 'if-none-match': tag });
        return r.status === 200 && ids(r.body).includes(startsSoon.id) ? r : undefined;
      },
      { what: 'the content shown once its window opens', timeoutMs: 20_000 },
    );
    expect(shown!.headers.get('etag')).not.toBe(tag);
    expect((await t.rt.store.read('ContentManager', 'default'))!.version).toBe(version);
  });
});
