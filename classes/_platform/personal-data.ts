import type { ActorType } from './actor';
import { isAbsentRecord } from './calls';
import { listedDocument } from './paging';
import { setEntry } from './records';

/**
 * Personal data of one data subject across the classes that hold it (a
 * member, a back-office user, a partner user), as DataSubject gathers it for
 * an export.
 *
 * Every class holding personal data declares one STATIC method,
 * `exportSubjectData` (SUBJECT_DATA_METHOD), open to DataSubject only
 * (SUBJECT_DATA_ACCESS), whose body is a SubjectDataInput (the schema is
 * `schemas/<Class>/exportSubjectData.json`, the same in every class) and whose
 * answer is a SubjectData: the records it keeps about the subject, as stored,
 * and the files (their content in Base64). The class alone knows where its
 * records are (which instance ids, which collections) and which of its fields
 * are secrets that are never exported (password hashes, OTP digests).
 *
 * The call carries the caller's company (a company user's export reaches only
 * its company's records, as every class-to-class call does), so a class
 * answers what the caller's scope lets it read. A class that holds nothing
 * about the subject answers empty lists; a subject type the class does not
 * keep anything for is no error.
 */

/** whose data: a member (an employee or a dependant), a back-office user, a partner user */
export const SUBJECT_TYPES = ['member', 'program_management_user', 'partner_user'] as const;
export type SubjectType = (typeof SUBJECT_TYPES)[number];

export interface Subject {
  type: SubjectType;
  /** the subject's id in its own class (member id, user id) */
  id: string;
}

/** The class a subject is a record of (its instances are the subject's own). */
export function subjectOwnerClass(type: SubjectType): 'Member' | 'ProgramManagementUser' | 'PartnerUser' {
  switch (type) {
    case 'member':
      return 'Member';
    case 'program_management_user':
      return 'ProgramManagementUser';
    case 'partner_user':
      return 'PartnerUser';
  }
}

/**
 * The actor types a subject acts as in the records that name an actor (audit
 * entries, approval records; _platform/actor.ts actorFromIdentity): a member
 * as `member`, a back-office user as `program_management_user` (`developer`
 * when its token says so). Partner users do not sign in to the service. The
 * type is matched with the id, so a member and a user that happen to share an
 * id are not taken for each other.
 */
export function subjectActorTypes(type: SubjectType): readonly ActorType[] {
  switch (type) {
    case 'member':
      return ['member'];
    case 'program_management_user':
      return ['program_management_user', 'developer'];
    case 'partner_user':
      return [];
  }
}

/** The body of every class's exportSubjectData. */
export interface SubjectDataInput {
  subject: Subject;
  /**
   * The subject's company as the subject's own class answered it (null: of no
   * company), which DataSubject gives every other class. A class whose records
   * keep no company (an inbox, OTP records) checks a company-scoped caller
   * against it (`ctx.tenancy.check`): only DataSubject calls, and only after
   * the subject's own class answered the subject within the caller's scope.
   * Absent in the call to the subject's own class.
   */
  subjectCompanyId?: string | null;
}

/** where a record was found, as the archive groups them */
export const SUBJECT_STORES = [
  'state', // an actor instance's state
  'listing', // a streamed document of a collection
  'files', // file metadata (the content is a SubjectFile)
  'audit', // an audit log entry
  'approvals', // an approval record
  'inbox', // an in-app notification
  'otp', // one-time password records and their checks
  'hr', // what the HR integration keeps (ledger, held pushes)
] as const;
export type SubjectStore = (typeof SUBJECT_STORES)[number];

export interface SubjectRecord {
  store: SubjectStore;
  classId: string;
  /** the actor instance (or the document id, for a listing) the record is kept in */
  instanceId: string;
  /** what the record is, in the class's words: `member`, `memberDocument`, `logEntry`, `approval`, ... */
  kind: string;
  /** the record as stored, secrets left out */
  data: unknown;
}

export interface SubjectFile {
  classId: string;
  instanceId: string;
  /** the stored name (a blob name: a safe file name, never user text) */
  name: string;
  contentType: string;
  /** what the file is: an uploaded `file`, a large audit value (`largeLog`), an approval's large value (`approvalBlob`) */
  kind: string;
  contentBase64: string;
}

export interface SubjectData {
  records: SubjectRecord[];
  files: SubjectFile[];
  /**
   * Subjects the class links to this one (a member's dependants), which an
   * export may include on request. Only the subject's own class names them.
   */
  related?: Subject[];
  /**
   * The subject's company, answered by the subject's own class (Member for a
   * member, ...): null for a subject of no company. Other classes leave it out.
   */
  companyId?: string | null;
  /**
   * The subject's own class only: the personal values by which traces of the
   * subject are found outside the classes' records (mails and SMS sent, the
   * runtime's finished jobs and kept answers): names, email, phone, staff id.
   * Not part of an export archive; an erasure removes the traces holding them.
   */
  values?: string[];
}

/** the STATIC method every class holding personal data declares */
export const SUBJECT_DATA_METHOD = 'exportSubjectData';

/** who may call it: DataSubject alone (it checks the caller's permission and company first) */
export const SUBJECT_DATA_ACCESS = ['class:DataSubject'] as const;

/** An answer with nothing in it. */
export function noSubjectData(): SubjectData {
  return { records: [], files: [] };
}

/**
 * Erasure: every class that answers exportSubjectData also answers
 * `eraseSubjectData` (same access), which removes or anonymises what it keeps
 * about the subject: personal values become ERASED (or go, where a field may
 * be absent), files are deleted from the store, lookup keys are released. The
 * fact that something happened stays (an audit entry's field names, an
 * approval's event and outcome); the values go. Effectively once: a second
 * call finds nothing left to erase and answers zeros.
 */
