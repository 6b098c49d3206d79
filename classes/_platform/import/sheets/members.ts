/**
 * The member sheets (spec 2.9) into the Member class: each row is one call of
 * Member's importMember (STATIC, the system only), which finds the member,
 * compares it with the row and answers created, updated or unchanged,
 * writing (or, in a dry run, not writing) through Member's own rules; see
 * classes/Member/use-cases/import.ts. Writes need no approval and are
 * audited under the run's actor (`import <sheet> <file>`).
 *
 * "Member sheet" (`members`):
 *  - employeeId: the member's staff id. A row creates the member or updates
 *    the one holding that staff id. oldEmployeeId: when no member holds
 *    employeeId, the member holding oldEmployeeId takes it (a staff-id
 *    migration; the old id is kept in previousStaffIds), as the HR employee
 *    update does. A new member's id is derived from employeeId, so a run
 *    stopped half-way and started again creates no second member.
 *  - employmentType: the member type (mapping `memberTypes`: the word → a
 *    member type system identifier; unmapped words are taken as the system
 *    identifier), except `Dependant`: the row is then a dependant of the
 *    employee `employeeId`, found (or created) by `dependantId`, with
 *    `dependantType` as its relation (sub type from mapping `subTypes`, else
 *    the sub type whose hrmsMapping holds the word, else none, as the HR
 *    dependant upsert does). It takes its company, member type and login
 *    method from its employee and is listed in the employee's family.
 *    Dependant rows are imported after every employee row (the file is read
 *    twice), so a dependant may stand before its employee.
 *  - companyId: the company whose HR business group id (bgId) is the
 *    mapping `companies` entry of the word (unmapped: the word itself);
 *    required for employee rows.
 *  - name, middleName, surname, email, phone, grade, isCabinCrew; address
 *    with addressCountry (both or neither). A dependant row writes name,
 *    middleName, surname, email and phone (its employment columns are its
 *    employee's). Empty cells clear the field, isCabinCrew excepted (empty:
 *    left as it is).
 *  - primaryMemberType: the tier of the membership (mapping `tiers`;
 *    unmapped: a tier id). With it, membershipPaymentType (DDS, Credit Card,
 *    Company Paid; mapping `paymentTypes` to Member's dds, cpg,
 *    company_paid, which are also the defaults) is required;
 *    membershipStatus (active, inactive; default active), membershipStart,
 *    membershipEnd, membershipLastRenewal and membershipPaymentPeriod are
 *    written as given. The membership of that tier is created, or updated
 *    when the member has one; Member's rules apply (tier active, an
 *    eligibility rule accepting the payment type, company-paid for base tiers
 *    and free dependants, the start within the tier); a period or end not
 *    given comes from the tier and its rule, as addMembership gives it, and
 *    the payment schedule from the period.
 *  - A new employee gets the status member creation gives (3.1: approved,
 *    email_password → pending_invite); a new dependant the HR upsert's
 *    (active). The sheet never changes an existing member's status.
 *  - Checked, not written: birthdate (a date; the service keeps none, as the
 *    HR integration), idPhoto (an image id of the old system: the photo is
 *    not in the service; members upload theirs), secondaryMemberType (the
 *    sheet's Face add-on has no tier in the example programme; when the
 *    mapping `tiers` names the word, that tier must exist), createdAt and
 *    updatedAt (the service keeps its own times).
 *
 * "The service member sheet" (`dependants`): employeeId, dependantId?,
 * relation (spouse, child, sibling, in-law, parent), name, middleName?,
 * surname, phone, email, birthdate: dependants of existing employees, as
 * the dependant rows above. A row without dependantId is keyed by
 * employeeId, name, surname and birthdate: its dependant's id is derived
 * from them, so running the sheet again finds it (changing one of them makes
 * another dependant).
 *
 * The references (companies, member types, sub types, tiers) are read once
 * per run.
 */
import { createHash } from 'node:crypto';
import type { ImportContext, Row, RowProblem, RowResult, SheetDefinition } from '../types';
import { isMissing, text } from './common';

const EMPLOYMENT_TYPES = ['Permanent', 'Temporary', 'Retire', 'Dependant', 'Associated Company'] as const;
const RELATIONS = ['spouse', 'child', 'sibling', 'in-law', 'parent'] as const;
const PAYMENT_WORDS = ['DDS', 'Credit Card', 'Company Paid'] as const;
/** Member's payment types, and the sheet's words for them when the mapping names none */
const PAYMENT_TYPES = ['dds', 'cpg', 'company_paid'];
const DEFAULT_PAYMENT: Record<string, string> = { DDS: 'dds', 'Credit Card': 'cpg', 'Company Paid': 'company_paid' };

type Rec = Record<string, unknown> & { id: string; status?: string };

