/**
 * The mapping file: the program's words in a sheet to the service's records
 * (see examples/import/mapping.json):
 *
 *   { "memberTypes":  { "<employmentType or primaryMemberType word>": "<member type system identifier>" },
 *     "companies":    { "<sheet companyId>": "<company HR business group id (bgId)>" },
 *     "tiers":        { "<sheet word>": "<tier id>" },
 *     "paymentTypes": { "DDS": "...", "Credit Card": "...", "Company Paid": "..." },
 *     "subTypes":     { "<dependantType word>": "<member sub type id>" } }
 *
 * Every section is optional and maps strings to strings.
 */
import * as fs from 'node:fs';

export const MAPPING_SECTIONS = ['memberTypes', 'companies', 'tiers', 'paymentTypes', 'subTypes'] as const;
export type ImportMapping = Partial<Record<(typeof MAPPING_SECTIONS)[number], Record<string, string>>>;

/** Problems with a mapping document's shape. */
export function checkMapping(doc: unknown): string[] {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return ['the mapping file must hold a JSON object'];
  const problems: string[] = [];
  for (const [key, section] of Object.entries(doc as Record<string, unknown>)) {
    if (!(MAPPING_SECTIONS as readonly string[]).includes(key))
      problems.push(`unknown section '${key}' (known: ${MAPPING_SECTIONS.join(', ')})`);
    else if (!section || typeof section !== 'object' || Array.isArray(section))
      problems.push(`'${key}' must map words to strings`);
    else
      for (const [word, to] of Object.entries(section))
        if (typeof to !== 'string' || !to) problems.push(`${key}.${word} must be a non-empty string`);
  }
  return problems;
}

export function loadMapping(file: string | undefined): ImportMapping {
  if (!file) return {};
  const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  const problems = checkMapping(doc);
  if (problems.length) throw new Error(`invalid mapping file ${file}: ${problems.join('; ')}`);
  return doc as ImportMapping;
}
