/**
 * Whether a member about to be created is a person erased at their request
 * (README "Erasure", ERASED_MEMBERS_RETURN): the creation paths ask it by the
 * person's identifiers (erasedPersonOf, refuseErasedPerson: one read of a
 * suppression marker each), and the upserts that may land on an erased
 * member's own id take the tombstone back or refuse (takeBackErased).
 */
import { ActorError, type ReadCtx } from '../../../runtime';
import {
  identifiers,
  MARKER_VALUE,
  markerName,
  type ErasureSettings,
  type IdentifierKind,
  type PersonIdentifier,
} from '../erasure-rules';
import { fieldError } from '../errors';
import { rawMemberState, type MemberCtx } from '../member-state';
import type { MemberPrivateState } from '../types';

/** The erased member one of the identifiers was found on, by its marker; null when none was erased. */
export async function erasedPersonOf(
  ctx: Pick<ReadCtx, 'lookup'>,
  settings: ErasureSettings,
  ids: PersonIdentifier[],
): Promise<{ memberId: string; kind: IdentifierKind } | null> {
  const owners = await Promise.all(
    ids.map((id) => ctx.lookup.resolve(markerName(settings.markerKey, id), MARKER_VALUE, 'Member')),
  );
  const i = owners.findIndex((o) => o !== undefined);
  return i < 0 ? null : { memberId: owners[i]!, kind: ids[i].kind };
}

const WHAT: Record<IdentifierKind, string> = { staffId: 'staff id', email: 'email', dependantId: 'dependant id' };

/** 409 MEMBER_ERASED_PERSON on `field`: a member would be created for a person erased at their request. */
export function erasedPersonError(field: string, kind: IdentifierKind): ActorError {
  return fieldError(
    'MEMBER_ERASED_PERSON',
    field,
    `This ${WHAT[kind]} is a person's who was erased at their request; ERASED_MEMBERS_RETURN=refuse keeps them from being created again`,
  );
}

/**
 * Refuses (409 5049, on the caller's name of the field) a member for a person
 * erased at their request while ERASED_MEMBERS_RETURN is `refuse`; with
 * `allow` a fresh member is created and nothing is asked.
 */
export async function refuseErasedPerson(
  ctx: Pick<ReadCtx, 'lookup'>,
  settings: ErasureSettings | undefined,
  ids: Parameters<typeof identifiers>[0],
  fields: Partial<Record<IdentifierKind, string>> = {},
): Promise<void> {
  if (!settings || settings.returnPolicy !== 'refuse') return;
  const hit = await erasedPersonOf(ctx, settings, identifiers(ids));
  if (hit) throw erasedPersonError(fields[hit.kind] ?? hit.kind, hit.kind);
}

/**
 * An upsert that creates a member under an id an erased member holds (HR's
 * dependant id, the import's id derived from a staff id): with `refuse`, the
 * `refusal`; with `allow`, the tombstone gives way to the new member (its
 * markers released, its state emptied), so nothing of the old record comes
 * back. A member that was not erased is left alone.
 */
export function takeBackErased(ctx: MemberCtx<unknown>, settings: ErasureSettings, refusal: () => ActorError): void {
  const state = rawMemberState(ctx);
  if (!state.erasure) return;
  if (settings.returnPolicy === 'refuse') throw refusal();
  for (const name of state.erasure.markers) ctx.lookup.remove(name);
  replaceState(state, {} as MemberPrivateState);
}

/** The draft state becomes `next` (the keys it no longer has removed). */
export function replaceState(state: MemberPrivateState, next: MemberPrivateState): void {
  const draft = state as unknown as Record<string, unknown>;
  for (const key of Object.keys(draft)) delete draft[key];
  Object.assign(draft, next);
}
