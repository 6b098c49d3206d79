/**
 * The Workflow class: rule files versus run-time configuration, management
 * methods, and the failures of spec 3.4 as entity classes see them.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { waitFor, type TestRuntime } from '../support/harness';
import { bearer, startWorkflowRuntime, writeRoles } from './support';

let t: TestRuntime;
let p: string;
let superUser: Record<string, string>;
let dev: Record<string, string>;
let clerk: Record<string, string>;
let senior: Record<string, string>;

beforeAll(async () => {
  t = await startWorkflowRuntime();
  await writeRoles(t);
  p = `/${t.projectId}/CALL`;
  superUser = bearer(t, 'root', ['super']);
  // writing rules is for developers and the system identity (level 1 is not enough)
  dev = bearer(t, 'dev1', ['super'], { developer: true });
  clerk = bearer(t, 'clerk1', ['clerk']);
  senior = bearer(t, 'sam', ['senior']);
});
afterAll(() => t.stop());

const runInput = (over: Record<string, unknown> = {}) => ({
  classId: 'Gadget',
  event: 'gadget_create',
  currentStatus: 'pending',
  entity: { status: 'pending', category: 'x' },
  actor: { id: 'u', type: 'program_management_user' },
  ...over,
});

const seniorOnly = {
  classId: 'Gadget',
  rules: [
    { event: 'gadget_create', currentStatus: '*', targetStatus: 'active', conditions: [], approvers: [] },
    { event: 'gadget_update', currentStatus: '*', targetStatus: '*', conditions: [], approvers: ['senior'] },
  ],
};

async function activeGadget(): Promise<string> {
  const r = await t.post(`${p}/Gadget/init`, { name: 'g', category: 'trusted', price: 1 }, clerk);
  expect(r.body.gadget.status).toBe('active');
  return r.body.gadget.id;
}

describe('run', () => {
  test('without an instance the rule file answers', async () => {
    const r = await t.rt.call('Workflow', 'run', undefined, runInput());
    expect(r.body).toMatchObject({
      source: 'file',
      ruleIndex: 0,
      targetStatus: 'active',
      rule: { approvers: ['approver'] },
    });
    const star = await t.rt.call(
      'Workflow',
      'run',
      undefined,
      runInput({ event: 'gadget_update', currentStatus: 'active', entity: { price: 1, status: 'inactive' } }),
    );
    expect(star.body).toMatchObject({ ruleIndex: 2, targetStatus: 'inactive' });
  });

  test('a class without rule file or instance: 500 14003', async () => {
    await expect(t.rt.call('Workflow', 'run', undefined, runInput({ classId: 'Nobody' }))).rejects.toMatchObject({
      status: 500,
      code: 14003,
    });
  });

  test('run is for classes only and checks its input', async () => {
    expect((await t.post(`${p}/Workflow/run`, runInput(), superUser)).status).toBe(403);
    await expect(t.rt.call('Workflow', 'run', undefined, { classId: 'Gadget' })).rejects.toMatchObject({
      status: 400,
      code: 1002,
    });
  });

  test('the default rule files are served (spec 6)', async () => {
    const r = await t.rt.call(
      'Workflow',
      'run',
      undefined,
      runInput({
        classId: 'RoleManager',
        event: 'role_create',
        currentStatus: 'inactive',
        entity: { status: 'inactive' },
      }),
    );
    expect(r.body).toMatchObject({ source: 'file', targetStatus: 'active', rule: { approvers: ['approver'] } });
  });
});

describe('configuration at run time', () => {
  test('updateWorkflowConfiguration replaces the rules; following events use them', async () => {
    const id = await activeGadget();
    const before = await t.post(`${p}/Gadget/update/${id}`, { price: 2 }, clerk);
    expect(before.body.approval.approvalType).toBe('auto');

    const missing = await t.get(`${p}/Workflow/getState/Gadget`, superUser);
    expect(missing.status).toBe(500);
    const r = await t.post(`${p}/Workflow/updateWorkflowConfiguration/Gadget`, seniorOnly, dev);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      classId: 'Gadget',
      rules: seniorOnly.rules,
      source: 'instance',
      version: 1,
      updatedBy: { id: 'dev1', type: 'developer' },
    });
    expect((await t.get(`${p}/Workflow/getState/Gadget`, superUser)).body).toMatchObject({
      classId: 'Gadget',
      rules: seniorOnly.rules,
      version: 1,
    });

    const after = await t.post(`${p}/Gadget/update/${id}`, { price: 3 }, clerk);
    expect(after.body.approval).toMatchObject({ approvalStatus: 'pending', approvers: ['senior'] });
    expect((await t.rt.call('Workflow', 'run', undefined, runInput())).body).toMatchObject({
      source: 'instance',
      rule: { approvers: [] },
    });
    await t.post(`${p}/ApprovalManager/reviewApproval/${after.body.approval.id}`, { action: 'approve' }, senior);
    await waitFor(async () => (await t.rt.documents.get('gadgets', id))?.price === 3, {
      what: 'approved under the new rules',
    });

    // setState puts the file's rules back
    const file = JSON.parse(fs.readFileSync(path.join(__dirname, '../fixtures/workflow-configs/Gadget.json'), 'utf8'));
    const reset = await t.post(`${p}/Workflow/setState/Gadget`, file, dev);
    expect(reset.body).toMatchObject({ rules: file.rules, version: 2 });
    expect((await t.post(`${p}/Gadget/update/${id}`, { price: 4 }, clerk)).body.approval.approvalType).toBe('auto');
  });

  test('a configuration for another class is refused (400 14005) by update, setState and init', async () => {
    const other = { ...seniorOnly, classId: 'Other' };
    for (const method of ['updateWorkflowConfiguration', 'setState', 'init']) {
      const r = await t.post(`${p}/Workflow/${method}/${method === 'init' ? 'Widget' : 'Gadget'}`, other, dev);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 14005, classId: 'Workflow', details: { classId: 'Other' } });
    }
    expect((await t.get(`${p}/Workflow/getState/Gadget`, superUser)).body.rules).not.toEqual(seniorOnly.rules);
  });

  test('a broken configuration is refused with field details', async () => {
    const broken = {
      classId: 'Gadget',
      rules: [
        {
          event: 'e',
          currentStatus: '*',
          targetStatus: '*',
          approvers: [],
          conditions: [{ dataSource: 'entity', key: 'a', operator: 'like', value: 1 }],
        },
      ],
    };
    const r = await t.post(`${p}/Workflow/updateWorkflowConfiguration/Gadget`, broken, dev);
    expect(r.status).toBe(400);
    expect(r.body.details.errors[0].field).toBe('rules.0.conditions.0.operator');
  });

  test('init takes the class id from the body; a second init is refused', async () => {
    const widget = {
      classId: 'Widget',
      rules: [{ event: 'w', currentStatus: '*', targetStatus: '*', conditions: [], approvers: [] }],
    };
    const r = await t.post(`${p}/Workflow/init`, widget, dev);
    expect(r.status).toBe(200);
    expect((await t.get(`${p}/Workflow/getState/Widget`, superUser)).body).toMatchObject(widget);
    expect((await t.post(`${p}/Workflow/init/Widget`, widget, dev)).status).toBe(409);
    const run = await t.rt.call(
      'Workflow',
      'run',
      undefined,
      runInput({ classId: 'Widget', event: 'w', currentStatus: 'none' }),
    );
    expect(run.body).toMatchObject({ source: 'instance', ruleIndex: 0 });
  });

  test('management needs a role that grants it; writing rules also needs a developer (or the system)', async () => {
    expect((await t.get(`${p}/Workflow/getState/Gadget`, clerk)).status).toBe(403);
    expect((await t.post(`${p}/Workflow/updateWorkflowConfiguration/Gadget`, seniorOnly, clerk)).status).toBe(403);
    for (const method of ['updateWorkflowConfiguration', 'setState', 'init']) {
      const r = await t.post(
        `${p}/Workflow/${method}/${method === 'init' ? 'Widget2' : 'Gadget'}`,
        seniorOnly,
        superUser,
      );
      expect([method, r.status, r.body.code]).toEqual([method, 403, 14007]);
    }
    const member = { authorization: `Bearer ${t.token('enduser', 'm1')}` };
    expect((await t.get(`${p}/Workflow/getState/Gadget`, member)).status).toBe(403);
  });

  test('a stored configuration of another class: 500 14000 on the next event', async () => {
    const id = await activeGadget();
    const key = t.rt.store.keys.instance('Workflow', 'Gadget');
    const good = await t.rt.redis.hget(key, 's');
    // written as a commit would write it: new state, next version (READs are cached by version)
    await t.rt.redis
      .multi()
      .hset(key, 's', JSON.stringify({ public: { ...seniorOnly, classId: 'Tier' } }))
      .hincrby(key, 'v', 1)
      .exec();
    try {
      const r = await t.post(`${p}/Gadget/update/${id}`, { price: 9 }, clerk);
      expect(r.status).toBe(500);
      expect(r.body).toMatchObject({
        code: 14000,
        classId: 'Workflow',
        details: { configClassId: 'Tier', classId: 'Gadget' },
      });
    } finally {
      await t.rt.redis.multi().hset(key, 's', good!).hincrby(key, 'v', 1).exec();
    }
    expect((await t.post(`${p}/Gadget/update/${id}`, { price: 9 }, clerk)).status).toBe(200);
  });
});

describe('rule files at start', () => {
  test('a broken rule file stops the start, naming the file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wf-broken-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'Broken.json'),
        JSON.stringify({ classId: 'Broken', rules: [{ event: 'e', currentStatus: '*' }] }),
      );
      await expect(startWorkflowRuntime({ WORKFLOW_CONFIG_DIR: `workflow-configs,${dir}` })).rejects.toThrow(
        /Broken\.json is invalid/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
