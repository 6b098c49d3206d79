/** Company records (spec 2.2). */
import type { Actor } from '../_platform/actor';

export type CompanyStatus = 'pending' | 'active' | 'inactive';

export interface CompanyMemberSubType {
  memberSubTypeId: string;
  maxDependants: number;
}

export interface Company {
  id: string;
  name: string;
  description?: string;
  /** a company group setting (Setting.companyGroups) */
  companyGroupId: string;
  hrContact: { name: string; email: string };
  status: CompanyStatus;
  createdBy: Actor;
  createdAt: string;
  updatedAt: string;
  /** member type setting ids (Setting.memberTypes) */
  eligibleMemberTypes: string[];
  memberSubTypes: CompanyMemberSubType[];
  maxFreeDependants: number;
  /** HR business group id (BG_ID), matched against `companyId` of the HR employee update; unique across companies */
  bgId: string;
  /** the approval the company waits for, if any */
  pendingApprovalId: string | null;
}

/** The company as the workflow sees it (no bookkeeping). */
export type CompanyEntity = Omit<Company, 'pendingApprovalId'>;

/** ctx.state.private of the Company singleton */
export interface CompanyState {
  companies: Record<string, Company>;
  /** last manual stream request (streamCompany changes this so that the commit re-projects) */
  lastStreamed?: { id: string; at: string };
}

/** Create body (spec 2.2 fields; id optional). */
export interface CompanyInput {
  id?: string;
  name?: string;
  description?: string | null;
  companyGroupId?: string;
  hrContact?: { name: string; email: string };
  eligibleMemberTypes?: string[];
  memberSubTypes?: CompanyMemberSubType[];
  maxFreeDependants?: number;
  bgId?: string;
}
