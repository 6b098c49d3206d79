/**
 * PartnerUser's part of a data subject's export and erasure, pure
 * (classes/PartnerUser/subject-data-rules.ts): the subject's instance, the
 * records and the company (none), and the state once erased.
 */
import { partnerUserDocument } from '../../classes/PartnerUser/rules';
import {
  ERASED_USER_FIELDS,
  erasedRecordCount,
  erasedUserState,
  isErased,
  partnerUserSubjectData,
  subjectUserId,
  traceValues,
} from '../../classes/PartnerUser/subject-data-rules';
import type { PartnerUserState } from '../../classes/PartnerUser/types';

const state = (): PartnerUserState => ({
  user: {
    id: 'pu1',
    fullName: 'Pat Partner',
    email: 'pat@partner.example',
    partners: [{ partnerId: 'p-1', role: 'admin' }],
    venues: [{ partnerId: 'p-1', venueId: 'v-1' }],
    status: 'active',
    statusReason: null,
    createdBy: 'system',
    updatedBy: 'system',
    createdAt: 1,
    updatedAt: 2,
  },
  pendingApproval: null,
  lastSettledApprovalId: null,
  lastReview: null,
});

describe('subjectUserId', () => {
  test('a partner user names its instance; other subjects none', () => {
    expect(subjectUserId({ type: 'partner_user', id: 'pu-1' })).toBe('pu-1');
    expect(subjectUserId({ type: 'member', id: 'pu-1' })).toBeUndefined();
    expect(subjectUserId({ type: 'program_management_user', id: 'pu-1' })).toBeUndefined();
  });

  test('a lookup address or an id the runtime would refuse names no user', () => {
    expect(subjectUserId({ type: 'partner_user', id: 'email!pat@partner.example' })).toBeUndefined();
    expect(subjectUserId({ type: 'partner_user', id: 'a/b' })).toBeUndefined();
  });
});

describe('partnerUserSubjectData', () => {
  test('the state as stored and the listing document (without the store fields); no company', () => {
    const stored = state();
    const doc = { _id: 'pu1', _v: 1, _instance: 'pu1', _class: 'PartnerUser', id: 'pu1', partnerIds: ['p-1'] };
    expect(partnerUserSubjectData('pu1', stored, doc)).toEqual({
      records: [
        { store: 'state', classId: 'PartnerUser', instanceId: 'pu1', kind: 'user', data: stored },
        {
          store: 'listing',
          classId: 'PartnerUser',
          instanceId: 'pu1',
          kind: 'partnerUserDocument',
          data: { id: 'pu1', partnerIds: ['p-1'] },
        },
      ],
      files: [],
      companyId: null,
      values: ['Pat Partner', 'pat@partner.example'],
    });
  });

  test('a copy of the state; no listing record before the user is streamed', () => {
    const stored = state();
    const out = partnerUserSubjectData('pu1', stored, null);
    (out.records[0].data as PartnerUserState).user.fullName = 'changed';
    expect(stored.user.fullName).toBe('Pat Partner');
    expect(out.records).toHaveLength(1);
  });
});

describe('traceValues', () => {
  test('the full name and the email, each once, none blank', () => {
    const { user } = state();
    expect(traceValues(user)).toEqual(['Pat Partner', 'pat@partner.example']);
    expect(traceValues({ ...user, fullName: '' })).toEqual(['pat@partner.example']);
  });
});

describe('erasedUserState', () => {
  const AT = 1_770_000_000_000;
  const waiting = (): PartnerUserState => ({
    ...state(),
    user: { ...state().user, statusReason: 'moved to the Dubai branch after her illness' },
    pendingApproval: { id: 'a-2', event: 'user_update', requestedStatus: 'active', operation: 'updateUser' },
    lastSettledApprovalId: 'a-1',
    lastReview: {
      approvalId: 'a-1',
      event: 'user_update',
      action: 'approve',
      outcome: 'conflict',
      reason: 'another partner user holds the email now',
      by: 'pm-approver',
      at: 3,
    },
  });

  test('full name and email become ERASED, the status reason goes; partners, venues and the facts stay', () => {
    const out = erasedUserState(waiting(), 'e-1', 'PartnerUser', AT);
    expect(ERASED_USER_FIELDS).toEqual(['fullName', 'email']);
    expect(out.user).toEqual({
      ...state().user,
      fullName: '[erased]',
      email: '[erased]',
      status: 'inactive',
      statusReason: null,
      updatedBy: 'PartnerUser',
      updatedAt: AT,
      erasedAt: AT,
      erasureId: 'e-1',
    });
    const json = JSON.stringify(out);
    for (const value of ['Pat', 'pat@partner.example', 'illness', 'holds the email']) expect(json).not.toContain(value);
  });

  test('the change waiting for an approval goes; the last review keeps its facts, not its reason', () => {
    const out = erasedUserState(waiting(), 'e-1', 'PartnerUser', AT);
    expect(out.pendingApproval).toBeNull();
    expect(out.lastSettledApprovalId).toBe('a-1');
    expect(out.lastReview).toEqual({
      approvalId: 'a-1',
      event: 'user_update',
      action: 'approve',
      outcome: 'conflict',
      by: 'pm-approver',
      at: 3,
    });
  });

  test('the state given is not changed', () => {
    const stored = waiting();
    erasedUserState(stored, 'e-1', 'PartnerUser', AT);
    expect(stored).toEqual(waiting());
  });

  test('an erased user is marked, its document holds no value, and it has no trace values left', () => {
    const out = erasedUserState(state(), 'e-1', 'PartnerUser', AT);
    expect(isErased(out.user)).toBe(true);
    expect(isErased(state().user)).toBe(false);
    const doc = partnerUserDocument(out.user, null);
    expect(doc).toMatchObject({ fullName: '[erased]', email: '[erased]', search: '[erased] [erased]', erasedAt: AT });
    expect(JSON.stringify(doc)).not.toMatch(/pat/i);
    expect(traceValues(out.user)).toEqual([]);
  });
});

describe('erasedRecordCount', () => {
  test('the state, and the listing document when one is streamed; nothing when erased before', () => {
    expect(erasedRecordCount(true, true)).toBe(2);
    expect(erasedRecordCount(true, false)).toBe(1);
    expect(erasedRecordCount(false, true)).toBe(0);
  });
});
