/** NotificationManager's preview rule: every channel rendered, enabled or not, with samples for the parameters left out (the shared part: test/_platform/template-preview.test.ts). */
import { defaultTemplate } from '../../classes/NotificationManager/builtins';
import { allParameters, previewChannels } from '../../classes/NotificationManager/preview-rules';
import type { NotificationTemplate } from '../../classes/NotificationManager/types';

function template(): NotificationTemplate {
  return {
    templateId: 'T',
    title: 'T',
    description: '',
    status: 'inactive',
    audience: 'member',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    channels: {
      email: { enabled: true, to: [], subject: 'Hi {{name}}', json: '{}', html: '<p>{{name}}: {{code}}</p>' },
      in_app: { enabled: false, subject: 'For {{name}}', content: 'Code {{code}}' },
      sms: { enabled: false, content: 'Code {{code}} {{extra}}' },
    },
  };
}

test('the parameters of every channel, enabled or not, in order of first use', () => {
  expect(allParameters(template())).toEqual(['name', 'code', 'extra']);
});

test('every channel rendered: given values, samples for the rest, html escaped, subjects on one line', () => {
  const r = previewChannels(template(), { name: 'A<b>\nB' });
  expect(r.sampled).toEqual(['code', 'extra']);
  expect(r.parameters).toEqual({ name: 'A<b>\nB', code: '[code]', extra: '[extra]' });
  expect(r.channels).toEqual({
    email: { enabled: true, subject: 'Hi A<b> B', html: '<p>A&lt;b&gt;\nB: [code]</p>' },
    in_app: { enabled: false, subject: 'For A<b> B', content: 'Code [code]' },
    sms: { enabled: false, text: 'Code [code] [extra]' },
  });
});

test('a catalogue template previews with its defaults', () => {
  const t = defaultTemplate('OTP_PROGRAM_MANAGEMENT_LOGIN', '2026-01-01T00:00:00.000Z')!;
  const r = previewChannels(t, undefined);
  expect(r.sampled).toContain('otp');
  expect(r.channels.email.html).toContain('[otp]');
});

test('a given value no channel uses is left out', () => {
  expect(previewChannels(template(), { name: 'A', unused: 'x' }).parameters).toEqual({
    name: 'A',
    code: '[code]',
    extra: '[extra]',
  });
});