/** per run: reference answers (by class, method, value) and, in a dry run, the employees it would create */
interface RunState {
  refs: Map<string, Promise<Rec | null>>;
  planned: Map<string, { companyId: string; memberTypeId: string }>;
}
const runs = new WeakMap<ImportContext, RunState>();
function runState(ctx: ImportContext): RunState {
  let s = runs.get(ctx);
  if (!s) runs.set(ctx, (s = { refs: new Map(), planned: new Map() }));
  return s;
}

/** a record another class answers (`key` names it in the answer; the body itself when absent), null when there is none; remembered for the run */
function ref(
  ctx: ImportContext,
  classId: string,
  method: string,
  instanceId: string,
  body: unknown,
  key?: string,
): Promise<Rec | null> {
  const refs = runState(ctx).refs;
  const k = `${classId}\u0000${method}\u0000${instanceId}\u0000${JSON.stringify(body)}`;
  let answer = refs.get(k);
  if (!answer) {
    answer = ctx.call(classId, method, instanceId, body).then(
      (res) => ((key ? (res.body as Record<string, unknown>)[key] : res.body) as Rec | null) ?? null,
      (err) => {
        if (isMissing(err) || (err as { status?: number }).status === 400) return null;
        throw err;
      },
    );
    refs.set(k, answer);
  }
  return answer;
}

const word = (
  ctx: ImportContext,
  section: 'memberTypes' | 'companies' | 'tiers' | 'paymentTypes' | 'subTypes',
  w: string,
) => ctx.mapping[section]?.[w] ?? w;

const memberTypeOf = (ctx: ImportContext, w: string) =>
  ref(ctx, 'Setting', 'findMemberTypeBySystemIdentifier', 'default', { systemIdentifier: word(ctx, 'memberTypes', w) });
const companyOf = (ctx: ImportContext, w: string) =>
  ref(ctx, 'Company', 'getCompany', 'default', { bgId: word(ctx, 'companies', w) });
const tierOf = (ctx: ImportContext, w: string) => ref(ctx, 'Tier', 'getTier', word(ctx, 'tiers', w), {}, 'tier');

/** the sub type of a relation word: the mapping's (which must exist), else by hrmsMapping, else none */
async function subTypeOf(ctx: ImportContext, relation: string): Promise<{ subType: Rec | null } | { reason: string }> {
  const mapped = ctx.mapping.subTypes?.[relation];
  if (mapped) {
    const st = await ref(ctx, 'Setting', 'getMemberSubType', 'default', { id: mapped });
    return st && st.status === 'active'
      ? { subType: st }
      : { reason: `the mapping's member sub type '${mapped}' does not exist or is not active` };
  }
  const st = await ref(ctx, 'Setting', 'findMemberSubTypeByHrmsMapping', 'default', { relation });
  return { subType: st && st.status === 'active' ? st : null };
}

const paymentTypeOf = (ctx: ImportContext, w: string): string | undefined => {
  const t = ctx.mapping.paymentTypes?.[w] ?? DEFAULT_PAYMENT[w];
  return t && PAYMENT_TYPES.includes(t) ? t : undefined;
};

const isDependantRow = (row: Row) => text(row.employmentType) === 'Dependant';
const opt = (v: Row[string]) => (typeof v === 'string' && v !== '' ? v : null);

/** Member's field names in its refusals → the sheet's columns */
const MEMBER_COLUMNS: Record<string, string> = {
  'company.id': 'companyId',
  memberType: 'employmentType',
  memberSubType: 'dependantType',
  tierId: 'primaryMemberType',
  paymentType: 'membershipPaymentType',
  startDate: 'membershipStart',
  endDate: 'membershipEnd',
  primaryMemberId: 'employeeId',
};

/** Member's refusal as the runner reports it: the column at fault (details.field) and Member's message */
function asRowError(err: unknown, columns: Record<string, string>): unknown {
  const e = err as { status?: number; code?: number; message?: string; details?: { errors?: { field?: unknown }[] } };
  const field = e?.details?.errors?.[0]?.field;
  if (typeof field !== 'string') return err;
  return { status: e.status, message: e.message, details: { field: columns[field] ?? field } };
}

/** the membership columns as importMember takes them (the row's references checked already) */
async function membershipOf(row: Row, ctx: ImportContext) {
  if (row.primaryMemberType === undefined) return undefined;
  const tier = await tierOf(ctx, text(row.primaryMemberType));
  return {
    tier,
    tierId: tier!.id,
    paymentType: paymentTypeOf(ctx, text(row.membershipPaymentType)),
    status: text(row.membershipStatus) || 'active',
    ...(row.membershipPaymentPeriod !== undefined ? { paymentPeriod: text(row.membershipPaymentPeriod) } : {}),
    ...(row.membershipStart !== undefined ? { startDate: text(row.membershipStart) } : {}),
    ...(row.membershipEnd !== undefined ? { endDate: text(row.membershipEnd) } : {}),
    ...(row.membershipLastRenewal !== undefined ? { lastRenewal: text(row.membershipLastRenewal) } : {}),
  };
}

