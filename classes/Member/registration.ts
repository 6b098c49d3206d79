/**
 * HR-driven member registration (spec 4.4, 2.9 "members already in the HR
 * system may be migrated through the HR-driven member registration flow"):
 *
 *   1. look the employee up by email in the HR system (employee detail lookup)
 *   2. refuse when the employee is already a member (staff id) or cannot be
 *      one (no active member type for employmentType, no company for companyId,
 *      HR status not active)
 *   3. create the member (createMember with source `hr_registration`: the HR
 *      system is authoritative, so no approval) and its dependants (as the
 *      dependant upsert of 4.3 does; a dependant that cannot be created is
 *      reported as a warning)
 *   4. record the member id in the HR system (member-id update); when that
 *      fails after the client's retries, a QUEUED_WRITE (recordHrMemberId)
 *      keeps retrying with backoff, and the answer says so.
 */
import { ActorError, type Ctx } from '../../runtime';
import { findMemberSubTypeByHrmsMapping, findMemberTypeBySystemIdentifier, getCompanyByBgId } from './clients';
import { memberError } from './errors';
import { HrClientError, type HrClient, type HrEmployee } from './hr-client';
import { normalizeDependant } from './hr-contract';
import { unmappedTypeWarning } from './hr-sync';
import { memberIdByLookup } from './member-state';
import type { FamilyMember, LoginMethod, MemberProfile } from './types';

const DEPENDANT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export function hrUnavailable(err: unknown): ActorError {
  if (err instanceof HrClientError) {
    return memberError('HR_UNAVAILABLE', `The HR system could not be used: ${err.message}`, {
      kind: err.kind,
      ...(err.status !== undefined ? { status: err.status } : {}),
      attempts: err.attempts,
    });
  }
  return memberError('HR_UNAVAILABLE', `The HR system could not be used: ${(err as Error)?.message ?? String(err)}`);
}

export interface RegistrationResult {
  member: MemberProfile;
  dependants: { id: string; created: boolean; warnings: string[] }[];
  memberIdRecorded: boolean;
  warnings: string[];
}

export async function registerFromHr(ctx: Ctx, hr: HrClient): Promise<RegistrationResult> {
  const { email, loginMethod } = ctx.request.body as { email: string; loginMethod?: LoginMethod };
  let employee: HrEmployee | null;
  try {
    employee = await hr.lookupEmployee(email, ctx.signal);
  } catch (err) {
    throw hrUnavailable(err);
  }
  if (!employee) throw memberError('HR_EMPLOYEE_NOT_FOUND', `The HR system knows no employee with email '${email}'`);

  const existing = await memberIdByLookup(ctx, 'staffId', employee.employeeId);
  if (existing) {
    throw memberError('ALREADY_REGISTERED', `Employee '${employee.employeeId}' is already member '${existing}'`, { memberId: existing });
  }
  if (employee.status.toLowerCase() !== 'active') {
    throw memberError('HR_RECORD_REJECTED', `Employee '${employee.employeeId}' has HR status '${employee.status}'; only active employees register`, {
      field: 'status',
    });
  }
  const memberType = await findMemberTypeBySystemIdentifier(ctx, employee.employmentType);
  if (!memberType || memberType.status !== 'active') {
    throw memberError('HR_RECORD_REJECTED', `Employment type '${employee.employmentType}' matches no active member type`, { field: 'employmentType' });
  }
  const company = await getCompanyByBgId(ctx, employee.companyId);
  if (!company) throw memberError('HR_RECORD_REJECTED', `No company has BG_ID '${employee.companyId}'`, { field: 'companyId' });

  const created = await ctx.call('Member', 'createMember', undefined, {
    name: employee.name,
    surname: employee.surname,
    staffId: employee.employeeId,
    email: employee.email,
    phone: employee.phone,
    company: { id: company.id },
    grade: employee.grade,
    loginMethod: loginMethod ?? 'email_password',
    address: { country: employee.country, address: employee.address },
    memberType: memberType.id,
    isCabinCrew: employee.isCabinCrew,
    source: 'hr_registration',
  });
  const member = (created.body as { member: MemberProfile }).member;

  const warnings: string[] = [];
  const dependants: RegistrationResult['dependants'] = [];
  const primary = { id: member.id, company: member.company, memberType: member.memberType, loginMethod: member.loginMethod };
  for (const d of employee.dependants) {
    if (!DEPENDANT_ID.test(d.id)) {
      warnings.push(`Dependant '${d.id}' was not created: its id is not a valid member id`);
      continue;
    }
    const record = normalizeDependant({ ...d, employeeId: employee.employeeId, status: 'Active', phone: null });
    const subType = await findMemberSubTypeByHrmsMapping(ctx, record.type);
    const memberSubTypeId = subType && subType.status === 'active' ? subType.id : null;
    const depWarnings = memberSubTypeId ? [] : [unmappedTypeWarning(record.type)];
    try {
      const applied = (await ctx.call('Member', 'hrApplyDependant', d.id, { record, memberSubTypeId, primary })).body as {
        created: boolean;
        ref: FamilyMember;
        warnings: string[];
      };
      await ctx.call('Member', 'linkFamilyMember', member.id, applied.ref);
      dependants.push({ id: d.id, created: applied.created, warnings: [...depWarnings, ...applied.warnings] });
    } catch (err) {
      if (!(err instanceof ActorError) || err.status >= 500) throw err;
      warnings.push(`Dependant '${d.id}' was not created: ${err.message}`);
    }
  }

  let memberIdRecorded = true;
  try {
    await hr.recordMemberId(employee.employeeId, member.id, ctx.signal);
  } catch (err) {
    memberIdRecorded = false;
    await ctx.enqueue('Member', 'recordHrMemberId', member.id, { employeeId: employee.employeeId });
    warnings.push(`The member id could not be recorded in the HR system yet (${(err as Error).message}); it is retried in the background`);
  }
  ctx.response.status = 201;
  return { member, dependants, memberIdRecorded, warnings };
}
