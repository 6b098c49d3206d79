/**
 * HR 4.2: the HR system pushes the full employee record (hrUpdateEmployee,
 * STATIC), applied on the member found by its staff id (hrApplyEmployee).
 */
import { isUnknownInstance } from '../../../runtime';
import { actorFromIdentity, type Actor } from '../../_platform/actor';
import { findMemberTypeBySystemIdentifier, getCompanyByBgId, type CompanyRecord } from '../clients';
import { companyTakesMembers } from '../company-rules';
import { hrError } from '../errors';
import {
  employeeSemanticErrors,
  HR_MESSAGES,
  hrTimestampOf,
  isStalePush,
  newerPush,
  validationError,
} from '../hr-contract';
import { applyEmployeeRecord, employeePushOutcome, type EmployeeSnapshot } from '../hr-sync';
import {
  logMemberChange,
  memberState,
  profileOf,
  syncEmailLookup,
  syncStaffIdLookup,
  type MemberCtx,
  type MemberReadCtx,
  type MemberStaticCtx,
} from '../member-state';
import type { MemberProfile } from '../types';
import type { QuarantineSettings } from '../hr-quarantine';
import { hrGuard, sameCompanyGroupType } from './common';
import { heldAnswer, holdIfQuarantined } from './hr-hold';
import { members } from './self-client';
import type { HrUpdateEmployeeInput } from '../../../schemas/Member/inputs';

/** hrApplyEmployee's body (from hrUpdateEmployee) */
export interface ApplyEmployeeBody {
  record: HrUpdateEmployeeInput;
  memberTypeId: string;
  company: Pick<CompanyRecord, 'id' | 'companyGroupId' | 'status'>;
  /** the staff id the member was found by (the lookup may have moved since) */
  foundBy: string;
  migrated: boolean;
  /** who pushed the record (the API key's actor): named by the audit entry, not this class */
  actor: Actor;
  /** when HR produced the record (X-HR-Timestamp), if it said */
  recordedAt?: string;
}

/** Spec 4.2: the HR system pushes the full employee record. */
export async function hrUpdateEmployee(ctx: MemberStaticCtx<HrUpdateEmployeeInput>) {
  return hrGuard(ctx, async () => {
    const rec = ctx.request.body;
    const recordedAt = hrTimestampOf(ctx.request.headers);
    const errors = employeeSemanticErrors(rec);
    // both reads at once: one Redis round trip instead of two
    const [memberType, company] = await Promise.all([
      findMemberTypeBySystemIdentifier(ctx, rec.employmentType),
      getCompanyByBgId(ctx, rec.companyId),
    ]);
    if (!memberType || memberType.status !== 'active') {
      errors.employmentType = [`'${rec.employmentType}' does not match an active member type`];
    }
    if (Object.keys(errors).length) throw validationError(errors);

    if (!company) throw hrError('COMPANY_NOT_MAPPED', HR_MESSAGES.companyNotMapped);

    // the member by its staff id, else (migration) by the old one: the lookup is resolved by the call itself
    const apply = (foundBy: string, migrated: boolean) =>
      members<{ hrApplyEmployee: (ctx: MemberCtx<ApplyEmployeeBody>) => ReturnType<typeof hrApplyEmployee> }>(
        ctx,
      ).hrApplyEmployee(`staffId!${foundBy}`, {
        record: rec,
        memberTypeId: memberType!.id,
        company: { id: company.id, companyGroupId: company.companyGroupId, status: company.status },
        foundBy,
        migrated,
        actor: actorFromIdentity(ctx.identity),
        ...(recordedAt ? { recordedAt } : {}),
      });
    const unknown = (err: unknown) => isUnknownInstance(err);
    // most pushes of a daily sync change nothing: found so by a read, they take no write turn and commit nothing
    const self = members<{ hrEmployeeSnapshot: typeof hrEmployeeSnapshot }>(ctx);
    const snap = await self.hrEmployeeSnapshot(`staffId!${rec.employeeId}`).catch((err: unknown) => {
      if (unknown(err)) return undefined;
      throw err;
    });
    if (snap) {
      const outcome = employeePushOutcome(snap, {
        record: rec,
        memberTypeId: memberType!.id,
        companyId: company.id,
        foundBy: rec.employeeId,
        recordedAt,
      });
      if (outcome !== 'write') {
        return {
          success: true,
          message: outcome === 'stale' ? HR_MESSAGES.employeeStale : HR_MESSAGES.employeeUnchanged,
          body: { memberId: snap.profile.id, staffId: snap.profile.staffId, updatedFields: [] as string[] },
        };
      }
    }
    let out;
    try {
      out = await apply(rec.employeeId, false);
    } catch (err) {
      if (!unknown(err) || !rec.oldStaffId || rec.oldStaffId === rec.employeeId) {
        throw unknown(err) ? hrError('EMPLOYEE_NOT_FOUND', HR_MESSAGES.employeeNotFound) : err;
      }
      try {
        out = await apply(rec.oldStaffId, true);
      } catch (err2) {
        throw unknown(err2) ? hrError('EMPLOYEE_NOT_FOUND', HR_MESSAGES.employeeNotFound) : err2;
      }
    }
    if (out.heldApprovalId)
      return heldAnswer(
        ctx,
        HR_MESSAGES.employeeHeld,
        { memberId: out.memberId, staffId: out.staffId, updatedFields: [] },
        out.heldApprovalId,
      );
    return {
      success: true,
      message: out.stale
        ? HR_MESSAGES.employeeStale
        : out.updatedFields.length
          ? HR_MESSAGES.employeeUpdated
          : HR_MESSAGES.employeeUnchanged,
      body: {
        memberId: out.memberId,
        staffId: out.staffId,
        updatedFields: out.updatedFields,
        ...(out.staffIdMigrated ? { staffIdMigrated: true } : {}),
      },
    };
  });
}

