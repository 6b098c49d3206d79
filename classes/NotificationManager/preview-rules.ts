/**
 * NotificationManager's rule of a preview: every channel
 * of a template rendered (enabled or not: an editor previews a channel before
 * turning it on) with the caller's parameters and a sample value for each one
 * left out (classes/_platform/template-preview.ts). No I/O; unit-tested in
 * test/NotificationManager/preview-rules.test.ts.
 */
import { previewParameters, type PreviewParameters } from '../_platform/template-preview';
import { fieldsOf, renderTemplate } from '../_platform/templates';
import { channelTexts, oneLine } from './rules';
import { CHANNELS, type NotificationTemplate } from './types';

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
export function previewChannels(
  template: NotificationTemplate,
  given: Readonly<Record<string, string>> | undefined,
): PreviewParameters & { channels: ChannelPreviews } {
  const { parameters, sampled } = previewParameters(allParameters(template), given);
  const ch = template.channels;
  return {
    parameters,
    sampled,
    channels: {
      email: {
        enabled: ch.email.enabled,
        subject: oneLine(renderTemplate(ch.email.subject, parameters, 'text')),
        html: renderTemplate(ch.email.html, parameters, 'html'),
      },
      in_app: {
        enabled: ch.in_app.enabled,
        subject: oneLine(renderTemplate(ch.in_app.subject ?? '', parameters, 'text')),
        content: renderTemplate(ch.in_app.content, parameters, 'text'),
      },
      sms: { enabled: ch.sms.enabled, text: renderTemplate(ch.sms.content, parameters, 'text') },
    },
  };
}