async function membershipProblems(row: Row, ctx: ImportContext): Promise<RowProblem[]> {
  const problems: RowProblem[] = [];
  if (row.primaryMemberType === undefined) {
    for (const c of [
      'membershipPaymentType',
      'membershipStatus',
      'membershipStart',
      'membershipEnd',
      'membershipLastRenewal',
      'membershipPaymentPeriod',
    ]) {
      if (row[c] !== undefined)
        problems.push({ column: c, value: String(row[c]), reason: 'a membership needs primaryMemberType (its tier)' });
    }
    return problems;
  }
  const tierWord = text(row.primaryMemberType);
  if (!(await tierOf(ctx, tierWord)))
    problems.push({
      column: 'primaryMemberType',
      value: tierWord,
      reason: `no tier '${word(ctx, 'tiers', tierWord)}' (mapping tiers)`,
    });
  const payWord = text(row.membershipPaymentType);
  if (!payWord)
    problems.push({ column: 'membershipPaymentType', value: '', reason: 'required with primaryMemberType' });
  else if (!paymentTypeOf(ctx, payWord))
    problems.push({
      column: 'membershipPaymentType',
      value: payWord,
      reason: `the mapping paymentTypes maps it to none of ${PAYMENT_TYPES.join(', ')}`,
    });
  const secondary = opt(row.secondaryMemberType);
  if (secondary && ctx.mapping.tiers?.[secondary] && !(await tierOf(ctx, secondary))) {
    problems.push({
      column: 'secondaryMemberType',
      value: secondary,
      reason: `no tier '${ctx.mapping.tiers[secondary]}' (mapping tiers)`,
    });
  }
  return problems;
}

/** one importMember call; a dry run remembers the employees it would create for their dependants */
async function importRow(
  ctx: ImportContext,
  body: Record<string, unknown>,
  write: boolean,
  columns: Record<string, string>,
): Promise<RowResult> {
  try {
    const res = await ctx.call('Member', 'importMember', undefined, { ...body, ...(write ? {} : { dryRun: true }) });
    return (res.body as { result: RowResult }).result;
  } catch (err) {
    throw asRowError(err, columns);
  }
}

/** the dependant id of a row: its dependantId, else one derived from the employee, name, surname and birthdate */
function dependantIdOf(row: Row): string {
  const given = opt(row.dependantId);
  if (given) return given;
  const name = [text(row.employeeId), text(row.name), text(row.surname), text(row.birthdate).slice(0, 10)].join(
    '\u0000',
  );
  return `dep-${createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 32)}`;
}

async function dependantBody(row: Row, ctx: ImportContext, relation: string, write: boolean) {
  const found = await subTypeOf(ctx, relation);
  const employeeId = text(row.employeeId);
  const planned = write ? undefined : runState(ctx).planned.get(employeeId);
  return {
    employeeId,
    fields: {
      name: text(row.name),
      middleName: opt(row.middleName),
      surname: text(row.surname),
      email: opt(row.email),
      phone: opt(row.phone),
    },
    dependant: {
      id: dependantIdOf(row),
      relation,
      memberSubType: 'subType' in found ? found.subType : null,
      ...(planned ? { plannedPrimary: planned } : {}),
    },
  };
}

