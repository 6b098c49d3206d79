/** getContent (READ): one content by id, whatever its status, with the approval it waits for. */
import type { GetContentInput } from '../../../schemas/ContentManager/inputs';
import { readableContents, requireContent, type ContentReadCtx } from './common';

/** {id} as a GET query or a POST body (its schema requires it: 400 18009 without one). */
export function getContent(ctx: ContentReadCtx<GetContentInput>) {
  const content = requireContent(readableContents(ctx), ctx.request.body.id);
  return { id: content.id, content };
}
