/**
 * createOffer (INIT): an offer of an existing partner, `unpublished` unless
 * the body gives a status. Spec 6 names no event for the catalogue: the
 * creation applies at once (and is audit-logged).
 */
import { idProblems } from '../../_platform/catalogue';
import { buildOffer } from '../rules';
import type { CreateOfferInput } from '../../../schemas/Offer/inputs';
import { logOffer, now, refuseProblems, type OfferCtx } from './common';
import { checkReferences } from './references';

/**
 * The new instance's id (InitOptions.instanceId): the path's when the call
 * names one, else the body's `id`; neither: the runtime's UUID. The handler
 * then refuses a body `id` that is not that id.
 */
export function instanceIdOf(req: { body?: unknown; path?: { instanceId?: string } }): string | undefined {
  if (req.path?.instanceId) return req.path.instanceId;
  const id = (req.body as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}

export async function createOffer(ctx: OfferCtx<CreateOfferInput>) {
  const body = ctx.request.body;
  const id = ctx.instanceId!;
  const built = buildOffer(body, id, now());
  refuseProblems([...idProblems(id, body.id), ...built.problems], built.dateProblems);
  await checkReferences(ctx, null, built.offer);
  ctx.state.private.offer = built.offer;
  await logOffer(ctx, null, built.offer, { event: 'offer_create' });
  ctx.response.status = 201;
  return { offer: built.offer };
}
