/**
 * ContentManager's pure rules (rules.ts): the window, updates, status moves,
 * a rejected creation, the listings' filters and order, which contents are
 * published at an instant, and getContents' entity tag.
 */
import { schemaRefusal } from '../support/schema-check';
import {
  afterRejection,
  applyContentUpdate,
  backofficeMatches,
  backofficeOrder,
  contentsTag,
  isPublished,
  memberOrder,
  namedUpdates,
  newContent,
  noneMatchHits,
  backofficeQuery,
  contentsFilter,
  PublishedIndex,
  sameContent,
  statusMove,
  windowProblems,
  type ContentsFilter,
} from '../../classes/ContentManager/rules';
import type { ContentRecord } from '../../classes/ContentManager/types';

const schemaCheck = (method: string, raw: Record<string, unknown>) => schemaRefusal('ContentManager', method, raw);

const actor = { id: 'pm1', type: 'program_management_user' as const };
let n = 0;
function content(extra: Partial<ContentRecord> = {}): ContentRecord {
  n += 1;
  return {
    ...newContent(
      { contentKey: 'homepage_top_slider', contentGroupKey: 'homepage', contentTitle: ` Slide ${n} `, fields: {} },
      { images: { image: '/p/x' }, actionUrl: 'https://a.example' },
      actor,
      '2030-01-01T00:00:00.000Z',
      `c${n}`,
    ),
    status: 'active',
    ...extra,
  };
}
const T = (iso: string) => Date.parse(iso);
const ALL: ContentsFilter = { id: 'g=;k=' };

describe('a content and its changes', () => {
  test('a new content is pending, its title trimmed, its window and order null unless given', () => {
    const c = newContent(
      { contentKey: 'login_login', contentGroupKey: 'login', contentTitle: '  Login  ', fields: {} },
      {},
      actor,
      'now',
      'id1',
    );
    expect(c).toMatchObject({
      id: 'id1',
      status: 'pending',
      contentTitle: 'Login',
      startDate: null,
      endDate: null,
      order: null,
      pendingApprovalId: null,
      createdBy: actor,
    });
  });

  test('the window: the start strictly before the end, either may be absent', () => {
    expect(windowProblems(null, null)).toEqual([]);
    expect(windowProblems('2030-01-01T00:00:00Z', null)).toEqual([]);
    expect(windowProblems('2030-01-01T00:00:00Z', '2030-01-01T00:00:01Z')).toEqual([]);
    expect(windowProblems('2030-01-01T00:00:00Z', '2030-01-01T00:00:00Z')).toEqual([
      { field: 'endDate', reason: 'must be after startDate (2030-01-01T00:00:00Z)' },
    ]);
    // instants, whatever the offset: 04:00+04:00 is midnight UTC
    expect(windowProblems('2030-01-01T04:00:00+04:00', '2030-01-01T00:00:00Z')).toHaveLength(1);
  });

  test('an update replaces what it names; null clears the window and order', () => {
    const old = content({ startDate: '2030-01-01T00:00:00Z', order: 3 });
    expect(namedUpdates({ id: old.id })).toEqual([]);
    expect(namedUpdates({ id: old.id, order: null, contentTitle: 'x' })).toEqual(['contentTitle', 'order']);
    const next = applyContentUpdate(
      old,
      { id: old.id, startDate: null, order: null, contentTitle: ' New ' },
      undefined,
      'later',
    );
    expect(next).toMatchObject({
      startDate: null,
      order: null,
      contentTitle: 'New',
      updatedAt: 'later',
      fields: old.fields,
      status: 'active',
    });
    expect(sameContent(old, applyContentUpdate(old, { id: old.id, order: 3 }, undefined, 'later'))).toBe(true);
    expect(sameContent(old, next)).toBe(false);
    expect(sameContent(old, { ...old, fields: { actionUrl: 'https://a.example', images: { image: '/p/x' } } })).toBe(
      true,
    );
  });

  test('status moves: active or inactive, never the current one', () => {
    expect(statusMove('pending', 'active')).toEqual({ ok: true, to: 'active' });
    expect(statusMove('active', 'inactive')).toEqual({ ok: true, to: 'inactive' });
    expect(statusMove('active', 'active')).toMatchObject({ ok: false, kind: 'unchanged' });
    expect(statusMove('active', 'pending')).toMatchObject({ ok: false, kind: 'invalid' });
    expect(statusMove('active', 'archived')).toMatchObject({ ok: false, kind: 'invalid' });
  });

  test('a rejected creation leaves the content inactive; any other rejection changes nothing', () => {
    const pending = content({ status: 'pending' });
    expect(afterRejection(pending, 'content_create', 'later')).toMatchObject({
      status: 'inactive',
      updatedAt: 'later',
    });
    const active = content();
    expect(afterRejection(active, 'content_update', 'later')).toBe(active);
    expect(afterRejection(active, 'content_status_update', 'later')).toBe(active);
  });
});

