/** Shared set-up for the FileManager HTTP tests. */
import { startTestRuntime, type TestRuntime, seedRoles } from '../support/harness';

export const FILE_CLASS_ENV = {
  // only the classes these tests need (FileManager and the FileClient fixture)
  CLASS_DIRS: 'classes/FileManager,classes/RoleManager,classes/LogManager,test/FileManager/fixtures',
  SCHEMA_DIRS: 'schemas',
};

export const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

export interface FileTestRuntime extends TestRuntime {
  /** Authorization headers */
  pm: Record<string, string>;
  call(
    method: string,
    instanceId: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): ReturnType<TestRuntime['post']>;
  path(method: string, instanceId?: string): string;
}

export async function startFileRuntime(): Promise<FileTestRuntime> {
  const t = await startTestRuntime({ env: FILE_CLASS_ENV });
  await seedRoles(t, [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    { id: 'reader', name: 'reader', level: 10, permissions: { FileManager: ['getFile'] } },
  ]);
  const pm = { authorization: `Bearer ${t.token('program_management_user', 'pm1', ['super'])}` };
  const path = (method: string, instanceId?: string) =>
    `/${t.projectId}/CALL/FileManager/${method}${instanceId === undefined ? '' : `/${instanceId}`}`;
  return Object.assign(t, {
    pm,
    path,
    call: (method: string, instanceId: string, body?: unknown, headers: Record<string, string> = pm) =>
      t.post(path(method, instanceId), body ?? {}, headers),
  });
}

/** GET returning the raw bytes (for downloads). */
export async function fetchBytes(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const data = Buffer.from(await res.arrayBuffer());
  let json: any = null;
  try {
    json = JSON.parse(data.toString('utf8'));
  } catch {
    /* raw content */
  }
  return { status: res.status, headers: res.headers, data, json };
}
