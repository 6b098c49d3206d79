/**
 * Setting (spec 2.4, 3.3, 4.5): the singleton (instance `default`) holding
 * the five setting groups of the program: company groups, member types,
 * member sub types, tier types and the tier configuration (payment periods).
 *
 * State: ctx.state.private = SettingState ({groups, pendingApprovals}).
 * Every create, update and status change runs the workflow (events
 * `setting_create`, `setting_update`, `setting_status_update`, with
 * additionalData.group; rules in workflow-configs/Setting.json) through the
 * platform's approval-gated change, is written to the audit log, and is
 * streamed: each record of the four list groups is a document of collection
 * `settings` (field `group`), which the list methods read. Creating methods
 * create the singleton on first use (upsert).
 *
 * This file declares the methods (access, kind, schema, budgets) and
 * delegates: each body lives in use-cases/<use case>.ts, the rules in rules.ts
 * and listing-rules.ts. README.md in this folder has the operations, choices and
 * error codes.
 */
import { ActorClass, Init, QueuedWrite, Read, Write } from '../../runtime';
import { SHARED_DATA } from '../_platform/scope';
import type { ApprovalCallbackBody } from '../_platform/workflow';
import type {
  ByIdInput,
  CreateCompanyGroupInput,
  CreateMemberSubTypeInput,
  CreateMemberTypeInput,
  CreateTierTypeInput,
  FindMemberSubTypeByHrmsMappingInput,
  FindMemberTypeBySystemIdentifierInput,
  GetPaymentPeriodsInput,
  GetProgramManagementConfigInput,
  GetSettingInput,
  InitInput,
  ListCompanyGroupsInput,
  ListMemberSubTypesInput,
  ListMemberTypesInput,
  ListSettingsInput,
  ListTierTypesInput,
  SetPaymentPeriodsInput,
  StreamValueInput,
  UpdateCompanyGroupInput,
  UpdateMemberSubTypeInput,
  UpdateMemberTypeInput,
  UpdateStatusInput,
  UpdateTierTypeInput,
} from '../../schemas/Setting/inputs';
import { invalidSettingQuery, LIST_SETTINGS } from './listing-rules';
import { invalidGroupLookup, settingDocuments, SETTINGS_COLLECTION } from './rules';
import type { SetStateInput, SettingClassState } from './types';
import * as approval from './use-cases/approval';
import { SETTING_INSTANCE, type SettingCtx, type SettingReadCtx } from './use-cases/common';
import * as create from './use-cases/create';
import * as listing from './use-cases/listing';
import * as paymentPeriods from './use-cases/payment-periods';
import * as read from './use-cases/read';
import * as wholeState from './use-cases/state';
import * as status from './use-cases/status';
import * as stream from './use-cases/stream';
import * as update from './use-cases/update';

export { SETTING_EVENTS, SETTING_INSTANCE } from './use-cases/common';
export type { ValueView } from './use-cases/read';

/** the types other classes see of this one (they import this file's types only) */
export type { PaymentPeriod, ProgramManagementConfig } from './types';

const PM = ['program_management_user'] as const;
const PM_AND_CLASSES = ['program_management_user', 'class'] as const;
/** a READ's query and body are refused alike: 400 10028 naming each field */
const READ_OPTIONS = { access: [...PM_AND_CLASSES], onValidationError: invalidSettingQuery };

@ActorClass<SettingClassState>({
  id: 'Setting',
  description:
    'Program settings: company groups, member types, member sub types, tier types, tier configuration (spec 2.4)',
  // programme reference data: company users read it, never change it
  tenancy: SHARED_DATA,
  stream: {
    collections: {
      [SETTINGS_COLLECTION]: {
        listings: [LIST_SETTINGS],
      },
    },
    toDocuments: (state) => settingDocuments(state.private),
  },
})
export class Setting {
  /** Creates the singleton (instance `default`) with empty groups and the default payment periods (or the given ones). */
  @Init({ access: [...PM_AND_CLASSES], instanceId: () => SETTING_INSTANCE })
  init(ctx: SettingCtx<InitInput>) {
    return create.init(ctx);
  }

