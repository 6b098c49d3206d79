import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { configProblems, loadWorkflowConfigs, repoRoot, workflowConfigDirs } from '../../classes/Workflow/config';
import { selectRule } from '../../classes/Workflow/rules';

const tmpDirs: string[] = [];
function dirWith(files: Record<string, unknown>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wf-config-'));
  tmpDirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    fs.writeFileSync(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}
afterAll(() => tmpDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const good = {
  classId: 'Thing',
  rules: [{ event: 'e', currentStatus: '*', targetStatus: '*', conditions: [], approvers: [] }],
};

describe('rule-file schema', () => {
  test('a complete configuration passes', () => {
    expect(
      configProblems({
        classId: 'Thing',
        rules: [
          {
            event: 'e',
            currentStatus: 'pending',
            targetStatus: 'active',
            description: 'x',
            conditions: [
              { dataSource: 'entity', key: 'a.b', operator: 'in', value: [1, 2] },
              { dataSource: 'actor', key: 'roles', operator: 'not_in', value: ['x'] },
              { dataSource: 'entity', key: 'fee', operator: 'less_than', value: 10 },
              { dataSource: 'entity', key: 'startDate', operator: 'greater_than_equal', value: '2024-01-01' },
              { dataSource: 'entity', key: 'endDate', operator: 'less_than_equal', value: '2024-01-01T10:00:00Z' },
              { dataSource: 'entity', key: 'x', operator: 'equal', value: { deep: [1] } },
              { dataSource: 'entity', key: 'x', operator: 'not_equal', value: null },
            ],
            approvers: ['approver'],
            allowSelfApproval: true,
          },
          { event: 42, currentStatus: '*', targetStatus: '*', conditions: [], approvers: [], allowSelfApproval: false },
        ],
      }),
    ).toEqual([]);
  });

  const rule = (over: Record<string, unknown>) => ({ ...good.rules[0], ...over });
  const cond = (over: Record<string, unknown>) =>
    rule({ conditions: [{ dataSource: 'entity', key: 'a', operator: 'equal', value: 1, ...over }] });
  test.each([
    ['no classId', { rules: [] }],
    ['bad classId', { classId: '1x', rules: [] }],
    ['rules not an array', { classId: 'T', rules: {} }],
    ['unknown rule field', { classId: 'T', rules: [rule({ extra: 1 })] }],
    [
      'missing approvers',
      { classId: 'T', rules: [{ event: 'e', currentStatus: '*', targetStatus: '*', conditions: [] }] },
    ],
    ['empty event', { classId: 'T', rules: [rule({ event: '' })] }],
    ['unknown operator', { classId: 'T', rules: [cond({ operator: 'like' })] }],
    ['unknown data source', { classId: 'T', rules: [cond({ dataSource: 'request' })] }],
    ['in without an array', { classId: 'T', rules: [cond({ operator: 'in', value: 'a' })] }],
    ['less_than on a plain string', { classId: 'T', rules: [cond({ operator: 'less_than', value: 'abc' })] }],
    ['greater_than on a boolean', { classId: 'T', rules: [cond({ operator: 'greater_than', value: true })] }],
    [
      'condition without value',
      { classId: 'T', rules: [rule({ conditions: [{ dataSource: 'entity', key: 'a', operator: 'equal' }] })] },
    ],
    ['bad key', { classId: 'T', rules: [cond({ key: 'a..b' })] }],
    ['duplicate approvers', { classId: 'T', rules: [rule({ approvers: ['a', 'a'] })] }],
    ['allowSelfApproval not a boolean', { classId: 'T', rules: [rule({ allowSelfApproval: 'yes' })] }],
  ])('refuses %s', (_what, value) => {
    expect(configProblems(value).length).toBeGreaterThan(0);
  });
});

describe('loading rule files', () => {
  test('reads every *.json of every directory, keyed by class id', () => {
    const a = dirWith({ 'Thing.json': good, 'notes.txt': 'ignored' });
    const b = dirWith({ 'Other.json': { ...good, classId: 'Other' } });
    fs.mkdirSync(path.join(b, 'nested'));
    fs.writeFileSync(path.join(b, 'nested', 'Broken.json'), '{');
    const loaded = loadWorkflowConfigs([a, b]);
    expect([...loaded.keys()].sort()).toEqual(['Other', 'Thing']);
    expect(loaded.get('Thing')).toMatchObject({ file: path.join(a, 'Thing.json'), config: good });
  });

  test.each([
    ['malformed JSON', { 'Bad.json': '{ "classId": ' }, /Bad\.json: not valid JSON/],
    [
      'a schema violation',
      { 'Bad.json': { classId: 'Bad', rules: [{ event: 'e' }] } },
      /Bad\.json is invalid: .*currentStatus/,
    ],
    [
      'a class id that differs from the file name',
      { 'Bad.json': { ...good, classId: 'Thing' } },
      /Bad\.json: classId 'Thing' must match/,
    ],
  ])('a file with %s fails loudly, naming the file', (_what, files, message) => {
    expect(() => loadWorkflowConfigs([dirWith(files)])).toThrow(message);
  });

  test('a class configured twice and a missing directory fail', () => {
    const a = dirWith({ 'Thing.json': good });
    const b = dirWith({ 'Thing.json': good });
    expect(() => loadWorkflowConfigs([a, b])).toThrow(/class Thing is defined twice/);
    expect(() => loadWorkflowConfigs([path.join(a, 'missing')])).toThrow(/does not exist/);
  });

  test('WORKFLOW_CONFIG_DIR lists directories relative to the repository root', () => {
    expect(workflowConfigDirs({})).toEqual([path.join(repoRoot(), 'workflow-configs')]);
    expect(workflowConfigDirs({ WORKFLOW_CONFIG_DIR: 'workflow-configs, test/fixtures/workflow-configs' })).toEqual([
      path.join(repoRoot(), 'workflow-configs'),
      path.join(repoRoot(), 'test/fixtures/workflow-configs'),
    ]);
  });
});

describe('default rule files (spec 6)', () => {
  const defaults = loadWorkflowConfigs(workflowConfigDirs({}));
  const spec6: Record<string, string[]> = {
    Member: ['MEMBER_ID_PHOTO_UPLOAD'],
    Company: ['company_create', 'update_company', 'update_company_status'],
    Tier: [
      'tier_create',
      'tier_update',
      'tier_status_update',
      'eligibility_rule_add',
      'eligibility_rule_update',
      'eligibility_rule_deactivate',
    ],
    Partner: [
      'partner_create',
      'update_partner_details',
      'update_partner_brand_logo',
      'update_partner_contact',
      'update_partner_contract',
      'update_partner_status',
    ],
    Venue: ['venue_create', 'venue_update', 'venue_status_update'],
    PartnerUser: ['user_create', 'user_update', 'user_status_update'],
    RoleManager: ['role_create', 'role_update', 'role_status_update'],
    ContentManager: ['content_create', 'content_update', 'content_status_update'],
    SystemEmail: ['system_email_update', 'system_email_status_update'],
    NotificationManager: ['template_update', 'channel_update', 'status_update'],
  };
  const initial: Record<string, string> = { RoleManager: 'inactive', Partner: 'inactive', Venue: 'inactive' };
  // updates of what the service sends (OTPs, invitations) wait for an approver too (docs/workflow-defaults.md)
  const MANUAL_UPDATES = new Set(['NotificationManager.channel_update', 'SystemEmail.system_email_update']);

  test('there is a file for every class of spec 6 covering each of its events (classes may add events of their own)', () => {
    for (const [classId, events] of Object.entries(spec6)) {
      expect(defaults.has(classId)).toBe(true);
      const configured = new Set(defaults.get(classId)!.config.rules.map((r) => String(r.event)));
      for (const e of events) expect(configured.has(e)).toBe(true);
    }
  });

  const cases = Object.entries(spec6).flatMap(([classId, events]) => events.map((e) => [classId, e] as const));
  test.each(cases)('%s %s resolves to exactly one rule', (classId, event) => {
    const config = defaults.get(classId)!.config;
    const creation = /create$/.test(event);
    const currentStatus = creation ? (initial[classId] ?? 'pending') : 'active';
    const r = selectRule(config, {
      classId,
      event,
      currentStatus,
      entity: { status: 'inactive' },
      actor: { type: 'program_management_user' },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    // every role event waits for an approver (a role update can grant permissions)
    const manual =
      creation ||
      /status/.test(event) ||
      event === 'MEMBER_ID_PHOTO_UPLOAD' ||
      classId === 'RoleManager' ||
      MANUAL_UPDATES.has(`${classId}.${event}`);
    expect(r.rule.approvers).toEqual(manual ? ['approver'] : []);
    if (creation) expect(r.rule.targetStatus).toBe('active');
    if (/status_update$/.test(event)) expect(r.rule.targetStatus).toBe('*');
  });
});
