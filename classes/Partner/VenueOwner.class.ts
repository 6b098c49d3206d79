/**
 * VenueOwner: which partner holds a venue id (venue ids are unique across
 * partners), one instance per venue id. Only the Partner class calls it:
 * createVenue claims the id before it commits the venue (exclusive per id
 * across processes) and confirms it by a committed effect. Nothing is
 * streamed: the rule never reads a listing. Rules in venue-ids.ts, handlers
 * in use-cases/venue-owner.ts.
 */
import { ActorClass, Internal, type Ctx } from '../../runtime';
import { SHARED_DATA } from '../_platform/scope';
import * as owner from './use-cases/venue-owner';
import type { VenueOwnerBody, VenueOwnerClassState } from './use-cases/venue-owner';

@ActorClass<VenueOwnerClassState>({
  id: 'VenueOwner',
  description: 'Which partner holds a venue id (venue ids are unique across partners)',
  // programme data, as the partners it serves
  tenancy: SHARED_DATA,
})
export class VenueOwner {
  /** Claims the id for the partner; answers `{claimed: false}` when another partner holds it. */
  // the body is built by the Partner class (use-cases/venue-owner.ts), never by a client
  @Internal({ access: ['class:Partner'], upsert: true, schema: false })
  async claim(ctx: Ctx<VenueOwnerClassState, VenueOwnerBody>) {
    return owner.claim(ctx);
  }

  /** The committed effect of createVenue: the partner holds the venue. */
  @Internal({ access: ['class:Partner'], upsert: true, schema: false })
  confirm(ctx: Ctx<VenueOwnerClassState, VenueOwnerBody>) {
    return owner.confirm(ctx);
  }
}