describe('listing input', () => {
  test('getContents: lists, single values and comma-separated values of known groups and keys', () => {
    expect(contentsFilter({})).toEqual({ ok: true, filter: { groups: undefined, keys: undefined, id: 'g=;k=' } });
    const a = contentsFilter({ contentGroupKeys: 'homepage,login', contentKeys: ['homepage_section'] });
    const b = contentsFilter({
      contentGroupKeys: ['login', 'homepage', 'login'],
      contentKeys: 'homepage_section',
    });
    expect(a).toEqual({
      ok: true,
      filter: { groups: ['homepage', 'login'], keys: ['homepage_section'], id: 'g=homepage,login;k=homepage_section' },
    });
    expect(b).toEqual(a);
    expect(contentsFilter({ contentGroupKeys: 'homepage,footer' })).toEqual({
      ok: false,
      errors: [{ field: 'contentGroupKeys.0', reason: "'footer' is not one of: login, onboarding, homepage" }],
    });
  });

  test('getContents: the schema takes one value or a list, and refuses other keys and non-strings', () => {
    expect(schemaCheck('getContents', { contentGroupKeys: ['login', 'homepage'], contentKeys: 'login_login' })).toEqual(
      {
        input: { contentGroupKeys: ['login', 'homepage'], contentKeys: 'login_login' },
        fields: [],
      },
    );
    expect(schemaCheck('getContents', { other: '1' }).fields).toEqual(['other']);
    expect(schemaCheck('getContents', { contentKeys: [{ $ne: 1 }] }).fields).toEqual(['contentKeys', 'contentKeys.0']);
  });

  test('getContentsForBackoffice: statuses, search, paging', () => {
    expect(backofficeQuery({ statuses: 'pending,inactive', search: ' Slide ', page: 2, limit: 5 })).toEqual({
      ok: true,
      query: {
        groups: undefined,
        keys: undefined,
        statuses: ['inactive', 'pending'],
        search: 'slide',
        page: 2,
        limit: 5,
      },
    });
    expect(backofficeQuery({})).toMatchObject({ ok: true, query: { page: 1, limit: 20 } });
    expect(backofficeQuery({ statuses: ['archived'] })).toMatchObject({
      ok: false,
      errors: [{ field: 'statuses.0' }],
    });
    expect(schemaCheck('getContentsForBackoffice', { statuses: 'pending', page: '2', limit: '5' }).input).toEqual({
      statuses: 'pending',
      page: 2,
      limit: 5,
    });
    expect(schemaCheck('getContentsForBackoffice', { limit: 500, search: 'x'.repeat(201) }).fields.sort()).toEqual([
      'limit',
      'search',
    ]);
  });

  test('getContent and getContentGroup need their id or key; the metadata takes no other field', () => {
    expect(schemaCheck('getContent', {}).fields).toEqual(['id']);
    expect(schemaCheck('getContentGroup', {}).fields).toEqual(['contentGroupKey']);
    expect(schemaCheck('listContentGroups', { x: '1' }).fields).toEqual(['x']);
    expect(schemaCheck('getContentSchemas', { contentKey: 'x'.repeat(101), other: '1' }).fields.sort()).toEqual([
      'contentKey',
      'other',
    ]);
  });

  test('backofficeMatches', () => {
    const c = content({ status: 'pending', contentTitle: 'Summer Slide' });
    expect(backofficeMatches(c, { statuses: ['pending'], search: 'summer', page: 1, limit: 20 })).toBe(true);
    expect(backofficeMatches(c, { statuses: ['active'], page: 1, limit: 20 })).toBe(false);
    expect(backofficeMatches(c, { groups: ['login'], page: 1, limit: 20 })).toBe(false);
  });
});

describe('order', () => {
  test('getContents: schema order, then order, then updatedAt, all descending; no order after any order', () => {
    const login = content({ contentKey: 'login_login', contentGroupKey: 'login', order: 100 });
    const section = content({ contentKey: 'homepage_section', order: 1, updatedAt: '2030-01-01T00:00:00Z' });
    const sliderHigh = content({ order: 5 });
    const sliderLowOld = content({ order: 1, updatedAt: '2030-01-01T00:00:00Z' });
    const sliderLowNew = content({ order: 1, updatedAt: '2030-01-02T00:00:00Z' });
    const sliderNone = content({ order: null });
    const sorted = [login, sliderNone, sliderLowOld, sliderHigh, section, sliderLowNew].sort(memberOrder());
    expect(sorted.map((c) => c.id)).toEqual(
      [section, sliderHigh, sliderLowNew, sliderLowOld, sliderNone, login].map((c) => c.id),
    );
  });

  test('back office: order then updatedAt, descending, whatever the key', () => {
    const a = content({ contentKey: 'login_login', order: 2 });
    const b = content({ order: 7, updatedAt: '2030-01-01T00:00:00Z' });
    const c = content({ order: 7, updatedAt: '2030-03-01T00:00:00Z' });
    const d = content({ order: null });
    expect([a, d, b, c].sort(backofficeOrder).map((x) => x.id)).toEqual([c, b, a, d].map((x) => x.id));
  });
});

