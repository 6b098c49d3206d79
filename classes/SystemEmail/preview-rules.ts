/**
 * SystemEmail's rules of a preview and a test message: the parameters a
 * template is rendered with (the caller's, and a sample value for each one the
 * template uses that the caller left out), and how a test message is marked.
 * No I/O; unit-tested in test/system-email/preview-rules.test.ts.
 */
import { fieldsOfTemplate, renderMail } from './rules';
import type { SystemEmailTemplate } from './types';

/** The sample value of parameter `name`: visible in the rendered mail as the name it stands for. */
export function sampleValue(name: string): string {
  return `[${name}]`;
}

export interface PreviewParameters {
  /** every parameter the template uses, with the value it is rendered with */
  parameters: Record<string, string>;
  /** the names that got a sample value (the caller gave none) */
  sampled: string[];
}

/**
 * The parameters a preview renders with: for each name the template uses, the
 * caller's value, else its sample. Values the template does not use are left
 * out. (The input schema makes every given value a string.)
 */
export function previewParameters(fields: readonly string[], given: Readonly<Record<string, string>> | undefined): PreviewParameters {
  const entries: [string, string][] = [];
  const sampled: string[] = [];
  for (const name of fields) {
    const value = given && Object.prototype.hasOwnProperty.call(given, name) ? given[name] : undefined;
    if (typeof value === 'string') entries.push([name, value]);
    else {
      entries.push([name, sampleValue(name)]);
      sampled.push(name);
    }
  }
  // own properties only, whatever the names (`__proto__` is a name a template may use)
  return { parameters: Object.fromEntries(entries), sampled };
}

/** The subject and html a template renders with the caller's parameters and samples for the rest. */
export function previewMail(template: Pick<SystemEmailTemplate, 'subject' | 'html'>, given: Readonly<Record<string, string>> | undefined) {
  const { parameters, sampled } = previewParameters(fieldsOfTemplate(template).fields, given);
  const r = renderMail(template, parameters);
  // every field the template uses has a string value: rendering cannot miss one
  if (!r.ok) throw new Error(`preview of a template left parameters out: ${JSON.stringify(r.errors)}`);
  return { subject: r.rendered.subject, html: r.rendered.html, parameters, sampled };
}

/** A test message's subject: marked, so nobody takes it for the real mail. */
export function testSubject(subject: string): string {
  return `[Test] ${subject}`;
}
