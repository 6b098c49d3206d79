/**
 * Shared helpers of the Partner integration tests. The runtime serves Partner
 * and the real classes it uses (Workflow, ApprovalManager, LogManager,
 * FileManager, RoleManager for the roles), over real Redis and HTTP.
 */
import { startTestRuntime, seedRoles, waitFor, type TestRuntime } from '../support/harness';

export const PARTNER_ENV = {
  CLASS_DIRS:
    'classes/Partner,classes/Workflow,classes/ApprovalManager,classes/LogManager,classes/FileManager,classes/RoleManager',
  SCHEMA_DIRS: 'schemas',
};

export function startPartnerRuntime(extra: Record<string, string> = {}): Promise<TestRuntime> {
  return startTestRuntime({ env: { ...PARTNER_ENV, ...extra } });
}

/** every Partner method a program management user may be granted */
export const PARTNER_METHODS = [
  'init',
  'listPartners',
  'getPartnerDetails',
  'getPartnerContact',
  'getPartnerContract',
  'updatePartnerDetails',
  'updatePartnerBrandLogo',
  'updatePartnerContact',
  'updatePartnerContract',
  'updatePartnerStatus',
  'createVenue',
  'getVenue',
  'listVenues',
  'updateVenue',
  'updateVenueStatus',
  'uploadDocument',
  'listDocuments',
  'downloadDocument',
  'downloadArchivedDocument',
  'archiveDocument',
  'unarchiveDocument',
  'getLogEntries',
  'getLog',
];

/**
 * Roles: super (level 1); approver (level 10, reviews approvals); editor
 * (level 10, every Partner method but downloadArchivedDocument); reader
 * (level 10, the Partner READs and listings); clerk (level 10, nothing of Partner).
 */
export async function writePartnerRoles(t: TestRuntime): Promise<void> {
  await seedRoles(t, [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    {
      id: 'r-approver',
      name: 'approver',
      level: 10,
      permissions: { ApprovalManager: ['getApproval', 'listApprovals'] },
    },
    {
      id: 'r-editor',
      name: 'editor',
      level: 10,
      permissions: { Partner: PARTNER_METHODS.filter((m) => m !== 'downloadArchivedDocument') },
    },
    {
      id: 'r-reader',
      name: 'reader',
      level: 10,
      permissions: {
        Partner: [
          'listPartners',
          'getPartnerDetails',
          'getPartnerContact',
          'getPartnerContract',
          'getVenue',
          'listVenues',
          'listDocuments',
          'getLogEntries',
          'getLog',
        ],
      },
    },
    { id: 'r-clerk', name: 'clerk', level: 10, permissions: { ApprovalManager: ['getApproval'] } },
  ]);
}

export function bearer(
  t: TestRuntime,
  userId: string,
  roles: string[],
  identity: 'program_management_user' | 'enduser' = 'program_management_user',
) {
  return { authorization: `Bearer ${t.token(identity, userId, roles)}` };
}

let seq = 0;
/** a partner id of its own per test */
export function freshId(prefix = 'p'): string {
  seq += 1;
  return `${prefix}-${process.pid}-${seq}`;
}

export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n').toString('base64');

export function partnerBody(extra: Record<string, unknown> = {}) {
  return {
    legalName: 'Sunrise Hospitality LLC',
    brandName: 'Sunrise',
    businessAddress: '1 Beach Road',
    city: 'Dubai',
    country: 'AE',
    primaryContact: { name: 'Lina Haddad', email: 'lina@sunrise.example', phone: '+971500000000' },
    contractId: 'C-1',
    contractStartDate: '2030-01-01',
    contractEndDate: '2031-01-01',
    ...extra,
  };
}

export function venueBody(extra: Record<string, unknown> = {}) {
  return {
    venueName: 'Sunrise Marina',
    address: '2 Marina Walk',
    contactName: 'Omar Saleh',
    contactEmail: 'omar@sunrise.example',
    contactPhone: '+971500000001',
    mapCoordinates: { latitude: 25.08, longitude: 55.14 },
    ...extra,
  };
}

/** The streamed document of `collection` once `check` holds. */
export async function docWhen(
  t: TestRuntime,
  collection: string,
  id: string,
  check: (doc: Record<string, any>) => boolean,
  what?: string,
) {
  return waitFor(
    async () => {
      const d = await t.rt.documents.get(collection, id);
      return d && check(d as Record<string, any>) ? (d as Record<string, any>) : undefined;
    },
    { what: what ?? `${collection} ${id} document` },
  );
}

/** The Partner class's audit entries of one entity, newest first (read from LogManager directly). */
export async function auditEntries(
  t: TestRuntime,
  entityType: string,
  entityId: string,
): Promise<Record<string, any>[]> {
  const r = await t.rt.call('LogManager', 'getLogEntries', undefined, {
    classId: 'Partner',
    entityType,
    entityId,
    limit: 100,
  });
  return (r.body as { entries: Record<string, any>[] }).entries;
}

/** waits until `count` audit entries of the entity are there */
export async function auditEntriesWhen(
  t: TestRuntime,
  entityType: string,
  entityId: string,
  count: number,
): Promise<Record<string, any>[]> {
  const entries = await waitFor(
    async () => {
      const e = await auditEntries(t, entityType, entityId);
      return e.length >= count ? e : undefined;
    },
    { what: `${count} audit entries of ${entityType} ${entityId}` },
  );
  return entries!;
}
