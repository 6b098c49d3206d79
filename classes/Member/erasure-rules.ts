/**
 * What Member's erasure of a member does to the member's record, pure
 * (eraseSubjectData, classes/_platform/personal-data.ts; README "Erasure"):
 * which fields of the profile are personal values and go (ERASED where the
 * field must hold a string, null or absent where it may), which facts stay
 * (ids, company, member type and sub type, memberships, statuses, dates),
 * what the rest of the private state keeps, and the suppression markers that
 * let the service recognise the person if HR pushes them again
 * (ERASED_MEMBERS_RETURN).
 *
 * A marker is a lookup key of the erased member whose name carries a keyed
 * hash (HMAC-SHA256) of one identifier the person had (a staff id, an email,
 * a dependant's id), never the identifier itself: whoever reads the keys or a
 * backup without the key learns nothing, and the creation paths, which hold
 * the key, find an erased person in one read per identifier.
 */
import { createHash, createHmac } from 'node:crypto';
import type { DeepReadonly } from '../../runtime';
import { ERASED } from '../_platform/personal-data';
import type { FamilyMember, MemberErasure, MemberPrivateState, MemberProfile } from './types';

// ---------------------------------------------------------------- settings

/** what happens when HR (or anyone) creates a person that was erased: refused, or a fresh member */
export const RETURN_POLICIES = ['refuse', 'allow'] as const;
export type ReturnPolicy = (typeof RETURN_POLICIES)[number];

export interface ErasureSettings {
  /** ERASED_MEMBERS_RETURN: `refuse` (default) or `allow` */
  returnPolicy: ReturnPolicy;
  /** the key of the markers' HMAC (markerKeyFrom) */
  markerKey: Buffer;
}

/**
 * The markers' key: derived from JWT_SECRET (else OTP_SECRET) by HMAC, so it
 * reveals neither and changes only with them; without either a fixed
 * development key, which NODE_ENV=production refuses (the start stops), as
 * Otp's key does. Rotating the secret makes the markers already kept
 * unrecognisable: an erased person then returns as a new one.
 */
export function markerKeyFrom(env: NodeJS.ProcessEnv): Buffer {
  const secret = env.JWT_SECRET || env.OTP_SECRET;
  if (secret) return createHmac('sha256', secret).update('member-erasure-marker-key').digest();
  if (env.NODE_ENV === 'production')
    throw new Error(
      'JWT_SECRET (or OTP_SECRET) must be set in production: without either, erased members are marked under a public development key',
    );
  return createHash('sha256').update('member-erasure-marker-development-key').digest();
}

/** ERASED_MEMBERS_RETURN and the markers' key; a value other than `refuse` or `allow` stops the start. */
export function erasureSettingsFrom(env: NodeJS.ProcessEnv): ErasureSettings {
  const raw = env.ERASED_MEMBERS_RETURN?.trim().toLowerCase();
  let returnPolicy: ReturnPolicy = 'refuse';
  if (raw) {
    if (!(RETURN_POLICIES as readonly string[]).includes(raw))
      throw new Error(`ERASED_MEMBERS_RETURN must be 'refuse' or 'allow', got '${env.ERASED_MEMBERS_RETURN}'`);
    returnPolicy = raw as ReturnPolicy;
  }
  return { returnPolicy, markerKey: markerKeyFrom(env) };
}

// ---------------------------------------------------------------- markers

/** the kinds of identifier a person is recognised by */
export type IdentifierKind = 'staffId' | 'email' | 'dependantId';

export interface PersonIdentifier {
  kind: IdentifierKind;
  value: string;
}

/** the lookup names of markers start so (a lookup name is a letter, then up to 63 of [A-Za-z0-9_]) */
export const MARKER_PREFIX = 'erasedRef_';
/** every marker key holds this value: the name alone carries the hash */
export const MARKER_VALUE = 'erased';
/** hex characters of the HMAC the name keeps: 216 bits, within a lookup name's 64 characters */
const MARKER_HEX = 64 - MARKER_PREFIX.length;

/** An identifier as it is compared: staff and dependant ids as given (trimmed), emails in lower case. */
export function normalizedIdentifier(kind: IdentifierKind, value: string): string {
  const v = value.trim();
  return kind === 'email' ? v.toLowerCase() : v;
}

/** The lookup name of the marker of one identifier: its kind and value under the key, never the value. */
export function markerName(key: Buffer, id: PersonIdentifier): string {
  const digest = createHmac('sha256', key)
    .update(id.kind)
    .update('\u0000')
    .update(normalizedIdentifier(id.kind, id.value), 'utf8')
    .digest('hex');
  return MARKER_PREFIX + digest.slice(0, MARKER_HEX);
}

