/** Member's rules about companies, pure. */
import type { CompanyRecord } from './clients';

/** Pure: a company takes new members (or members moved to it) only while it is active. */
export function companyTakesMembers(company: Pick<CompanyRecord, 'status'>): boolean {
  return company.status === 'active';
}
