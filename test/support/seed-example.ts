/**
 * The example program of examples/seed.json, for tests that run the service's
 * own classes (CLASS_DIRS classes) on it: the parsed document, its seeding into
 * an in-process runtime, and the HR record (spec 4.2) of its first member.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { projectRoot } from '../../runtime/config';
import { applySeed, type SeedDocument } from '../../classes/_platform/seed';
import type { TestRuntime } from './harness';

export const EXAMPLE_SEED = JSON.parse(
  fs.readFileSync(path.join(projectRoot(), 'examples/seed.json'), 'utf8'),
) as SeedDocument;

/** Seeds the example program through the runtime's calls; throws with the refused entries if any is refused. */
export async function seedExample(t: TestRuntime): Promise<void> {
  const outcomes = await applySeed(EXAMPLE_SEED, (classId, method, instanceId, body) =>
    t.rt.call(classId, method, instanceId, body),
  );
  const failed = outcomes.filter((o) => o.result === 'failed');
  if (failed.length > 0)
    throw new Error(`examples/seed.json: ${failed.length} entries refused: ${JSON.stringify(failed)}`);
}

/** spec 4.2's body for the example's first member (an employee of its first company), grade G8 unless given */
export function exampleEmployee(grade = 'G8'): Record<string, unknown> {
  const member = EXAMPLE_SEED.members![0]!;
  return {
    employeeId: member.staffId,
    name: 'Amal',
    middleName: null,
    surname: 'Haddad',
    email: 'amal.haddad@acme.example',
    phone: '+971500000001',
    grade,
    employmentType: 'Permanent',
    status: 'active',
    address: { country: 'AE', address: '1 Airport Road, Dubai' },
    birthdate: '1990-05-01',
    gender: 'F',
    maritalStatus: 'Married',
    coreGrade: 'C1',
    dependantsExists: 'Y',
    oldStaffId: null,
    lastDayOfService: null,
    leavingReason: null,
    companyId: EXAMPLE_SEED.companies![0]!.bgId,
  };
}
