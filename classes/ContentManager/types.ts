/** Content records (spec 2.8), the singleton's state and the bodies of ContentManager's methods. */
import type { StateOf } from '../../runtime';
import type { Actor } from '../_platform/actor';
import type { ContentFields } from './schema-rules';

export const CONTENT_STATUSES = ['pending', 'active', 'inactive'] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];

/** A content of the member application (spec 2.8 Content), as the workflow sees it. */
export interface ContentEntity {
  id: string;
  contentKey: string;
  contentGroupKey: string;
  contentTitle: string;
  status: ContentStatus;
  /** ISO 8601 date-times with an offset; start before end; null: no bound */
  startDate: string | null;
  endDate: string | null;
  /** position among contents of its key; null: none given */
  order: number | null;
  /** schema-validated values; images as public URLs under `images` */
  fields: ContentFields;
  createdBy: Actor;
  createdAt: string;
  updatedAt: string;
}

/** A content as stored: the entity and its bookkeeping. */
export interface ContentRecord extends ContentEntity {
  /** the approval the content waits for, if any */
  pendingApprovalId: string | null;
  /** the last approval settled on it: a callback for it again is a redelivery */
  lastSettledApprovalId: string | null;
}

/** ctx.state.private of the ContentManager singleton */
export interface ContentManagerState {
  contents: Record<string, ContentRecord>;
}

/** The class's state (`@ActorClass<ContentManagerClassState>`). */
export type ContentManagerClassState = StateOf<ContentManagerState>;

/** What getContents answers for each content (spec 4.5). */
export interface PublishedContent {
  id: string;
  contentKey: string;
  contentGroupKey: string;
  status: ContentStatus;
  order: number | null;
  fields: ContentFields;
}
