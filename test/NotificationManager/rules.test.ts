/** NotificationManager's pure rules (classes/NotificationManager/rules.ts, builtins.ts). */
import { BUILT_IN_TEMPLATE_IDS, defaultTemplate, isBuiltIn } from '../../classes/NotificationManager/builtins';
import {
  applyChannelUpdate,
  applyTemplateUpdate,
  channelProblems,
  classifyRecipients,
  deliveryCounts,
  listFilter,
  matchesList,
  mergeRecipients,
  MESSAGE_LIMITS,
  pageOf,
  invalidQuery,
  listQuery,
  planDelivery,
  recipientKind,
  templateDocument,
  usedParameters,
} from '../../classes/NotificationManager/rules';
import type { NotificationTemplate } from '../../classes/NotificationManager/types';
import { schemaRefusal } from './support';

const NOW = '2030-01-01T00:00:00.000Z';

function template(over: Partial<NotificationTemplate> = {}): NotificationTemplate {
  return {
    templateId: 'T',
    title: 'Title',
    description: 'Description',
    status: 'active',
    audience: 'member',
    createdAt: NOW,
    updatedAt: NOW,
    channels: {
      email: {
        enabled: true,
        to: ['ops@example.com'],
        subject: 'Hi {{name}}',
        json: '',
        html: '<p>{{name}}: {{otp}}</p>',
      },
      in_app: { enabled: true, subject: 'For {{name}}', content: 'Code {{otp}}', metadata: { kind: 'otp' } },
      sms: { enabled: false, content: 'SMS {{smsOnly}}', to: ['+15550001111'] },
    },
    ...over,
  };
}

describe('the catalogue', () => {
  test('the spec four (spelled as the spec spells them) and the member templates, active with their defaults', () => {
    for (const id of [
      'OTP_PROGRAM_MANAGEMENT_INVITE',
      'OTP_PROGRAM_MANAGEMENT_LOGIN',
      'OTP_PROGRAM_MANAGEMENT_PASSWORD_RESET',
      'SSO_USER_INTIVATION_PROGRAM_MANAGEMENT',
      'OTP_MEMBER_LOGIN',
      'MEMBER_WELCOME',
    ]) {
      expect(BUILT_IN_TEMPLATE_IDS).toContain(id);
    }
    for (const id of BUILT_IN_TEMPLATE_IDS) {
      const t = defaultTemplate(id, NOW)!;
      expect(t).toMatchObject({ templateId: id, status: 'active', createdAt: NOW, updatedAt: NOW });
      // every default passes the checks a saved channel passes
      for (const c of ['email', 'in_app', 'sms'] as const)
        expect([id, c, channelProblems(t.channels, c)]).toEqual([id, c, []]);
    }
    expect(usedParameters(defaultTemplate('OTP_PROGRAM_MANAGEMENT_LOGIN', NOW)!)).toEqual(['otp']);
    expect(usedParameters(defaultTemplate('SSO_USER_INTIVATION_PROGRAM_MANAGEMENT', NOW)!).sort()).toEqual([
      'loginUrl',
      'name',
    ]);
  });

  test('ids outside the catalogue have no defaults, Object.prototype names included; defaults are copies', () => {
    for (const id of ['NOPE', 'constructor', '__proto__', 'toString']) {
      expect(isBuiltIn(id)).toBe(false);
      expect(defaultTemplate(id, NOW)).toBeUndefined();
    }
    const a = defaultTemplate('MEMBER_WELCOME', NOW)!;
    a.channels.email.to.push('x@example.com');
    expect(defaultTemplate('MEMBER_WELCOME', NOW)!.channels.email.to).toEqual([]);
  });
});

