/**
 * What Member exports about one member for DataSubject (exportSubjectData,
 * classes/_platform/personal-data.ts), pure: which of the member's fields
 * are secrets and stay in the instance, how its state, held HR push and HR
 * ledger entries become records, which ledger entries are about the member,
 * and whom it links to.
 *
 * The records are the data as stored, so that the export shows what the
 * service keeps, not what a screen shows of it. The only things left out
 * are secrets: the password hash (whoever holds it can try passwords
 * offline) and any token, OTP or password a nested record might carry.
 * When the password was set is kept: it is a fact about the person, not a
 * secret.
 */
import type { DeepReadonly, JournalEntry } from '../../runtime';
import { ERASED, subjectTraceValues, type Subject, type SubjectRecord } from '../_platform/personal-data';
import type { HeldHrPush, MemberPrivateState, MemberProfile } from './types';

export const MEMBER_CLASS_ID = 'Member';

/**
 * Is `id` one a member may have? An id with `!` is a lookup (`staffId!E1`)
 * that the runtime would resolve to whichever member holds the key: the
 * export takes the subject's own id only.
 */
export function mayBeMemberId(id: string): boolean {
  return !id.includes('!');
}

/**
 * Keys whose values are secrets wherever they appear in a record: the
 * password hash, the passwords and tokens of the sign-in steps, one-time
 * codes, a SAML response. None of them is a field of the member's state
 * today but `credentials.passwordHash`; the list is a net for a nested
 * record (a held HR push's body, a future field) that starts carrying one.
 */
export const SECRET_KEYS: ReadonlySet<string> = new Set([
  'passwordHash',
  'password',
  'currentPassword',
  'newPassword',
  'token',
  'accessToken',
  'refreshToken',
  'otp',
  'secret',
  'SAMLResponse',
]);

/** A copy of `value` without the keys of SECRET_KEYS, at any depth. */
export function withoutSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => withoutSecrets(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (!SECRET_KEYS.has(k)) out[k] = withoutSecrets(v);
    }
    return out as T;
  }
  return value;
}

/**
 * The member's private state as exported: every field but the password hash
 * (its `credentials` keep only when the password was set) and the held HR
 * push, which is a record of the HR integration of its own (heldHrRecord).
 */
export function exportableState(state: DeepReadonly<MemberPrivateState>): Record<string, unknown> {
  const { credentials, heldHr: _held, ...rest } = state;
  return withoutSecrets({
    ...rest,
    ...(credentials ? { credentials: { passwordChangedAt: credentials.passwordChangedAt } } : {}),
  });
}

/** The member's state as one record (store `state`, kind `member`). */
export function stateRecord(memberId: string, state: DeepReadonly<MemberPrivateState>): SubjectRecord {
  return {
    store: 'state',
    classId: MEMBER_CLASS_ID,
    instanceId: memberId,
    kind: 'member',
    data: exportableState(state),
  };
}

/** A deactivating HR push the quarantine holds on the member: the record HR sent, as held (store `hr`). */
export function heldHrRecord(memberId: string, held: DeepReadonly<HeldHrPush>): SubjectRecord {
  return {
    store: 'hr',
    classId: MEMBER_CLASS_ID,
    instanceId: memberId,
    kind: 'heldHrPush',
    data: withoutSecrets(held),
  };
}

/** The records the member's instance holds: its state and, when one waits, its held HR push. */
export function instanceRecords(memberId: string, state: DeepReadonly<MemberPrivateState>): SubjectRecord[] {
  return [stateRecord(memberId, state), ...(state.heldHr ? [heldHrRecord(memberId, state.heldHr)] : [])];
}

/** The member's dependants (its family links), which an export may include on request. */
export function relatedSubjects(profile: DeepReadonly<MemberProfile>): Subject[] {
  return (profile.familyMembers ?? []).map((f) => ({ type: 'member', id: f.id }));
}

/** The member's company, or null for a member of none. */
export function subjectCompany(profile: DeepReadonly<MemberProfile>): string | null {
  return profile.company?.id ?? null;
}

/**
 * The member's personal values by which traces of it outside the classes' records are found (mails and SMS sent
 * to it, the runtime's kept answers and jobs): its names, full name, email, phone and staff ids, each once. Not
 * part of the archive; DataSubject keeps them only while it looks for those traces.
 */
export function traceValues(profile: DeepReadonly<MemberProfile>): string[] {
  // an erased member's names read ERASED: no trace of anyone is found by them, and forgetting them would remove
  // every record that mentions an erasure
  const personal = (v: string | null | undefined) => (v === ERASED ? null : v);
  const fullName = [personal(profile.name), personal(profile.middleName), personal(profile.surname)]
    .filter(Boolean)
    .join(' ');
  const values = [
    fullName,
    profile.name,
    profile.middleName,
    profile.surname,
    profile.email,
    profile.phone,
    ...staffIdsOf(profile),
  ];
  return subjectTraceValues(values);
}

// ---------------------------------------------------------------- the HR ledger

/** Staff ids an employee's ledger entries are indexed under: the current one and those given up in migrations. */
export function staffIdsOf(profile: Pick<DeepReadonly<MemberProfile>, 'staffId' | 'previousStaffIds'>): string[] {
  return [...new Set([profile.staffId, ...(profile.previousStaffIds ?? [])].filter((s): s is string => !!s))];
}

/**
 * Which entries under the ledger's staff-id index are about the member. The
 * index holds an employee's own pushes (employee record, photo by staff id)
 * and its dependants' (dependant record, naming the dependant's member id):
 * an employee gets its own, a dependant the dependant pushes naming it.
 */
export function ledgerEntryConcerns(
  entry: Pick<JournalEntry, 'data'>,
  member: { id: string; isDependant: boolean },
): boolean {
  const dependantPush = entry.data.endpoint === 'dependant';
  return member.isDependant ? dependantPush && entry.data.dependantId === member.id : !dependantPush;
}

/** One ledger entry as a record of the member (store `hr`, kind `hrLedgerEntry`), keyed by the member it is about. */
export function ledgerRecord(memberId: string, entry: DeepReadonly<JournalEntry>): SubjectRecord {
  return { store: 'hr', classId: MEMBER_CLASS_ID, instanceId: memberId, kind: 'hrLedgerEntry', data: entry };
}

/** newer first, by the entries' ids (`<ms>-<seq>`, the time on Redis's clock and a sequence) */
function newerFirst(a: { id: string }, b: { id: string }): number {
  const [am, as] = a.id.split('-').map(Number) as [number, number];
  const [bm, bs] = b.id.split('-').map(Number) as [number, number];
  return bm - am || bs - as;
}

/** The ledger's entries about the member, each once (the same entry may sit under two of its staff ids), newest first. */
export function ledgerRecords(
  memberId: string,
  isDependant: boolean,
  entries: readonly DeepReadonly<JournalEntry>[],
): SubjectRecord[] {
  const byId = new Map<string, DeepReadonly<JournalEntry>>();
  for (const e of entries) if (ledgerEntryConcerns(e, { id: memberId, isDependant })) byId.set(e.id, e);
  return [...byId.values()].sort(newerFirst).map((e) => ledgerRecord(memberId, e));
}
