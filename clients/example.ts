/**
 * The typed client in use (clients/client.ts: openapi-fetch over the
 * generated `api.d.ts`): the HR system's employee update (spec 4.2) with an
 * integration API key. The body is checked against the method's input
 * schema by the compiler, and the answer and the contract's error envelope
 * (spec 7.2) are typed by status:
 *
 *   const res = await hrUpdateEmployee('http://localhost:3000', process.env.HR_API_KEY!, {
 *     employeeId: 'E1001', name: 'Ana', surname: 'Lima', email: 'ana@example.com', companyId: 'BG1', status: 'active', ...
 *   });
 *   if (!res.ok) console.error(res.status, res.error.error.code, res.error.error.message);
 *   else console.log(res.body.body.memberId, res.body.body.updatedFields);
 *
 * Any other call reads the same way, e.g. a member's profile with the
 * member's own token:
 *
 *   const api = membershipClient({ baseUrl, token: accessToken });
 *   const { data } = await api.GET('/{projectId}/CALL/Member/getMemberProfile/{instanceId}', {
 *     params: { path: { projectId: 'membership', instanceId: memberId } },
 *   });
 */
import { readFileSync } from 'node:fs';
import { membershipClient, type paths } from './client';

type HrEmployee = paths['/members/hr/employee']['post'];
/** the body spec 4.2 takes */
export type HrEmployeeBody = NonNullable<HrEmployee['requestBody']>['content']['application/json'];
/** its answer (spec 4.2): `{success, message, body: {memberId, staffId, updatedFields, staffIdMigrated?}}` */
export type HrEmployeeAnswer = HrEmployee['responses'][200]['content']['application/json'];
/** the contract's error envelope (spec 7.2), whatever the status */
export type HrErrorBody = HrEmployee['responses'][400]['content']['application/json'];

export type Answer<T, E> = { ok: true; status: number; body: T } | { ok: false; status: number; error: E };

/** POST /members/hr/employee with an integration API key */
export async function hrUpdateEmployee(
  baseUrl: string,
  apiKey: string,
  body: HrEmployeeBody,
): Promise<Answer<HrEmployeeAnswer, HrErrorBody>> {
  const api = membershipClient({ baseUrl, apiKey });
  const { data, error, response } = await api.POST('/members/hr/employee', { body });
  if (data) return { ok: true, status: response.status, body: data };
  return { ok: false, status: response.status, error: error };
}

/** a class method's input, by its CALL path: here Member.updateEmployeePhoto (spec 4.1) */
export type EmployeePhotoBody = NonNullable<
  paths['/{projectId}/CALL/Member/updateEmployeePhoto/{instanceId}']['post']['requestBody']
>['content']['application/json'];

/**
 * Run as a script: `npx tsx clients/example.ts <baseUrl> <integration API key> <employee.json>`
 * posts the spec 4.2 record in the file (clients/example-employee.json is the
 * seed's E1001) and prints the answer; exit 1 on an error answer.
 */
if (require.main === module) {
  const [baseUrl, apiKey, file] = process.argv.slice(2);
  if (!baseUrl || !apiKey || !file) {
    process.stderr.write('usage: npx tsx clients/example.ts <baseUrl> <integration API key> <employee.json>\n');
    process.exit(2);
  }
  const body = JSON.parse(readFileSync(file, 'utf8')) as HrEmployeeBody;
  hrUpdateEmployee(baseUrl, apiKey, body).then(
    (res) => {
      if (res.ok)
        process.stdout.write(
          `${res.status} memberId ${res.body.body.memberId}, updated: ${res.body.body.updatedFields.join(', ') || 'nothing'}\n`,
        );
      else process.stdout.write(`${res.status} error ${res.error.error.code}: ${res.error.error.message}\n`);
      process.exitCode = res.ok ? 0 : 1;
    },
    (err: unknown) => {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