export const SUBJECT_ERASE_METHOD = 'eraseSubjectData';

/** The body of every class's eraseSubjectData. */
export interface SubjectEraseInput extends SubjectDataInput {
  /** the DataSubject request that erases (recorded where a class keeps a marker of the erasure) */
  erasureId: string;
}

/** What one class erased. */
export interface SubjectErasure {
  /** records anonymised or removed */
  records: number;
  /** files deleted from the file store */
  files: number;
}

/** What a personal value that cannot be left out becomes. */
export const ERASED = '[erased]';

type Container = Record<string, unknown> | unknown[];

const every = () => true;

/**
 * A copy of a JSON value with every string leaf ERASED (or those `match`
 * picks); keys, array lengths, numbers, booleans and nulls stay, so a record
 * keeps its shape and says that something was there. An explicit stack, not
 * recursion: a value is as deep as the entity it comes from, and in-process
 * callers' data is not bounded by the HTTP depth limit.
 */
export function eraseStringLeaves(value: unknown, match: (s: string) => boolean = every): unknown {
  if (typeof value === 'string') return match(value) ? ERASED : value;
  if (value === null || typeof value !== 'object') return value;
  const root: Container = Array.isArray(value) ? [] : {};
  const stack: [Container, Container][] = [[value as Container, root]];
  while (stack.length) {
    const [from, to] = stack.pop()!;
    for (const key of Object.keys(from)) {
      const v = (from as Record<string, unknown>)[key];
      let out: unknown = v;
      if (typeof v === 'string') out = match(v) ? ERASED : v;
      else if (v !== null && typeof v === 'object') {
        out = Array.isArray(v) ? [] : {};
        stack.push([v as Container, out as Container]);
      }
      setEntry(to as Record<string, unknown>, key, out);
    }
  }
  return root;
}

// ------------------------------------------------------- the subject's own class

/** an instance id as the runtime takes one: anything else (a lookup `name!value`) would not name it by its id */
const INSTANCE_ID = /^[A-Za-z0-9_.@+\-=]{1,200}$/;

/**
 * The id of the subject's own instance in the class that keeps subjects of `type` (subjectOwnerClass: a user's
 * id in its user class); undefined for another type of subject, or for an id that is no instance id (a lookup
 * such as `email!...` would reach a record by another key than the id DataSubject was given).
 */
export function ownSubjectInstanceId(subject: Subject, type: SubjectType): string | undefined {
  return subject.type === type && INSTANCE_ID.test(subject.id) ? subject.id : undefined;
}

/**
 * What the subject's own class gets from its own instance of the subject (`reach`: its READ or INTERNAL write
 * of it), with `notFound` (the class's own error) thrown instead where that instance or its record does not
 * exist, so that DataSubject learns of no subject rather than of a failed call.
 */
export async function ownSubjectRecord<T>(reach: Promise<T>, notFound: () => Error): Promise<T> {
  try {
    return await reach;
  } catch (err) {
    if (isAbsentRecord(err)) throw notFound();
    throw err;
  }
}

/**
 * The personal values by which traces of a subject outside the classes' records are found (SubjectData
 * `values`), each once: blank ones and ERASED left out, since ERASED is no one's value and would find every
 * erased person's traces.
 */
export function subjectTraceValues(values: readonly unknown[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.trim() !== '' && v !== ERASED))];
}

/** How the subject's own class names the kinds of its two records: its state and its listing document. */
export interface OwnRecordKinds {
  classId: string;
  /** the kind of the instance's state (store `state`) */
  state: string;
  /** the kind of its document of the class's collection (store `listing`) */
  listing: string;
}

/**
 * A subject's own instance as exported: its state (store `state`, a copy of `state`, which the class has
 * already stripped of its secrets) and, once streamed, its listing document (store `listing`, without the
 * document store's own fields).
 */
export function stateAndListingRecords(
  kinds: OwnRecordKinds,
  instanceId: string,
  state: unknown,
  document: Readonly<Record<string, unknown>> | null,
): SubjectRecord[] {
  const records: SubjectRecord[] = [
    { store: 'state', classId: kinds.classId, instanceId, kind: kinds.state, data: structuredClone(state) },
  ];
  if (document) {
    records.push({
      store: 'listing',
      classId: kinds.classId,
      instanceId,
      kind: kinds.listing,
      data: listedDocument({ ...document }),
    });
  }
  return records;
}

/**
 * What erasing a subject's own instance counts: its state and, when one is streamed, its listing document
 * (re-projected from the erased state by the same commit); nothing when it was erased before.
 */
export function stateAndListingErased(erasedNow: boolean, listed: boolean): number {
  if (!erasedNow) return 0;
  return listed ? 2 : 1;
}

// ------------------------------------------------ classes with many records of a subject

/**
 * `each` of `items`, `pageSize` at a time: a page's worth of instance reads or writes (or blob reads) in flight
 * at once, never all of a subject's records at the same moment, however many it has. The answers come in the
 * order of `items`.
 */
export async function inPages<T, R>(
  items: readonly T[],
  pageSize: number,
  each: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += pageSize)
    out.push(...(await Promise.all(items.slice(i, i + pageSize).map(each))));
  return out;
}

/** What several erasures (one a record) erased together. */
export function totalErasure(parts: readonly SubjectErasure[]): SubjectErasure {
  const total: SubjectErasure = { records: 0, files: 0 };
  for (const part of parts) {
    total.records += part.records;
    total.files += part.files;
  }
  return total;
}