describe('what members see at an instant', () => {
  const windowed = content({ startDate: '2030-06-01T00:00:00Z', endDate: '2030-07-01T00:00:00Z' });
  const openEnded = content({ startDate: '2030-06-15T00:00:00Z' });
  const always = content();
  const inactive = content({ status: 'inactive' });
  const pending = content({ status: 'pending' });
  const login = content({ contentKey: 'login_login', contentGroupKey: 'login' });

  test('active only, within the window when there is one (start included, end excluded)', () => {
    expect(isPublished(windowed, T('2030-05-31T23:59:59.999Z'))).toBe(false);
    expect(isPublished(windowed, T('2030-06-01T00:00:00Z'))).toBe(true);
    expect(isPublished(windowed, T('2030-07-01T00:00:00Z'))).toBe(false);
    expect(isPublished(always, 0)).toBe(true);
    expect(isPublished(inactive, 0)).toBe(false);
    expect(isPublished(pending, 0)).toBe(false);
  });

  test('the index answers what isPublished says, for every phase and filter, with the answer fields only', () => {
    const all = [windowed, openEnded, always, inactive, pending, login];
    const index = new PublishedIndex(all);
    expect(index.boundaries).toEqual([T('2030-06-01T00:00:00Z'), T('2030-06-15T00:00:00Z'), T('2030-07-01T00:00:00Z')]);
    for (const iso of [
      '2030-01-01T00:00:00Z',
      '2030-06-01T00:00:00Z',
      '2030-06-20T00:00:00Z',
      '2030-07-01T00:00:00Z',
    ]) {
      const ids = index
        .select(ALL, T(iso))
        .map((c) => c.id)
        .sort();
      expect([iso, ids]).toEqual([
        iso,
        all
          .filter((c) => isPublished(c, T(iso)))
          .map((c) => c.id)
          .sort(),
      ]);
    }
    const onlyLogin = contentsFilter({ contentGroupKeys: 'login' });
    expect(onlyLogin.ok && index.select(onlyLogin.filter, T('2030-06-20T00:00:00Z')).map((c) => c.id)).toEqual([
      login.id,
    ]);
    expect(Object.keys(index.select(ALL, 0)[0]!).sort()).toEqual([
      'contentGroupKey',
      'contentKey',
      'fields',
      'id',
      'order',
      'status',
    ]);
  });

  test('phases: the count of window boundaries passed; one answer per filter and phase', () => {
    const index = new PublishedIndex([windowed, openEnded, always]);
    expect(index.phaseAt(T('2030-01-01T00:00:00Z'))).toBe(0);
    expect(index.phaseAt(T('2030-06-01T00:00:00Z'))).toBe(1);
    expect(index.phaseAt(T('2030-06-20T00:00:00Z'))).toBe(2);
    expect(index.phaseAt(T('2031-01-01T00:00:00Z'))).toBe(3);
    const first = index.select(ALL, T('2030-06-02T00:00:00Z'));
    expect(index.select(ALL, T('2030-06-10T00:00:00Z'))).toBe(first);
    expect(index.select(ALL, T('2030-06-16T00:00:00Z'))).not.toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });
});

describe('the entity tag', () => {
  test('moves with the version, the phase and the filter', () => {
    const other = contentsFilter({ contentKeys: 'login_login' });
    if (!other.ok) throw new Error('filter');
    const tag = contentsTag(7, 2, ALL);
    expect(tag).toMatch(/^"[0-9a-z.]+"$/);
    expect(contentsTag(7, 2, ALL)).toBe(tag);
    expect(
      new Set([
        tag,
        contentsTag(8, 2, ALL),
        contentsTag(7, 3, ALL),
        contentsTag(7, 2, other.filter),
        contentsTag(7, 2, ALL, 'other'),
      ]).size,
    ).toBe(5);
  });

  test('If-None-Match: the tag, one of a list, weakly compared, or *', () => {
    const tag = '"7.2.abc.def"';
    expect(noneMatchHits(undefined, tag)).toBe(false);
    expect(noneMatchHits(tag, tag)).toBe(true);
    expect(noneMatchHits(`"x", W/${tag}`, tag)).toBe(true);
    expect(noneMatchHits(['"x"', tag], tag)).toBe(true);
    expect(noneMatchHits('*', tag)).toBe(true);
    expect(noneMatchHits('"7.2.abc.de"', tag)).toBe(false);
    expect(noneMatchHits('7.2.abc.def', tag)).toBe(false);
  });
});
