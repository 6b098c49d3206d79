/**
 * Shared helpers of the Member tests.
 *
 * The runtime serves every class of the service (classes/), so Member talks
 * to the real Setting, Company and Tier classes. The program data the tests
 * need (company groups, member types and sub types, companies; tier types and
 * tiers where a test needs them) is created through those classes' own
 * operations by the program seed (classes/_platform/seed.ts, `npm run cli --
 * seed`), as the system actor: every creation is approved at once.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { applySeed, type SeedDocument, type SeedOutcome } from '../../classes/_platform/seed';
import { projectRoot } from '../../runtime/config';
import { TEST_API_KEY, startTestRuntime, type TestRuntime } from '../support/harness';
import { findLogs } from '../support/logs';

export const MEMBER_CLASS_DIRS = 'classes';

/** CLASS_DIRS of a deployment that lacks some classes (a dependency that is not there). */
export function classDirsWithout(...classIds: string[]): string {
  const root = path.join(projectRoot(), 'classes');
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('_') && !classIds.includes(d.name))
    .map((d) => path.join('classes', d.name))
    .join(',');
}

export function startMemberRuntime(extra: Record<string, string> = {}): Promise<TestRuntime> {
  return startTestRuntime({ env: { CLASS_DIRS: MEMBER_CLASS_DIRS, SCHEMA_DIRS: 'schemas', ...extra } });
}

export const API_KEY = { 'x-api-key': TEST_API_KEY };

/** Program records; a `status` other than `active` is set after creation by the seed (seed.ts). */
export const MEMBER_TYPES = [
  { id: 'mt-perm', name: 'Permanent', systemIdentifier: 'Permanent', status: 'active' },
  { id: 'mt-temp', name: 'Temporary', systemIdentifier: 'Temporary', status: 'active' },
  { id: 'mt-retired', name: 'Retired', systemIdentifier: 'Retire', status: 'inactive' },
  { id: 'mt-dep', name: 'Dependant', systemIdentifier: 'Dependant', status: 'active' },
];

export const MEMBER_SUB_TYPES = [
  { id: 'mst-spouse', name: 'Spouse', hrmsMapping: ['spouse', 'wife', 'husband'], status: 'active' },
  { id: 'mst-child', name: 'Child', hrmsMapping: ['child', 'son', 'daughter'], status: 'active' },
  { id: 'mst-parent', name: 'Parent', hrmsMapping: ['parent'], status: 'inactive' },
];

export const COMPANY_GROUPS = [
  { id: 'cg-int', name: 'Group internal', type: 'internal', status: 'active' },
  { id: 'cg-int2', name: 'Group internal 2', type: 'internal', status: 'active' },
  { id: 'cg-ext', name: 'Group external', type: 'external', status: 'active' },
];

const HR_CONTACT = { name: 'HR desk', email: 'hr@example.com' };

export const COMPANIES = [
  {
    id: 'c-1',
    name: 'Airline',
    bgId: 'BG1',
    companyGroupId: 'cg-int',
    hrContact: HR_CONTACT,
    status: 'active',
    eligibleMemberTypes: ['mt-perm', 'mt-temp'],
    memberSubTypes: [
      { memberSubTypeId: 'mst-spouse', maxDependants: 1 },
      { memberSubTypeId: 'mst-child', maxDependants: 3 },
    ],
    maxFreeDependants: 2,
  },
  {
    id: 'c-2',
    name: 'Catering',
    bgId: 'BG2',
    companyGroupId: 'cg-int2',
    hrContact: HR_CONTACT,
    status: 'active',
    eligibleMemberTypes: [],
    memberSubTypes: [],
    maxFreeDependants: 0,
  },
  {
    id: 'c-3',
    name: 'Partner Co',
    bgId: 'BG3',
    companyGroupId: 'cg-ext',
    hrContact: HR_CONTACT,
    status: 'active',
    eligibleMemberTypes: [],
    memberSubTypes: [],
    maxFreeDependants: 0,
  },
];

