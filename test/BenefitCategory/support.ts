/**
 * Shared helpers of the benefit catalogue's integration tests: a runtime
 * serving BenefitCategory and Offer with the real classes they work with
 * (Partner for the partners an offer names, and what Partner needs: Workflow,
 * ApprovalManager, LogManager, FileManager, RoleManager), over real Redis and
 * HTTP; the roles and identities; real partners made through Partner as the
 * system (approved at once).
 */
import { randomUUID } from 'node:crypto';
import { seedRoles, startTestRuntime, waitFor, type TestRuntime } from '../support/harness';

export type Headers = Record<string, string>;

export const CATALOGUE_ENV = {
  CLASS_DIRS:
    'classes/BenefitCategory,classes/Offer,classes/Partner,classes/Workflow,classes/ApprovalManager,classes/LogManager,classes/FileManager,classes/RoleManager,test/BenefitCategory/fixtures',
  SCHEMA_DIRS: 'schemas',
};

export const CATEGORY_METHODS = [
  'createCategory',
  'updateCategory',
  'updateCategoryStatus',
  'getCategory',
  'listCategories',
  'listActiveCategories',
];
export const OFFER_METHODS = ['createOffer', 'updateOffer', 'updateOfferStatus', 'getOffer', 'listOffers'];

export interface CatalogueRuntime {
  t: TestRuntime;
  /** level 1: every method */
  admin: Headers;
  /** level 10 with every catalogue method */
  editor: Headers;
  /** level 10 with the catalogue's reads */
  reader: Headers;
  /** level 10 with nothing of the catalogue */
  clerk: Headers;
  /** level 1, limited to company c-1 */
  companyUser: Headers;
  /** a member of the app */
  member: Headers;
  stop(): Promise<void>;
}

export function bearer(
  t: TestRuntime,
  userId: string,
  roles: string[],
  claims: Record<string, unknown> = {},
  identity: 'program_management_user' | 'enduser' = 'program_management_user',
): Headers {
  return { authorization: `Bearer ${t.rt.tokens.sign({ sub: userId, identity, roles, ...claims })}` };
}

/** `moreClassDirs`: other classes the test needs (the seed asks Setting for its singleton). */
export async function startCatalogueRuntime(moreClassDirs: string[] = []): Promise<CatalogueRuntime> {
  const t = await startTestRuntime({
    env: { ...CATALOGUE_ENV, CLASS_DIRS: [CATALOGUE_ENV.CLASS_DIRS, ...moreClassDirs].join(',') },
  });
  await seedRoles(t, [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    {
      id: 'r-editor',
      name: 'editor',
      level: 10,
      permissions: { BenefitCategory: CATEGORY_METHODS, Offer: OFFER_METHODS },
    },
    {
      id: 'r-reader',
      name: 'reader',
      level: 10,
      permissions: {
        BenefitCategory: ['getCategory', 'listCategories', 'listActiveCategories'],
        Offer: ['getOffer', 'listOffers'],
      },
    },
    { id: 'r-clerk', name: 'clerk', level: 10, permissions: { Partner: ['listPartners'] } },
  ]);
  return {
    t,
    admin: bearer(t, 'pm-admin', ['super']),
    editor: bearer(t, 'pm-editor', ['editor']),
    reader: bearer(t, 'pm-reader', ['reader']),
    clerk: bearer(t, 'pm-clerk', ['clerk']),
    companyUser: bearer(t, 'pm-company', ['super'], { tenant: 'c-1' }),
    member: bearer(t, 'm-1', [], {}, 'enduser'),
    stop: () => t.stop(),
  };
}

export function uid(prefix = 'x'): string {
  return `${prefix}${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

/** A class method over HTTP (POST to the CALL path). */
export function call(
  t: TestRuntime,
  classId: string,
  method: string,
  instanceId: string | undefined,
  body: unknown,
  headers: Headers = {},
) {
  return t.post(`/${t.projectId}/CALL/${classId}/${method}${instanceId ? `/${instanceId}` : ''}`, body, headers);
}

/** A partner made through Partner as the system (its creation approved at once): the partner-user tests' helper. */
export { createPartner } from '../PartnerUser/support';

/** The audit entries of one entity of a catalogue class (LogManager's listing, asked as the system), once there are `count`. */
export async function auditEntries(
  t: TestRuntime,
  classId: string,
  entityId: string,
  count: number,
): Promise<Record<string, any>[]> {
  return (await waitFor(
    async () => {
      const r = await t.rt.call('LogManager', 'getLogEntries', undefined, { classId, entityId, limit: 100 });
      const entries = (r.body as { entries: Record<string, any>[] }).entries;
      return entries.length >= count ? entries : undefined;
    },
    { what: `${count} audit entries of ${classId} ${entityId}` },
  ))!;
}

/** The streamed document of `id` in `collection` once `check` holds. */
export async function documentWhen(
  t: TestRuntime,
  collection: string,
  id: string,
  check: (doc: Record<string, any>) => boolean,
): Promise<Record<string, any>> {
  return (await waitFor(
    async () => {
      const d = (await t.rt.documents.get(collection, id)) as Record<string, any> | null;
      return d && check(d) ? d : undefined;
    },
    { what: `${collection} document ${id}` },
  ))!;
}
