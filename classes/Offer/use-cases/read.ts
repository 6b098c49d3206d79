/** getOffer (READ): the offer. */
import type { OfferReadCtx } from './common';

export function getOffer(ctx: OfferReadCtx) {
  return { offer: ctx.state.private.offer };
}
