/** SystemEmail's preview rule: the subject and html rendered with the given parameters and samples for the rest (the shared part: test/_platform/template-preview.test.ts). */
import { previewMail } from '../../classes/SystemEmail/preview-rules';

test('a preview renders the subject as text and the html escaped, samples included', () => {
  const r = previewMail({ subject: 'Hi {{name}}\nthere', html: '<p>{{name}} {{code}}</p>' }, { name: '<b>' });
  expect(r).toEqual({
    subject: 'Hi <b> there',
    html: '<p>&lt;b&gt; [code]</p>',
    parameters: { name: '<b>', code: '[code]' },
    sampled: ['code'],
  });
});