/** The settings of the program (no companies): what seedProgram seeds before the companies. */
export const PROGRAM_SETTINGS: SeedDocument = {
  companyGroups: COMPANY_GROUPS,
  memberTypes: MEMBER_TYPES,
  memberSubTypes: MEMBER_SUB_TYPES,
};

/**
 * Applies a seed document through the real classes (applySeed, as the system
 * actor); throws when a record fails, so a test never runs on half its data.
 */
export async function seed(t: TestRuntime, doc: SeedDocument): Promise<SeedOutcome[]> {
  const outcomes = await applySeed(doc, (classId, method, instanceId, body) =>
    t.rt.call(classId, method, instanceId, body),
  );
  const failed = outcomes.filter((o) => o.result === 'failed');
  if (failed.length) throw new Error(`seeding failed: ${JSON.stringify(failed)}`);
  return outcomes;
}

/** The program of the Member tests: settings and companies. */
export async function seedProgram(t: TestRuntime): Promise<void> {
  await seed(t, { ...PROGRAM_SETTINGS, companies: COMPANIES });
}

let seq = 0;
/** a unique staff id / email stem per call */
export function uniq(prefix = 'E'): string {
  seq += 1;
  return `${prefix}${Date.now().toString(36)}${seq}`;
}

/** A member created as the system (auto-approved): status pending_invite (email_password). */
export async function createMember(t: TestRuntime, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const staffId = (body.staffId as string) ?? uniq('S');
  const r = await t.rt.call('Member', 'createMember', undefined, {
    name: 'Ada',
    surname: 'Lovelace',
    staffId,
    email: `${staffId.toLowerCase()}@example.com`,
    phone: '+100000',
    company: { id: 'c-1' },
    grade: 'G1',
    memberType: 'mt-perm',
    loginMethod: 'email_password',
    ...body,
  });
  return (r.body as { member: Record<string, any> }).member;
}

export async function memberState(
  t: TestRuntime,
  id: string,
): Promise<{ version: number; state: any; lookups: Record<string, string> }> {
  const stored = await t.rt.store.read('Member', id);
  if (!stored) throw new Error(`no member ${id}`);
  return { version: stored.version, state: JSON.parse(stored.stateJson), lookups: stored.lookups };
}

/** A valid full employee record (spec 4.2) for a staff id. */
export function employeeRecord(employeeId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    employeeId,
    name: 'Ada',
    middleName: null,
    surname: 'Lovelace',
    email: `${employeeId.toLowerCase()}@example.com`,
    phone: '+100000',
    grade: 'G1',
    employmentType: 'Permanent',
    status: 'active',
    address: { country: 'AE', address: '1 Main Street' },
    birthdate: '1990-05-01',
    gender: 'F',
    maritalStatus: 'single',
    coreGrade: 'C1',
    dependantsExists: 'N',
    oldStaffId: null,
    lastDayOfService: null,
    leavingReason: null,
    companyId: 'BG1',
    ...overrides,
  };
}

/** A valid dependant record (spec 4.3). */
export function dependantRecord(
  id: string,
  employeeId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id,
    employeeId,
    status: 'Active',
    name: 'Bea',
    surname: 'Lovelace',
    email: null,
    phone: '+200000',
    type: 'spouse',
    birthdate: '1992-02-29',
    ...overrides,
  };
}

/** Log entries of a member (LogManager's projection). */
export async function memberLogs(t: TestRuntime, memberId: string): Promise<Record<string, any>[]> {
  return (await findLogs(t, { classId: 'Member', entityId: memberId })).items;
}

/** 1×1 images of each type, Base64. */
export const IMAGES = {
  png: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  jpg: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0xff, 0xd9]).toString(
    'base64',
  ),
  gif: Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1').toString('base64'),
  webp: Buffer.concat([
    Buffer.from('RIFF'),
    Buffer.from([0x1a, 0, 0, 0]),
    Buffer.from('WEBPVP8 '),
    Buffer.alloc(14),
  ]).toString('base64'),
};