export interface AppliedEmployee {
  memberId: string;
  staffId: string | null;
  updatedFields: string[];
  staffIdMigrated: boolean;
  stale: boolean;
  /** the quarantine holds the push (nothing applied): the approval that releases or discards it */
  heldApprovalId?: string;
}

export async function hrApplyEmployee(
  ctx: MemberCtx<ApplyEmployeeBody>,
  quarantine: QuarantineSettings,
): Promise<AppliedEmployee> {
  return applyEmployee(ctx, ctx.request.body, quarantine);
}

/** The member as the fast path of hrUpdateEmployee reads it (employeePushOutcome). */
export function hrEmployeeSnapshot(ctx: MemberReadCtx): EmployeeSnapshot {
  const state = memberState(ctx);
  return {
    profile: state.profile as MemberProfile,
    ...(state.hrRecordedAt ? { hrRecordedAt: state.hrRecordedAt } : {}),
    held: Boolean(state.heldHr),
  };
}

/**
 * Applies an employee record on the member; `quarantine` null: a held push
 * released by its approval (counted by no window, held no more).
 */
export async function applyEmployee(
  ctx: MemberCtx<unknown>,
  input: ApplyEmployeeBody,
  quarantine: QuarantineSettings | null,
): Promise<AppliedEmployee> {
  const before = profileOf(ctx);
  if (before.staffId !== input.foundBy) throw hrError('EMPLOYEE_NOT_FOUND', HR_MESSAGES.employeeNotFound);

  if (before.company?.id !== input.company.id) {
    // a member moves to active companies only; to HR a pending or inactive company maps to no service company (11016)
    if (!companyTakesMembers(input.company)) throw hrError('COMPANY_NOT_MAPPED', HR_MESSAGES.companyNotMapped);
    // spec 4.2/7.2: reassignment only within the same company group type (internal vs external)
    if (before.company?.id && !(await sameCompanyGroupType(ctx, before.company.id, input.company))) {
      throw hrError('COMPANY_GROUP_MISMATCH', HR_MESSAGES.companyGroupMismatch);
    }
  }

  const state = memberState(ctx);
  // a record older than one already applied: answered, not applied (pushes delivered out of order)
  if (isStalePush(state.hrRecordedAt, input.recordedAt)) {
    return {
      memberId: ctx.instanceId!,
      staffId: before.staffId,
      updatedFields: [] as string[],
      staffIdMigrated: false,
      stale: true,
    };
  }
  // a held push is HR's newest word too: an older one arriving later does not supersede it
  const recordedAt = newerPush(state.hrRecordedAt, input.recordedAt);
  if (recordedAt !== state.hrRecordedAt) state.hrRecordedAt = recordedAt;

  const result = applyEmployeeRecord(
    before,
    { record: input.record, memberTypeId: input.memberTypeId, companyId: input.company.id, migrated: input.migrated },
    new Date().toISOString(),
  );
  if (quarantine) {
    const hold = await holdIfQuarantined(ctx, quarantine, {
      kind: 'employee',
      before,
      after: result.profile,
      companyId: input.company.id,
      body: input as unknown as Record<string, unknown>,
      actor: input.actor,
    });
    if (hold.held)
      return {
        memberId: ctx.instanceId!,
        staffId: before.staffId,
        updatedFields: [],
        staffIdMigrated: false,
        stale: false,
        heldApprovalId: hold.approvalId,
      };
  }
  const staffIdMigrated = result.updatedFields.includes('staffId');
  if (result.updatedFields.length) {
    state.profile = result.profile;
    syncStaffIdLookup(ctx, result.profile);
    if ((await syncEmailLookup(ctx, result.profile)) === 'taken') {
      throw validationError({ email: ['is already used by another member'] });
    }
    await logMemberChange(
      ctx,
      before,
      result.profile,
      { source: 'hr_employee_update', updatedFields: result.updatedFields },
      input.actor,
    );
    if (before.company?.id !== input.company.id) await moveWaitingApprovals(ctx, input.company.id);
  }
  return {
    memberId: ctx.instanceId!,
    staffId: result.profile.staffId,
    updatedFields: result.updatedFields,
    staffIdMigrated,
    stale: false,
  };
}

/**
 * The member moved to another company: the approvals it waits for (a profile
 * change, an ID photo) move with it, committed with the move, so the new
 * company's approvers review them and the old company's no longer see them.
 */
async function moveWaitingApprovals(ctx: MemberCtx<unknown>, companyId: string): Promise<void> {
  const state = memberState(ctx);
  const waiting = [state.pendingChange?.approvalId, state.pendingPhoto?.approvalId].filter(
    (id): id is string => typeof id === 'string',
  );
  for (const approvalId of waiting) {
    await ctx.effect({
      classId: 'ApprovalManager',
      method: 'moveApprovalCompany',
      instanceId: approvalId,
      body: { companyId },
    });
  }
}
