/**
 * ContentManager (spec 2.8, 3.3, 4.5, 5, 6): the content of the member
 * application (login screen, onboarding, home page hero banner, sliders and
 * sections), one singleton (instance `default`) whose private state holds
 * `contents` (a map by id). Each content is of a content key of its group,
 * and its `fields` are checked against the key's schema, which is data
 * (content-schemas.ts, compiled to one ajv validator per key in
 * schema-rules.ts); Base64 images are stored as public files and kept as
 * public URLs under `fields.images`.
 *
 * Every create, update and status change runs the workflow (content_create,
 * content_update, content_status_update; workflow-configs/ContentManager.json)
 * through the platform's approval-gated change, with approveContent as the
 * callback; applied changes are audit-logged and streamed (collection
 * `contents`). getContents, the member application's hot path, is one READ of
 * the singleton with an entity tag (304 on If-None-Match).
 *
 * This file declares the methods (access, kind, schema) and delegates: each
 * body lives in use-cases/<use case>.ts, the rules in rules.ts and
 * schema-rules.ts. README.md has the operations, choices and error codes.
 */
import { ActorClass, Init, QueuedWrite, Read, Static, Write, type StaticCtx } from '../../runtime';
import { SHARED_DATA } from '../_platform/scope';
import type { ApprovalCallbackBody } from '../_platform/workflow';
import { contentDocument, CONTENTS_COLLECTION } from './rules';
import type { ContentManagerClassState } from './types';
import type {
  CreateContentInput,
  GetContentGroupInput,
  GetContentInput,
  GetContentSchemasInput,
  GetContentsForBackofficeInput,
  GetContentsInput,
  ListContentGroupsInput,
  UpdateContentInput,
  UpdateContentStatusInput,
} from '../../schemas/ContentManager/inputs';
import { invalidFilter, invalidLookup } from './errors';
import { approveContent } from './use-cases/approval';
import { getContentsForBackoffice } from './use-cases/backoffice';
import { CONTENT_INSTANCE, type ContentCtx, type ContentReadCtx } from './use-cases/common';
import { getContents } from './use-cases/contents';
import { createContent, init } from './use-cases/create';
import { getContentGroup, getContentSchemas, listContentGroups } from './use-cases/metadata';
import { getContent } from './use-cases/read';
import { updateContentStatus } from './use-cases/status';
import { updateContent } from './use-cases/update';

const PM = 'program_management_user';

@ActorClass<ContentManagerClassState>({
  id: 'ContentManager',
  description: 'Content of the member application: login, onboarding, home page (spec 2.8)',
  // the programme's content: company users may read it, never change it
  tenancy: SHARED_DATA,
  stream: {
    collections: {
      [CONTENTS_COLLECTION]: {
        indexes: [{ keys: { contentGroupKey: 1, contentKey: 1 } }, { keys: { status: 1 } }, { keys: { titleKey: 1 } }],
      },
    },
    toDocuments: (state) =>
      Object.values(state.private.contents ?? {}).map((c) => ({
        collection: CONTENTS_COLLECTION,
        id: c.id,
        doc: contentDocument(c),
      })),
  },
})
export class ContentManager {
  /** Creates the singleton (instance `default`) without contents. */
  @Init({ access: [PM, 'class'], instanceId: () => CONTENT_INSTANCE })
  init(ctx: ContentCtx) {
    return init(ctx);
  }

  /** A new content, `pending` until content_create is approved; 201 {id, content, approval, newStatus}. */
  @Write({ access: [PM], upsert: true, timeoutSeconds: 30 })
  createContent(ctx: ContentCtx<CreateContentInput>) {
    return createContent(ctx);
  }

  /** {id, ...any field to change} through content_update; {id, content, approval, newStatus}. */
  @Write({ access: [PM], timeoutSeconds: 30 })
  updateContent(ctx: ContentCtx<UpdateContentInput>) {
    return updateContent(ctx);
  }

  /** {id, status: active|inactive} through content_status_update; {id, content, approval, newStatus}. */
  @Write({ access: [PM] })
  updateContentStatus(ctx: ContentCtx<UpdateContentStatusInput>) {
    return updateContentStatus(ctx);
  }

  /** One content by {id} (body or query), whatever its status. */
  @Read({ access: [PM, 'class'], onValidationError: invalidLookup })
  getContent(ctx: ContentReadCtx<GetContentInput>) {
    return getContent(ctx);
  }

  /**
   * What members see: active contents within their window, filtered by
   * contentGroupKeys and contentKeys, with an ETag (304 on If-None-Match).
   * Public: the login screen shows its content before anyone signs in.
   */
  @Read({ access: ['public'], onValidationError: invalidFilter })
  getContents(ctx: ContentReadCtx<GetContentsInput>) {
    return getContents(ctx);
  }

  /** Every content, filtered by contentGroupKeys, contentKeys, statuses, search; paged. */
  @Read({ access: [PM], onValidationError: invalidFilter })
  getContentsForBackoffice(ctx: ContentReadCtx<GetContentsForBackofficeInput>) {
    return getContentsForBackoffice(ctx);
  }

  /** The groups with their keys (content metadata: public). */
  @Static({ access: ['public'], onValidationError: invalidFilter })
  listContentGroups(ctx: StaticCtx<ListContentGroupsInput>) {
    return listContentGroups(ctx);
  }

  /** One group by {contentGroupKey} with its keys (content metadata: public). */
  @Static({ access: ['public'], onValidationError: invalidLookup })
  getContentGroup(ctx: StaticCtx<GetContentGroupInput>) {
    return getContentGroup(ctx);
  }

  /** The schemas of the keys, filtered by contentGroupKey or contentKey; enums as {key, value} lists (public). */
  @Static({ access: ['public'], onValidationError: invalidFilter })
  getContentSchemas(ctx: StaticCtx<GetContentSchemasInput>) {
    return getContentSchemas(ctx);
  }

  /** Approval callback (approve and reject) of every ContentManager event. */
  @QueuedWrite({ access: ['class:ApprovalManager'] })
  approveContent(ctx: ContentCtx<ApprovalCallbackBody>) {
    return approveContent(ctx);
  }
}
