/**
 * Shared helpers of the ContentManager integration tests. The runtime serves
 * ContentManager and the real classes it uses (Workflow, ApprovalManager,
 * LogManager, FileManager for the images, RoleManager for the roles,
 * BenefitCategory for the homepage section's options), over real Redis and HTTP.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { projectRoot } from '../../runtime/config';
import { ActorError } from '../../runtime/errors';
import { startTestRuntime, seedRoles, type TestRuntime } from '../support/harness';

const CLASSES = [
  'ContentManager',
  'Workflow',
  'ApprovalManager',
  'LogManager',
  'FileManager',
  'RoleManager',
  'BenefitCategory',
];

/** the classes above that this checkout has (BenefitCategory comes with the benefit catalogue) */
export function contentClassDirs(): string {
  return CLASSES.filter((c) => fs.existsSync(path.join(projectRoot(), 'classes', c)))
    .map((c) => `classes/${c}`)
    .join(',');
}

export function startContentRuntime(extra: Record<string, string> = {}): Promise<TestRuntime> {
  return startTestRuntime({ env: { CLASS_DIRS: contentClassDirs(), SCHEMA_DIRS: 'schemas', ...extra } });
}

/** every ContentManager method a program management user may be granted */
export const CONTENT_METHODS = [
  'init',
  'createContent',
  'updateContent',
  'updateContentStatus',
  'getContent',
  'getContentsForBackoffice',
];

/**
 * Roles: super (level 1); approver (level 10, reviews approvals); editor
 * (level 10, every ContentManager method); reader (level 10, nothing of ContentManager).
 */
export async function writeContentRoles(t: TestRuntime): Promise<void> {
  await seedRoles(t, [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    {
      id: 'r-approver',
      name: 'approver',
      level: 10,
      permissions: { ApprovalManager: ['getApproval', 'listApprovals'] },
    },
    { id: 'r-editor', name: 'editor', level: 10, permissions: { ContentManager: CONTENT_METHODS } },
    { id: 'r-reader', name: 'reader', level: 10, permissions: { ApprovalManager: ['getApproval'] } },
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
/** a content id of its own per test */
export function freshId(prefix = 'ct'): string {
  seq += 1;
  return `${prefix}-${process.pid}-${seq}`;
}

/** a 1×1 png, and the same as a data URL */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const PNG_DATA_URL = `data:image/png;base64,${PNG}`;
/** a 1×1 gif */
export const GIF = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

/** A valid `fields` of each content key. */
export const VALID_FIELDS: Record<string, Record<string, unknown>> = {
  login_login: { backgroundImage: PNG_DATA_URL },
  onboarding_onboarding: {
    title: 'Welcome',
    description: '<p>Your benefits, in one place</p>',
    image: PNG_DATA_URL,
    gradientColor: '#112233',
  },
  homepage_hero_banner: { image: GIF, description: 'Summer offers' },
  homepage_top_slider: { image: PNG_DATA_URL, actionUrl: 'https://example.com/offers' },
  homepage_bottom_slider: { image: PNG_DATA_URL, actionUrl: 'memberapp://offers/42' },
  homepage_section: {
    entityType: 'offer',
    sortField: 'newest',
    filterOfferTypes: ['discount', 'voucher'],
    filterFeaturedOnly: true,
    filterCreatedAtStart: '2030-01-01T00:00:00Z',
    filterCreatedAtEnd: '2030-02-01T00:00:00Z',
  },
};

export const GROUP_OF: Record<string, string> = {
  login_login: 'login',
  onboarding_onboarding: 'onboarding',
  homepage_hero_banner: 'homepage',
  homepage_top_slider: 'homepage',
  homepage_bottom_slider: 'homepage',
  homepage_section: 'homepage',
};

export function contentBody(contentKey: string, extra: Record<string, unknown> = {}) {
  return {
    contentKey,
    contentGroupKey: GROUP_OF[contentKey],
    contentTitle: `A ${contentKey}`,
    fields: VALID_FIELDS[contentKey],
    ...extra,
  };
}

/** ContentManager's method as the system identity (every workflow rule approves at once); a refusal as its status and body */
export async function asSystem(t: TestRuntime, method: string, body: unknown): Promise<{ status: number; body: any }> {
  try {
    const r = await t.rt.call('ContentManager', method, 'default', body);
    return { status: r.status, body: r.body };
  } catch (err) {
    if (err instanceof ActorError) return { status: err.status, body: err.toBody() };
    throw err;
  }
}

/** an active content made by the system identity */
export async function activeContent(
  t: TestRuntime,
  contentKey: string,
  extra: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const r = await asSystem(t, 'createContent', contentBody(contentKey, { id: freshId(), ...extra }));
  if (r.status !== 201 || r.body.content.status !== 'active')
    throw new Error(`content not created active: ${JSON.stringify(r.body)}`);
  return r.body.content;
}