  /** One group {group, title, description, value}; body or query {group} (another group: 400 10034). */
  @Read({ access: [...PM_AND_CLASSES], onValidationError: invalidGroupLookup })
  getSetting(ctx: SettingReadCtx<GetSettingInput>) {
    return read.getSetting(ctx);
  }

  /** Records of every list group from the document store; filters group, status, search; paging. */
  @Read(READ_OPTIONS)
  listSettings(ctx: SettingReadCtx<ListSettingsInput>) {
    return listing.listValues(ctx, 'listSettings');
  }

  /**
   * Replaces whole groups (migration, restore): body {groups: {<group>: {title?, description?, value}}}.
   * Checked like single changes; refused while any approval is pending. Runs `setting_update` (group `all`).
   * For the system identity and developers only (403 10037 for everyone else, level 1 too).
   */
  @Write({ access: [...PM], upsert: true, timeoutSeconds: 30 })
  setState(ctx: SettingCtx<SetStateInput>) {
    return wholeState.setState(ctx);
  }

  // ------------------------------------------------------------ company groups

  @Read(READ_OPTIONS)
  listCompanyGroups(ctx: SettingReadCtx<ListCompanyGroupsInput>) {
    return listing.listValues(ctx, 'companyGroups');
  }

  @Read({ ...READ_OPTIONS, schema: 'byId' })
  getCompanyGroup(ctx: SettingReadCtx<ByIdInput>) {
    return read.getValue(ctx, 'companyGroups');
  }

  @Write({ access: [...PM], upsert: true })
  createCompanyGroup(ctx: SettingCtx<CreateCompanyGroupInput>) {
    return create.createValue(ctx, 'companyGroups');
  }

  @Write({ access: [...PM] })
  updateCompanyGroup(ctx: SettingCtx<UpdateCompanyGroupInput>) {
    return update.updateValue(ctx, 'companyGroups');
  }

  @Write({ access: [...PM], schema: 'updateStatus' })
  updateCompanyGroupStatus(ctx: SettingCtx<UpdateStatusInput>) {
    return status.updateValueStatus(ctx, 'companyGroups');
  }

  @Write({ access: [...PM], schema: 'streamValue' })
  streamCompanyGroup(ctx: SettingCtx<StreamValueInput>) {
    return stream.streamValue(ctx, 'companyGroups');
  }

  // ------------------------------------------------------------ member types

  @Write({ access: [...PM], upsert: true })
  createMemberType(ctx: SettingCtx<CreateMemberTypeInput>) {
    return create.createValue(ctx, 'memberTypes');
  }

  @Write({ access: [...PM] })
  updateMemberType(ctx: SettingCtx<UpdateMemberTypeInput>) {
    return update.updateValue(ctx, 'memberTypes');
  }

  @Read({ ...READ_OPTIONS, schema: 'byId' })
  getMemberType(ctx: SettingReadCtx<ByIdInput>) {
    return read.getValue(ctx, 'memberTypes');
  }

  @Read(READ_OPTIONS)
  listMemberTypes(ctx: SettingReadCtx<ListMemberTypesInput>) {
    return listing.listValues(ctx, 'memberTypes');
  }

  @Write({ access: [...PM], schema: 'updateStatus' })
  updateMemberTypeStatus(ctx: SettingCtx<UpdateStatusInput>) {
    return status.updateValueStatus(ctx, 'memberTypes');
  }

  @Write({ access: [...PM], schema: 'streamValue' })
  streamMemberType(ctx: SettingCtx<StreamValueInput>) {
    return stream.streamValue(ctx, 'memberTypes');
  }

  /**
   * The member type for an HR employmentType: body or query
   * {systemIdentifier, includeInactive?}; case-insensitive; active types only
   * unless includeInactive. 404 when none.
   */
  @Read(READ_OPTIONS)
  findMemberTypeBySystemIdentifier(ctx: SettingReadCtx<FindMemberTypeBySystemIdentifierInput>) {
    return read.findMemberTypeBySystemIdentifier(ctx);
  }

  // ------------------------------------------------------------ member sub types

