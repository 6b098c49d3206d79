/**
 * SystemEmail's state migrations (classes/SystemEmail/state-migrations.ts):
 * every shape version 1 stored (created, waiting for its first approval,
 * reviewed with each outcome, waiting again after a review) becomes version 2,
 * through the runtime's own loading of a stored state; a version-2 state is
 * left as it is.
 */
import { checkStateVersioning, loadState } from '../../runtime/actor/state-versions';
import type { InstanceState } from '../../runtime';
import { SYSTEM_EMAIL_STATE_VERSIONS, toV2, type SystemEmailStateV1 } from '../../classes/SystemEmail/state-migrations';
import type { LastReview, SystemEmailState, SystemEmailTemplate } from '../../classes/SystemEmail/types';

const template: SystemEmailTemplate = {
  templateId: 'WELCOME',
  type: 'member',
  status: 'active',
  to: ['ops@example.com'],
  title: 'Welcome',
  subject: 'Welcome {{name}}',
  html: '<p>Hello {{name}}</p>',
  json: { rows: [] },
  createdBy: { id: 'pm1', type: 'program_management_user', name: 'Pat' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
};

const review = (approvalId: string, outcome: LastReview['outcome'], action: LastReview['action']): LastReview => ({
  approvalId,
  event: 'system_email_update',
  action,
  outcome,
  by: 'ann',
  at: '2026-01-03T00:00:00.000Z',
});

/** the JSON version 1 stored: private state only, no "v" */
const storedV1 = (s: SystemEmailStateV1) => JSON.stringify({ private: s });
const load = (json: string) => loadState('SystemEmail', SYSTEM_EMAIL_STATE_VERSIONS, json).private as SystemEmailState;

describe('the declaration', () => {
  test('version 2, one migration to it, with a description', () => {
    expect(() => checkStateVersioning('SystemEmail', SYSTEM_EMAIL_STATE_VERSIONS)).not.toThrow();
    expect(SYSTEM_EMAIL_STATE_VERSIONS.version).toBe(2);
    expect(SYSTEM_EMAIL_STATE_VERSIONS.migrations[0].description).toMatch(/lastSettledApprovalId/);
  });
});

describe('version 1 → 2', () => {
  test('a created template (never reviewed): lastReview null, the guard gone', () => {
    const v2 = load(storedV1({ template, pendingApproval: null, lastSettledApprovalId: null }));
    expect(v2).toEqual({ template, pendingApproval: null, lastReview: null });
    expect(v2).not.toHaveProperty('lastSettledApprovalId');
  });

  test('waiting for its first approval: the pending approval kept as it was', () => {
    const pendingApproval = {
      id: 'ap-1',
      event: 'system_email_status_update' as const,
      requestedStatus: 'inactive' as const,
    };
    expect(load(storedV1({ template, pendingApproval, lastSettledApprovalId: null }))).toEqual({
      template,
      pendingApproval,
      lastReview: null,
    });
  });

  test.each([
    ['applied', 'approve'],
    ['rejected', 'reject'],
    ['conflict', 'approve'],
  ] as const)('reviewed (%s): the review kept whole, its approvalId the one id left', (outcome, action) => {
    const last = review('ap-1', outcome, action);
    const v2 = load(storedV1({ template, pendingApproval: null, lastSettledApprovalId: 'ap-1', lastReview: last }));
    expect(v2).toEqual({ template, pendingApproval: null, lastReview: last });
  });

  test('waiting again after a review: both the new approval and the last review kept', () => {
    const pendingApproval = { id: 'ap-2', event: 'system_email_update' as const, requestedStatus: 'active' as const };
    const last = review('ap-1', 'applied', 'approve');
    expect(load(storedV1({ template, pendingApproval, lastSettledApprovalId: 'ap-1', lastReview: last }))).toEqual({
      template,
      pendingApproval,
      lastReview: last,
    });
  });

  test('the other partitions are left alone', () => {
    const loaded = loadState(
      'SystemEmail',
      SYSTEM_EMAIL_STATE_VERSIONS,
      JSON.stringify({ public: { x: 1 }, private: { template, pendingApproval: null, lastSettledApprovalId: null } }),
    );
    expect(loaded).toEqual({
      public: { x: 1 },
      private: { template, pendingApproval: null, lastReview: null },
      user: {},
      role: {},
    });
  });
});

describe('a version-2 state', () => {
  test('is not migrated when loaded', () => {
    const last = review('ap-1', 'rejected', 'reject');
    const stored = { private: { template, pendingApproval: null, lastReview: last }, v: 2 };
    expect(load(JSON.stringify(stored))).toEqual(stored.private);
  });

  test('the migration run on it again changes nothing (idempotent)', () => {
    for (const lastReview of [null, review('ap-1', 'applied', 'approve')]) {
      const once = toV2({
        public: {},
        private: { template, pendingApproval: null, lastSettledApprovalId: lastReview?.approvalId ?? null, lastReview },
        user: {},
        role: {},
      } as InstanceState);
      const twice = toV2(structuredClone(once));
      expect(twice).toEqual(once);
      expect(once.private).toEqual({ template, pendingApproval: null, lastReview });
    }
  });
});
