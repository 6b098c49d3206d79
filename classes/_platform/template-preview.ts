/**
 * The preview of a message template and the test message sent from it, as
 * every class with editable templates offers them: the template is rendered
 * with the caller's parameters and a visible sample for each one it uses that
 * the caller left out, and a test message is marked as such in its subject.
 * What a class renders (its channels, its parts) stays with the class. No I/O;
 * unit-tested in test/_platform/template-preview.test.ts.
 */

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

/**
 * The parameters a preview renders with: for each name the template uses, the
 * caller's value, else its sample. Values the template does not use are left
 * out. (The input schemas make every given value a string.)
 */
export function previewParameters(
  fields: readonly string[],
  given: Readonly<Record<string, string>> | undefined,
): PreviewParameters {
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

/** A test message's subject: marked, so nobody takes it for the real mail. */
export function testSubject(subject: string): string {
  return `[Test] ${subject}`;
}