describe('recipients', () => {
  test('an entry is an email address, a phone number or an inbox id', () => {
    expect(recipientKind('a.b@example.com')).toBe('email');
    expect(recipientKind('+4479001234567')).toBe('phone');
    expect(recipientKind('M3f0c')).toBe('inbox');
    expect(recipientKind('PMabc-1')).toBe('inbox');
    // a member id with a capital M first is an inbox id only without an @
    expect(recipientKind('Mary@example.com')).toBe('email');
    for (const bad of [
      'nobody',
      'a@b',
      'a @example.com',
      '<a@example.com>',
      '+12',
      '+0123456789',
      'X123',
      'M',
      'PM',
      'M a',
      `${'a'.repeat(65)}@example.com`,
    ]) {
      expect([bad, recipientKind(bad)]).toEqual([bad, undefined]);
    }
  });

  test('the call is sorted by kind without repeats (emails compared case-insensitively); bad entries named by index', () => {
    const r = classifyRecipients(['A@example.com', 'a@example.com', 'M1', 'M1', '+15550001111', 'bad', 'PM1']);
    expect(r.recipients).toEqual({ emails: ['A@example.com'], phones: ['+15550001111'], inboxes: ['M1', 'PM1'] });
    expect(r.problems.map((p) => p.field)).toEqual(['to.5']);
  });

  test('the call first, then the template defaults, without repeats', () => {
    expect(mergeRecipients(['a@example.com'], ['OPS@example.com', 'A@example.com'], true)).toEqual([
      'a@example.com',
      'OPS@example.com',
    ]);
    expect(mergeRecipients([], undefined, false)).toEqual([]);
  });
});

describe('planDelivery', () => {
  test('each enabled channel rendered to its recipients: the call merged with the channel defaults', () => {
    const plan = planDelivery(template(), {
      to: ['a@example.com', 'M1', 'PM2', '+15550002222'],
      parameters: { name: 'Ann & <Bob>', otp: '42' },
    });
    expect(plan).toEqual({
      ok: true,
      delivery: {
        templateId: 'T',
        email: {
          to: ['a@example.com', 'ops@example.com'],
          subject: 'Hi Ann & <Bob>',
          html: '<p>Ann &amp; &lt;Bob&gt;: 42</p>',
        },
        inApp: {
          inboxes: ['M1', 'PM2'],
          item: { templateId: 'T', subject: 'For Ann & <Bob>', content: 'Code 42', metadata: { kind: 'otp' } },
        },
      },
    });
    // SMS is disabled: its parameter is not needed, its recipients not used
    if (plan.ok) expect(deliveryCounts(plan.delivery)).toEqual({ email: 2, inApp: 2, sms: 0 });
  });

  test('a channel without recipients is left out; the SMS channel sends to its defaults too', () => {
    const t = template({
      channels: {
        ...template().channels,
        email: { ...template().channels.email, to: [] },
        sms: { enabled: true, content: 'SMS {{otp}}', to: ['+15550001111'] },
      },
    });
    const plan = planDelivery(t, { to: [], parameters: { name: 'A', otp: '1' } });
    expect(plan).toEqual({ ok: true, delivery: { templateId: 'T', sms: { to: ['+15550001111'], text: 'SMS 1' } } });
  });

  test('parameters: not strings, or missing (every missing name listed, in order of use)', () => {
    expect(planDelivery(template(), { to: ['M1'], parameters: { name: 'A', otp: 42 } })).toMatchObject({
      ok: false,
      error: 'invalid_parameters',
      problems: [{ field: 'parameters.otp' }],
    });
    expect(planDelivery(template(), { to: ['M1'] })).toMatchObject({
      ok: false,
      error: 'missing_parameters',
      missing: ['name', 'otp'],
    });
    expect(planDelivery(template(), { to: ['M1'], parameters: { otp: '1', constructor: 'x' } })).toMatchObject({
      ok: false,
      missing: ['name'],
    });
  });

  test("bad recipients, and rendered messages the ports would refuse, are the send's problems", () => {
    expect(planDelivery(template(), { to: ['nope'], parameters: { name: 'A', otp: '1' } })).toMatchObject({
      ok: false,
      error: 'invalid_recipients',
      problems: [{ field: 'to.0' }],
    });
    const long = 'x'.repeat(MESSAGE_LIMITS.subject);
    expect(planDelivery(template(), { to: ['a@example.com'], parameters: { name: long, otp: '1' } })).toMatchObject({
      ok: false,
      error: 'message_too_long',
      problems: [{ field: 'channels.email.subject' }],
    });
    // a subject is one line
    const plan = planDelivery(template(), {
      to: ['a@example.com'],
      parameters: { name: 'A\r\nBcc: x@example.com', otp: '1' },
    });
    expect(plan.ok && plan.delivery.email!.subject).toBe('Hi A Bcc: x@example.com');
  });
});

