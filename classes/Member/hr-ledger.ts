/**
 * The HR ledger: what each push of the HR endpoints (spec 4.1-4.3) leaves in
 * the `hr` call journal (runtime MethodOptions.journal). The runtime records
 * time, API key id, status, error code, duration and a digest of the body;
 * these functions add the record's ids and what the service did with it.
 *
 * Only identifiers, HR status values, field names and warnings: never a
 * name, email, phone, birthdate or photo. The staff id (`employeeId`) is the
 * subject, so one employee's pushes, dependants' included, are listed without
 * a scan. The ledger spans every company (a failed push may name none), so it
 * is kept for internal back-office users: company users are refused.
 */
import type { JournalCall, JournalValue, MethodJournal } from '../../runtime';

export const HR_JOURNAL = 'hr';

type Fields = Record<string, JournalValue | undefined>;

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const texts = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;

/** the `body` of a success envelope ({success: true, body}) */
function successBody(answer: unknown): Record<string, unknown> {
  const a = answer as { success?: unknown; body?: unknown } | undefined;
  return a && a.success === true && a.body && typeof a.body === 'object' ? (a.body as Record<string, unknown>) : {};
}

/** spec 4.2: the employee record */
export function describeEmployeePush({ body, answer }: JournalCall): Fields {
  const b = (body ?? {}) as Record<string, unknown>;
  const done = successBody(answer);
  return {
    endpoint: 'employee',
    employeeId: text(b.employeeId),
    oldStaffId: text(b.oldStaffId),
    bgId: text(b.companyId),
    hrStatus: text(b.status),
    memberId: text(done.memberId),
    updatedFields: texts(done.updatedFields),
    staffIdMigrated: done.staffIdMigrated === true ? true : undefined,
    ...held(done),
  };
}

/** a push the quarantine held (202): the approval that settles it */
function held(done: Record<string, unknown>): Fields {
  return done.held === true ? { held: true, approvalId: text(done.approvalId) } : {};
}

/** spec 4.3: the dependant record */
export function describeDependantPush({ body, answer }: JournalCall): Fields {
  const b = (body ?? {}) as Record<string, unknown>;
  const done = successBody(answer);
  return {
    endpoint: 'dependant',
    employeeId: text(b.employeeId),
    dependantId: text(b.id),
    hrStatus: text(b.status),
    relationship: text(b.type),
    primaryMemberId: text(done.primaryMemberId),
    updatedFields: texts(done.updatedFields),
    warnings: texts(done.warnings),
    ...held(done),
  };
}

/** spec 4.1: the photo, addressed by member id or `staffId!<id>` */
export function describePhotoPush({ body, instanceId }: JournalCall): Fields {
  const b = (body ?? {}) as Record<string, unknown>;
  const byStaffId = instanceId?.startsWith('staffId!') ? instanceId.slice('staffId!'.length) : undefined;
  const photo = typeof b.photo === 'string' ? b.photo : undefined;
  return {
    endpoint: 'photo',
    employeeId: byStaffId,
    memberId: byStaffId === undefined ? instanceId : undefined,
    fileExtension: text(b.fileExtension),
    // the decoded size, about: the photo itself is never kept here
    photoBytes: photo === undefined ? undefined : Math.floor((photo.replace(/=+$/, '').length * 3) / 4),
  };
}

const journal = (describe: MethodJournal['describe']): MethodJournal => ({
  name: HR_JOURNAL,
  subjectField: 'employeeId',
  describe,
});

export const HR_EMPLOYEE_JOURNAL = journal(describeEmployeePush);
export const HR_DEPENDANT_JOURNAL = journal(describeDependantPush);
export const HR_PHOTO_JOURNAL = journal(describePhotoPush);
