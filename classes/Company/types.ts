/** Company records (spec 2.2), the singleton's state and the bodies of its methods. */
import type { StateOf } from '../../runtime';
import type { Actor } from '../_platform/actor';

export type CompanyStatus = 'pending' | 'active' | 'inactive';

/** the membership payment types a company may renew automatically (card payments need the member) */
export type MembershipAutoRenewal = 'company_paid' | 'dds';

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
  /**
   * payment types of the company's memberships that renew themselves at their end (Member README "Membership
   * life cycle"): `company_paid` (the company pays), `dds` (salary deduction); absent: none
   */
  membershipAutoRenewal?: MembershipAutoRenewal[];
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

/** The Company class's state (`@ActorClass<CompanyClassState>`): private holds CompanyState. */
export type CompanyClassState = StateOf<CompanyState>;
