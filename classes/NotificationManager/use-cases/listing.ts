/**
 * listNotificationTemplates (STATIC): from the streamed `notification_templates`
 * collection. The catalogue's templates that were never used have no instance
 * yet: the listing creates them (NotificationManager.init, as this class) and
 * lists them with the others, so the back office sees every template it may edit.
 */
import { ActorError, client, isUnknownInstance, RuntimeCodes, type StaticCtx } from '../../../runtime';
import type { ListNotificationTemplatesInput } from '../../../schemas/NotificationManager/inputs';
import { listedDocument } from '../../_platform/paging';
import { BUILT_IN_TEMPLATE_IDS } from '../builtins';
import {
  LIST_NOTIFICATION_TEMPLATES,
  listFilter,
  matchesList,
  listQuery,
  pageOf,
  TEMPLATES_COLLECTION,
  templateDocument,
} from '../rules';
import type { NotificationTemplate } from '../types';
import type { getTemplate, initTemplate } from './template';

/** the class's own methods this listing calls (typed from their handlers: the class file cannot be imported back) */
type Templates = abstract new () => { init: typeof initTemplate; getNotificationTemplate: typeof getTemplate };

/** more than the catalogue holds: the listing pages in memory (README "Listing") */
const MAX_TEMPLATES = 1000;

type Doc = Record<string, unknown>;

function strip(doc: Doc): Doc {
  return listedDocument(doc, ['searchText']);
}

/** Creates the catalogue templates the store does not hold; answers their documents. */
async function ensureCatalogue(ctx: StaticCtx): Promise<Doc[]> {
  const present = await ctx.documents.find<Doc>(
    TEMPLATES_COLLECTION,
    { templateId: { $in: [...BUILT_IN_TEMPLATE_IDS] } },
    { limit: BUILT_IN_TEMPLATE_IDS.length, total: false },
  );
  const have = new Set(present.items.map((d) => String(d.templateId)));
  const templates = client<Templates>(ctx, 'NotificationManager');
  const created: Doc[] = [];
  for (const id of BUILT_IN_TEMPLATE_IDS.filter((x) => !have.has(x))) {
    let template: NotificationTemplate;
    try {
      template = (await templates.init(id)).template;
    } catch (err) {
      // created meanwhile (another listing, a send) and not streamed yet: read it
      if (!(err instanceof ActorError && err.code === RuntimeCodes.INSTANCE_EXISTS.code)) throw err;
      try {
        template = (await templates.getNotificationTemplate(id)).template;
      } catch (readErr) {
        if (isUnknownInstance(readErr)) continue;
        throw readErr;
      }
    }
    created.push(templateDocument(template, null));
  }
  return created;
}

/** The input is validated by the schema (a bad one is 400 16008, NotificationManager.class.ts). */
export async function listTemplates(ctx: StaticCtx<ListNotificationTemplatesInput>) {
  const q = listQuery(ctx.request.body);
  const created = await ensureCatalogue(ctx);
  // paged in memory with the catalogue's templates the store lacks: the store's total is not needed
  const found = await ctx.documents.find<Doc>(TEMPLATES_COLLECTION, listFilter(q), {
    sort: LIST_NOTIFICATION_TEMPLATES.sort,
    limit: MAX_TEMPLATES,
    total: false,
  });
  const stored = new Set(found.items.map((d) => String(d.templateId)));
  const all = [...found.items, ...created.filter((d) => !stored.has(String(d.templateId)) && matchesList(d, q))];
  const page = pageOf(all, q);
  return {
    items: page.items.map(strip),
    totalCount: page.total,
    page: q.page,
    limit: q.limit,
    totalPages: Math.ceil(page.total / q.limit),
  };
}