describe('updates', () => {
  test('title and description; nothing changed is null', () => {
    expect(applyTemplateUpdate(template(), { title: 'New' }, 'later')).toMatchObject({
      title: 'New',
      description: 'Description',
      updatedAt: 'later',
    });
    expect(applyTemplateUpdate(template(), { title: 'Title' }, 'later')).toBeNull();
  });

  test('a channel takes the fields given; metadata null removes it; a field of another channel is refused', () => {
    const t = template();
    const r = applyChannelUpdate(t, 'in_app', { subject: 'S', metadata: null }, 'later');
    expect(r).toMatchObject({ ok: true });
    if (r.ok === true) {
      expect(r.template.channels.in_app).toEqual({ enabled: true, subject: 'S', content: 'Code {{otp}}' });
      expect(r.template.channels.email).toBe(t.channels.email);
      expect(r.template.updatedAt).toBe('later');
    }
    expect(applyChannelUpdate(t, 'sms', { html: 'x' }, 'later')).toEqual({
      ok: false,
      problems: [{ field: 'content.html', reason: expect.stringContaining('sms') }],
    });
    expect(applyChannelUpdate(t, 'email', { enabled: true }, 'later')).toEqual({ ok: 'unchanged' });
  });

  test('a saved channel: valid templates, no unescaped html values, something to send when enabled, default recipients of its kind', () => {
    const ch = template().channels;
    expect(channelProblems({ ...ch, email: { ...ch.email, html: '{{#a}}' } }, 'email').map((p) => p.field)).toEqual([
      'channels.email.html',
    ]);
    expect(channelProblems({ ...ch, email: { ...ch.email, html: '{{{a}}}' } }, 'email').map((p) => p.field)).toEqual([
      'channels.email.html',
    ]);
    expect(
      channelProblems({ ...ch, email: { ...ch.email, to: ['+15550001111'] } }, 'email').map((p) => p.field),
    ).toEqual(['channels.email.to.0']);
    expect(channelProblems({ ...ch, sms: { enabled: true, content: ' ' } }, 'sms').map((p) => p.field)).toEqual([
      'channels.sms.content',
    ]);
    expect(channelProblems({ ...ch, sms: { enabled: false, content: '' } }, 'sms')).toEqual([]);
    expect(
      channelProblems({ ...ch, sms: { enabled: true, content: 'x', to: ['a@example.com'] } }, 'sms').map(
        (p) => p.field,
      ),
    ).toEqual(['channels.sms.to.0']);
  });
});

describe('listing', () => {
  test('page (from 1), limit (1-100, default 10), status, a trimmed search', () => {
    expect(listQuery({})).toEqual({ page: 1, limit: 10 });
    expect(listQuery({ page: 2, limit: 5, status: 'inactive', search: ' OTP ' })).toEqual({
      page: 2,
      limit: 5,
      status: 'inactive',
      search: 'OTP',
    });
    expect(listQuery({ search: '  ' })).toEqual({ page: 1, limit: 10 });
  });

  test('a GET query is coerced by the schema; bad values and other keys are refused, as 400 16008', () => {
    expect(schemaRefusal('NotificationManager', 'listNotificationTemplates', { page: '2', limit: '5' })).toEqual({
      input: { page: 2, limit: 5 },
      fields: [],
    });
    const raw = { page: '0', limit: '101', status: 'gone', search: 'x'.repeat(201), extra: '1' };
    expect(schemaRefusal('NotificationManager', 'listNotificationTemplates', raw).fields.sort()).toEqual([
      'extra',
      'limit',
      'page',
      'search',
      'status',
    ]);
    const err = invalidQuery([{ field: 'page', reason: 'must be >= 1' }]);
    expect([err.status, err.code, err.message]).toEqual([400, 16008, 'Invalid listing: page must be >= 1']);
  });

  test('the filter document and the in-memory match agree; search is literal and case-insensitive', () => {
    const doc = templateDocument(template({ title: 'Sign-in (OTP)' }), null);
    expect(doc).toMatchObject({
      templateId: 'T',
      enabledChannels: ['email', 'in_app'],
      pendingApprovalId: null,
      searchText: 't sign-in (otp) description',
    });
    const q = { page: 1, limit: 10, status: 'active' as const, search: 'IN (OTP' };
    expect(listFilter(q)).toEqual({ status: 'active', searchText: { $regex: 'in \\(otp' } });
    expect(matchesList(doc, q)).toBe(true);
    expect(matchesList(doc, { ...q, status: 'inactive' })).toBe(false);
  });

  test('one page, by templateId', () => {
    const docs = ['C', 'A', 'B'].map((templateId) => ({ templateId }));
    expect(pageOf(docs, { page: 2, limit: 2 })).toEqual({ items: [{ templateId: 'C' }], total: 3 });
  });
});