/** The identifiers given, each once, blanks left out. */
export function identifiers(ids: {
  staffIds?: readonly (string | null | undefined)[];
  emails?: readonly (string | null | undefined)[];
  dependantIds?: readonly (string | null | undefined)[];
}): PersonIdentifier[] {
  const out: PersonIdentifier[] = [];
  const seen = new Set<string>();
  const add = (kind: IdentifierKind, values: readonly (string | null | undefined)[] = []) => {
    for (const v of values) {
      if (typeof v !== 'string' || v.trim() === '' || v === ERASED) continue;
      const key = `${kind}\u0000${normalizedIdentifier(kind, v)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ kind, value: v });
    }
  };
  add('staffId', ids.staffIds);
  add('email', ids.emails);
  add('dependantId', ids.dependantIds);
  return out;
}

/**
 * The identifiers the person behind a profile had: its staff id and every
 * previous one, its email, and for a dependant its id (HR's dependant id is
 * the member id: a new push under it would otherwise bring the person back).
 */
export function identifiersOf(profile: DeepReadonly<MemberProfile>): PersonIdentifier[] {
  return identifiers({
    staffIds: [profile.staffId, ...(profile.previousStaffIds ?? [])],
    emails: [profile.email],
    dependantIds: profile.primaryMemberId ? [profile.id] : [],
  });
}

// ---------------------------------------------------------------- the record

/** Whether a member's state is an erased member's (a tombstone). */
export function isErased(state: DeepReadonly<Partial<MemberPrivateState>> | undefined): boolean {
  return Boolean(state?.erasure);
}

/** A family entry without the personal values it copies from its dependant: its id, sub type, status and date stay. */
export function erasedFamilyRef(ref: DeepReadonly<FamilyMember>, status?: FamilyMember['status']): FamilyMember {
  return {
    id: ref.id,
    relation: null,
    memberSubType: ref.memberSubType,
    name: ERASED,
    surname: ERASED,
    status: status ?? ref.status,
    createdAt: ref.createdAt,
  };
}

/** Whether a family entry still holds a personal value of its dependant. */
export function familyRefHoldsValues(ref: DeepReadonly<FamilyMember>): boolean {
  return ref.name !== ERASED || ref.surname !== ERASED || ref.relation !== null;
}

/**
 * The profile of an erased member. Field by field:
 *  - kept (ids, the programme's references, facts of the membership): id, company, memberType, memberSubType,
 *    memberships (their reasons erased), primaryMemberId, loginMethod, permissions (consent flags), createdBy
 *    (who created it: an actor, not the person), createdAt;
 *  - ERASED (a string the record needs): name, surname, statusReason;
 *  - null or empty (the field may be empty): middleName, staffId, previousStaffIds, email, phone, address, grade,
 *    idPhoto, relation (HR's word for the relationship), note (free text);
 *  - removed (optional HR fields): gender, maritalStatus, coreGrade, dependantsExists, lastDayOfService, isCabinCrew;
 *  - familyMembers: each dependant's link kept by id and sub type, its copied names erased;
 *  - status `inactive`, updatedAt the erasure's time.
 */
export function erasedProfile(profile: DeepReadonly<MemberProfile>, at: string): MemberProfile {
  return {
    id: profile.id,
    status: 'inactive',
    name: ERASED,
    middleName: null,
    surname: ERASED,
    staffId: null,
    email: null,
    phone: null,
    company: { id: profile.company.id },
    grade: null,
    idPhoto: null,
    loginMethod: profile.loginMethod,
    address: null,
    memberType: profile.memberType,
    memberSubType: profile.memberSubType,
    memberships: (profile.memberships ?? []).map((m) => {
      const copy = JSON.parse(JSON.stringify(m)) as MemberProfile['memberships'][number];
      // a suspension's or reinstatement's reason is the back office's free text about the person
      for (const t of copy.transitions ?? []) if (t.reason !== undefined) t.reason = ERASED;
      return copy;
    }),
    primaryMemberId: profile.primaryMemberId,
    relation: null,
    familyMembers: (profile.familyMembers ?? []).map((f) => erasedFamilyRef(f)),
    createdBy: JSON.parse(JSON.stringify(profile.createdBy)) as MemberProfile['createdBy'],
    note: null,
    permissions: { ...profile.permissions },
    previousStaffIds: [],
    statusReason: ERASED,
    createdAt: profile.createdAt,
    updatedAt: at,
  };
}

/**
 * The private state of an erased member: its erased profile, what its
 * memberships' approvals and tasks recorded (ids, dates, outcomes), and the
 * erasure. Documents' metadata, the ID photo waiting and the one replaced, the
 * change and membership changes waiting for approval, the held HR push, the
 * password, the sign-in time and the HR registration's marks go.
 */
export function erasedState(
  state: DeepReadonly<MemberPrivateState>,
  erasure: MemberErasure,
  at: string,
): MemberPrivateState {
  const out: MemberPrivateState = { profile: erasedProfile(state.profile, at), erasure };
  if (state.lastApprovalId !== undefined) out.lastApprovalId = state.lastApprovalId;
  if (state.settledMembershipApprovals) out.settledMembershipApprovals = [...state.settledMembershipApprovals];
  if (state.membershipTasks)
    out.membershipTasks = JSON.parse(JSON.stringify(state.membershipTasks)) as MemberPrivateState['membershipTasks'];
  return out;
}

/**
 * What the erasure anonymised or removed of the member, as the export counts
 * records: its state, its listed document (re-projected by the commit) and
 * the HR push the quarantine held.
 */
export function erasedRecordCount(state: DeepReadonly<MemberPrivateState>): number {
  return 2 + (state.heldHr ? 1 : 0);
}
