/**
 * Offer (spec 2.9 "Offer sheet"; codes 18070-18099): the offers of the
 * benefit catalogue, one actor instance per offer (instance id = offer id).
 * An offer names a partner of the Partner class and categories of
 * BenefitCategory, both asked through their typed clients. Changes apply at
 * once (spec 6 names no catalogue event) and are audit-logged; offers stream
 * to the `offers` collection, which listOffers reads.
 *
 * This file declares the methods and delegates: each body lives in
 * use-cases/<use case>.ts, the rules in rules.ts. README.md has the choices.
 */
import { ActorClass, Init, Read, Static, Write } from '../../runtime';
import { SHARED_DATA } from '../_platform/scope';
import type {
  CreateOfferInput,
  ListOffersInput,
  UpdateOfferInput,
  UpdateOfferStatusInput,
} from '../../schemas/Offer/inputs';
import { invalidOfferQuery, LIST_OFFERS, offerDocument, OFFERS_COLLECTION } from './rules';
import type { OfferClassState } from './types';
import * as change from './use-cases/change';
import type { OfferCtx, OfferReadCtx, OfferStaticCtx } from './use-cases/common';
import * as create from './use-cases/create';
import * as listing from './use-cases/listing';
import * as read from './use-cases/read';

const PM = 'program_management_user';

@ActorClass<OfferClassState>({
  id: 'Offer',
  description: 'Offers of the benefit catalogue (spec 2.9)',
  // the catalogue is the programme's: company users may read it, never change it
  tenancy: SHARED_DATA,
  stream: {
    collections: {
      [OFFERS_COLLECTION]: {
        listings: [LIST_OFFERS],
      },
    },
    toDocuments: (state, id) =>
      state.private.offer ? [{ collection: OFFERS_COLLECTION, id, doc: offerDocument(state.private.offer) }] : [],
  },
})
export class Offer {
  /** A new offer of an existing partner (the path's id, else the body's `id`, else a UUID), `unpublished` unless given (201). */
  @Init({ access: [PM], instanceId: create.instanceIdOf })
  createOffer(ctx: OfferCtx<CreateOfferInput>) {
    return create.createOffer(ctx);
  }

  /** Any column but id and status; a list replaces the one held. */
  @Write({ access: [PM] })
  updateOffer(ctx: OfferCtx<UpdateOfferInput>) {
    return change.updateOffer(ctx);
  }

  /** published, unpublished or expired. */
  @Write({ access: [PM] })
  updateOfferStatus(ctx: OfferCtx<UpdateOfferStatusInput>) {
    return change.updateOfferStatus(ctx);
  }

  @Read({ access: [PM, 'class'] })
  getOffer(ctx: OfferReadCtx) {
    return read.getOffer(ctx);
  }

  /** From the document store: status, partnerId, categoryId, offerType, search; page, limit 1-100 (default 20); by title. */
  @Static({ access: [PM], onValidationError: invalidOfferQuery })
  listOffers(ctx: OfferStaticCtx<ListOffersInput>) {
    return listing.listOffers(ctx);
  }
}
