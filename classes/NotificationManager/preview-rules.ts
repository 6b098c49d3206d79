/**
 * NotificationManager's rules of a preview and a test message: every channel
 * of a template rendered (enabled or not: an editor previews a channel before
 * turning it on) with the caller's parameters and a sample value for each one
 * left out, and how a test message is marked. No I/O; unit-tested in
 * test/notifications/preview-rules.test.ts.
 */
import { fieldsOf, renderTemplate } from '../_platform/templates';
import { channelTexts, oneLine } from './rules';
import { CHANNELS, type NotificationTemplate } from './types';

/** The sample value of parameter `name`: visible in the rendered message as the name it stands for. */
export function sampleValue(name: string): string {
  return `[${name}]`;
}

export interface PreviewParameters {
  /** every parameter the template uses, with the value it is rendered with */
  parameters: Record<string, string>;
  /** the names that got a sample value (the caller gave none) */
  sampled: string[];
}

/** For each name the template uses: the caller's value, else its sample; values it does not use are left out. */
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

/** The parameter names any channel of the template uses, enabled or not, in order of first use. */
export function allParameters(template: NotificationTemplate): string[] {
  return fieldsOf(CHANNELS.flatMap((c) => channelTexts(template.channels, c).map((t) => t.text)));
}

export interface ChannelPreviews {
  email: { enabled: boolean; subject: string; html: string };
  in_app: { enabled: boolean; subject: string; content: string };
  sms: { enabled: boolean; text: string };
}

/** Every channel rendered as a send would render it (subjects on one line, html escaped). */
export function previewChannels(template: NotificationTemplate, given: Readonly<Record<string, string>> | undefined): PreviewParameters & { channels: ChannelPreviews } {
  const { parameters, sampled } = previewParameters(allParameters(template), given);
  const ch = template.channels;
  return {
    parameters,
    sampled,
    channels: {
      email: { enabled: ch.email.enabled, subject: oneLine(renderTemplate(ch.email.subject, parameters, 'text')), html: renderTemplate(ch.email.html, parameters, 'html') },
      in_app: { enabled: ch.in_app.enabled, subject: oneLine(renderTemplate(ch.in_app.subject ?? '', parameters, 'text')), content: renderTemplate(ch.in_app.content, parameters, 'text') },
      sms: { enabled: ch.sms.enabled, text: renderTemplate(ch.sms.content, parameters, 'text') },
    },
  };
}

/** A test message's subject: marked, so nobody takes it for the real mail. */
export function testSubject(subject: string): string {
  return `[Test] ${subject}`;
}
