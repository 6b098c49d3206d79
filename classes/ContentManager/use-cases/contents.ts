/**
 * getContents (READ; public): what the member application shows, on its hot
 * path. Active contents only, each within its start/end window when it has
 * one; filters contentGroupKeys and contentKeys (body or query, a key
 * repeated or comma-separated); sorted by schema order, content order and
 * updatedAt, all descending (spec 4.5); each as {id, contentKey,
 * contentGroupKey, status, order, fields}.
 *
 * Cheap by construction:
 *  - the runtime reads the singleton from its per-process READ cache (one
 *    Redis version check per call), and hands every call of one committed
 *    version the same frozen state object; a PublishedIndex of that state
 *    (active contents sorted, their window boundaries) is made once per state
 *    object and kept in a WeakMap, which also keeps each filter's answer per
 *    window phase;
 *  - the answer carries an ETag made of the instance version, the window
 *    phase, the schemas' revision and the filter; `If-None-Match` with that
 *    tag is answered 304 without a body, before any answer is built. Any
 *    committed change moves the version, so a changed content changes the tag
 *    at once; a content entering or leaving its window moves the phase.
 *    `Cache-Control: no-cache`: clients and caches ask again each time, with
 *    the tag.
 */
import type { GetContentsInput } from '../../../schemas/ContentManager/inputs';
import { contentsTag, noneMatchHits, contentsFilter, PublishedIndex } from '../rules';
import type { ContentRecord, PublishedContent } from '../types';
import { fieldError, readableContents, type ContentReadCtx } from './common';

const indexes = new WeakMap<object, PublishedIndex>();

function indexOf(contents: Readonly<Record<string, ContentRecord>>): PublishedIndex {
  let index = indexes.get(contents);
  if (!index) {
    index = new PublishedIndex(Object.values(contents));
    indexes.set(contents, index);
  }
  return index;
}

export const CONTENTS_CACHE_CONTROL = 'no-cache';

export function getContents(
  ctx: ContentReadCtx<GetContentsInput>,
): { contents: readonly PublishedContent[] } | undefined {
  const contents = readableContents(ctx) as Readonly<Record<string, ContentRecord>>;
  const parsed = contentsFilter(ctx.request.body);
  if (!parsed.ok) throw fieldError('CONTENT_INVALID_QUERY', parsed.errors, 'Invalid filter');
  const index = indexOf(contents);
  const nowMs = Date.now();
  const etag = contentsTag(ctx.version, index.phaseAt(nowMs), parsed.filter);
  const headers = { etag, 'cache-control': CONTENTS_CACHE_CONTROL };
  if (noneMatchHits(ctx.request.headers['if-none-match'], etag)) {
    ctx.response = { status: 304, headers };
    return undefined;
  }
  ctx.response = { headers };
  return { contents: index.select(parsed.filter, nowMs) };
}
