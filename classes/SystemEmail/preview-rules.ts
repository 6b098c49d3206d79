/**
 * SystemEmail's rule of a preview: the subject and html of a template
 * rendered with the caller's parameters and a sample value for each one the
 * template uses that the caller left out (classes/_platform/template-preview.ts).
 * No I/O; unit-tested in test/SystemEmail/preview-rules.test.ts.
 */
import { previewParameters } from '../_platform/template-preview';
import { fieldsOfTemplate, renderMail } from './rules';
import type { SystemEmailTemplate } from './types';

/** The subject and html a template renders with the caller's parameters and samples for the rest. */
export function previewMail(
  template: Pick<SystemEmailTemplate, 'subject' | 'html'>,
  given: Readonly<Record<string, string>> | undefined,
) {
  const { parameters, sampled } = previewParameters(fieldsOfTemplate(template).fields, given);
  const r = renderMail(template, parameters);
  // every field the template uses has a string value: rendering cannot miss one
  if (!r.ok) throw new Error(`preview of a template left parameters out: ${JSON.stringify(r.errors)}`);
  return { subject: r.rendered.subject, html: r.rendered.html, parameters, sampled };
}
