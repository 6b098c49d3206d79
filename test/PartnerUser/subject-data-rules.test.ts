/**
 * PartnerUser's part of a data subject's export, pure
 * (classes/PartnerUser/subject-data-rules.ts): the subject's instance, the
 * records and the company (none).
 */
import { partnerUserSubjectData, subjectUserId, traceValues } from '../../classes/PartnerUser/subject-data-rules';
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
