/** getContent (READ): one content by id, whatever its status, with the approval it waits for. */
import { listingInput } from '../../_platform/paging';
import { fieldError, readableContents, requireContent, type ContentReadCtx } from './common';
import type { ContentIdInput } from '../types';

export function getContent(ctx: ContentReadCtx<ContentIdInput>) {
  const contents = readableContents(ctx);
  const { id } = listingInput(ctx);
  if (typeof id !== 'string' || !id)
    throw fieldError('CONTENT_INVALID_QUERY', [{ field: 'id', reason: 'is required (in the body or the query)' }]);
  const content = requireContent(contents, id);
  return { id: content.id, content };
}