export const members: SheetDefinition = {
  sheet: 'members',
  columns: [
    { name: 'employeeId', type: 'string', required: true },
    { name: 'oldEmployeeId', type: 'string' },
    { name: 'dependantId', type: 'string' },
    { name: 'email', type: 'string' },
    { name: 'name', type: 'string', required: true },
    { name: 'middleName', type: 'string' },
    { name: 'surname', type: 'string', required: true },
    { name: 'idPhoto', type: 'string' },
    { name: 'phone', type: 'string' },
    { name: 'grade', type: 'string' },
    { name: 'isCabinCrew', type: 'boolean' },
    { name: 'employmentType', type: 'string', required: true, values: EMPLOYMENT_TYPES },
    { name: 'companyId', type: 'string' },
    { name: 'birthdate', type: 'date' },
    { name: 'addressCountry', type: 'string' },
    { name: 'address', type: 'string' },
    { name: 'primaryMemberType', type: 'string' },
    { name: 'secondaryMemberType', type: 'string' },
    { name: 'dependantType', type: 'string', values: RELATIONS },
    { name: 'membershipStatus', type: 'string', values: ['active', 'inactive'] },
    { name: 'membershipStart', type: 'date' },
    { name: 'membershipEnd', type: 'date' },
    { name: 'membershipLastRenewal', type: 'date' },
    { name: 'membershipPaymentType', type: 'string', values: PAYMENT_WORDS },
    { name: 'membershipPaymentPeriod', type: 'string' },
    { name: 'createdAt', type: 'date' },
    { name: 'updatedAt', type: 'date' },
  ],
  // employees first, then dependants (read again): a dependant's employee exists when its row is applied
  passes: 2,
  passOf: (values) => (values.employmentType === 'Dependant' ? 2 : 1),
  key: (row) =>
    isDependantRow(row) ? `${text(row.employeeId)} dependant ${text(row.dependantId)}` : text(row.employeeId),
  async check(row, ctx) {
    const problems: RowProblem[] = [];
    if (isDependantRow(row)) {
      if (!opt(row.dependantId))
        problems.push({ column: 'dependantId', value: '', reason: 'required for a Dependant row' });
      const relation = text(row.dependantType);
      if (!relation) problems.push({ column: 'dependantType', value: '', reason: 'required for a Dependant row' });
      else {
        const st = await subTypeOf(ctx, relation);
        if ('reason' in st) problems.push({ column: 'dependantType', value: relation, reason: st.reason });
      }
    } else {
      const type = text(row.employmentType);
      const mt = await memberTypeOf(ctx, type);
      if (!mt || mt.status !== 'active')
        problems.push({
          column: 'employmentType',
          value: type,
          reason: `no active member type with system identifier '${word(ctx, 'memberTypes', type)}' (mapping memberTypes)`,
        });
      const companyId = text(row.companyId);
      if (!companyId) problems.push({ column: 'companyId', value: '', reason: 'required for an employee row' });
      else if (!(await companyOf(ctx, companyId)))
        problems.push({
          column: 'companyId',
          value: companyId,
          reason: `no company with HR business group id '${word(ctx, 'companies', companyId)}' (mapping companies)`,
        });
      if ((row.address === undefined) !== (row.addressCountry === undefined)) {
        const missing = row.address === undefined ? 'address' : 'addressCountry';
        problems.push({ column: missing, value: '', reason: 'address and addressCountry go together' });
      }
    }
    problems.push(...(await membershipProblems(row, ctx)));
    return problems;
  },
  async apply(row, ctx, write): Promise<RowResult> {
    const membership = await membershipOf(row, ctx);
    const employeeId = text(row.employeeId);
    if (isDependantRow(row)) {
      const body = {
        ...(await dependantBody(row, ctx, text(row.dependantType), write)),
        ...(membership ? { membership } : {}),
      };
      return importRow(ctx, body, write, MEMBER_COLUMNS);
    }
    const company = (await companyOf(ctx, text(row.companyId)))!;
    const memberType = (await memberTypeOf(ctx, text(row.employmentType)))!;
    const body = {
      employeeId,
      ...(row.oldEmployeeId !== undefined ? { oldEmployeeId: text(row.oldEmployeeId) } : {}),
      fields: {
        name: text(row.name),
        middleName: opt(row.middleName),
        surname: text(row.surname),
        email: opt(row.email),
        phone: opt(row.phone),
        grade: opt(row.grade),
        ...(typeof row.isCabinCrew === 'boolean' ? { isCabinCrew: row.isCabinCrew } : {}),
        address: row.address !== undefined ? { country: text(row.addressCountry), address: text(row.address) } : null,
      },
      company,
      memberType,
      ...(membership ? { membership } : {}),
    };
    const result = await importRow(ctx, body, write, MEMBER_COLUMNS);
    if (!write && result === 'created')
      runState(ctx).planned.set(employeeId, { companyId: company.id, memberTypeId: memberType.id });
    return result;
  },
};

export const dependants: SheetDefinition = {
  sheet: 'dependants',
  columns: [
    { name: 'employeeId', type: 'string', required: true },
    { name: 'dependantId', type: 'string' },
    { name: 'relation', type: 'string', required: true, values: RELATIONS },
    { name: 'name', type: 'string', required: true },
    { name: 'middleName', type: 'string' },
    { name: 'surname', type: 'string', required: true },
    { name: 'phone', type: 'string' },
    { name: 'email', type: 'string' },
    { name: 'birthdate', type: 'date', required: true },
  ],
  key: (row) => `${text(row.employeeId)} dependant ${dependantIdOf(row)}`,
  async check(row, ctx) {
    const relation = text(row.relation);
    const st = await subTypeOf(ctx, relation);
    return 'reason' in st ? [{ column: 'relation', value: relation, reason: st.reason }] : [];
  },
  async apply(row, ctx, write): Promise<RowResult> {
    return importRow(ctx, await dependantBody(row, ctx, text(row.relation), write), write, {
      ...MEMBER_COLUMNS,
      memberSubType: 'relation',
    });
  },
};