  @Write({ access: [...PM], upsert: true })
  createMemberSubType(ctx: SettingCtx<CreateMemberSubTypeInput>) {
    return create.createValue(ctx, 'memberSubTypes');
  }

  @Write({ access: [...PM] })
  updateMemberSubType(ctx: SettingCtx<UpdateMemberSubTypeInput>) {
    return update.updateValue(ctx, 'memberSubTypes');
  }

  @Read({ ...READ_OPTIONS, schema: 'byId' })
  getMemberSubType(ctx: SettingReadCtx<ByIdInput>) {
    return read.getValue(ctx, 'memberSubTypes');
  }

  @Read(READ_OPTIONS)
  listMemberSubTypes(ctx: SettingReadCtx<ListMemberSubTypesInput>) {
    return listing.listValues(ctx, 'memberSubTypes');
  }

  @Write({ access: [...PM], schema: 'updateStatus' })
  updateMemberSubTypeStatus(ctx: SettingCtx<UpdateStatusInput>) {
    return status.updateValueStatus(ctx, 'memberSubTypes');
  }

  @Write({ access: [...PM], schema: 'streamValue' })
  streamMemberSubType(ctx: SettingCtx<StreamValueInput>) {
    return stream.streamValue(ctx, 'memberSubTypes');
  }

  /**
   * The member sub type mapping an HR relationship type (spec 4.3 `type`):
   * body or query {relation, includeInactive?}; case-insensitive; active sub
   * types only unless includeInactive. 404 when none.
   */
  @Read(READ_OPTIONS)
  findMemberSubTypeByHrmsMapping(ctx: SettingReadCtx<FindMemberSubTypeByHrmsMappingInput>) {
    return read.findMemberSubTypeByHrmsMapping(ctx);
  }

  // ------------------------------------------------------------ tier types and tier configuration

  @Write({ access: [...PM], upsert: true })
  createTierType(ctx: SettingCtx<CreateTierTypeInput>) {
    return create.createValue(ctx, 'tierTypes');
  }

  @Write({ access: [...PM] })
  updateTierType(ctx: SettingCtx<UpdateTierTypeInput>) {
    return update.updateValue(ctx, 'tierTypes');
  }

  @Read({ ...READ_OPTIONS, schema: 'byId' })
  getTierType(ctx: SettingReadCtx<ByIdInput>) {
    return read.getValue(ctx, 'tierTypes');
  }

  @Read(READ_OPTIONS)
  listTierTypes(ctx: SettingReadCtx<ListTierTypesInput>) {
    return listing.listValues(ctx, 'tierTypes');
  }

  @Write({ access: [...PM], schema: 'updateStatus' })
  updateTierTypeStatus(ctx: SettingCtx<UpdateStatusInput>) {
    return status.updateValueStatus(ctx, 'tierTypes');
  }

  @Write({ access: [...PM], schema: 'streamValue' })
  streamTierType(ctx: SettingCtx<StreamValueInput>) {
    return stream.streamValue(ctx, 'tierTypes');
  }

  @Read(READ_OPTIONS)
  getPaymentPeriods(ctx: SettingReadCtx<GetPaymentPeriodsInput>) {
    return read.getPaymentPeriods(ctx);
  }

  /** Replaces the payment periods (keys unique); `setting_update` with group `tierConfig`. */
  @Write({ access: [...PM], upsert: true })
  setPaymentPeriods(ctx: SettingCtx<SetPaymentPeriodsInput>) {
    return paymentPeriods.setPaymentPeriods(ctx);
  }

  /** Active values of every group, payment periods and tier groups (back office forms; Company's reference checks). */
  @Read(READ_OPTIONS)
  getProgramManagementConfig(ctx: SettingReadCtx<GetProgramManagementConfigInput>) {
    return read.getProgramManagementConfig(ctx);
  }

  // ------------------------------------------------------------ approvals

  /** Approval callback (approve and reject) of every Setting event. */
  @QueuedWrite({ access: ['class:ApprovalManager'] })
  approveSetting(ctx: SettingCtx<ApprovalCallbackBody>) {
    return approval.approveSetting(ctx);
  }
}
