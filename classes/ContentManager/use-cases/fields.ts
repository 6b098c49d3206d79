/**
 * A request's `fields` checked for a key: the key's schema (schema-rules.ts),
 * then the enum options filled at request time (the active benefit
 * categories), asked only when the request gives a field that uses them.
 */
import type { BaseCtx } from '../../../runtime';
import { CATALOGUE, type ContentFields, type FieldsCheck } from '../schema-rules';
import { activeCategoryOptions } from './categories';
import { fieldError } from './common';

/**
 * The checked fields (over `base` when given: the stored fields of an update
 * that keeps its key) and the images to store; 400 18001 naming each field.
 */
export async function checkedFields(
  ctx: Pick<BaseCtx, 'call' | 'log' | 'projectId'>,
  contentKey: string,
  given: unknown,
  base: ContentFields | undefined,
) {
  const check: FieldsCheck = CATALOGUE.checkFields(contentKey, given, ctx.projectId, base);
  if (!check.ok) throw fieldError('CONTENT_INVALID_FIELDS', check.errors, `Invalid fields for ${contentKey}`);
  const givenKeys = new Set(given && typeof given === 'object' ? Object.keys(given) : []);
  // only the option fields this request gives: a category deactivated since does not refuse other changes
  const asked = Object.fromEntries(Object.entries(check.fields).filter(([k]) => givenKeys.has(k)));
  const sources = CATALOGUE.sourcesOf(contentKey);
  if (sources.length && CATALOGUE.key(contentKey)!.fields.some((f) => f.optionsSource && asked[f.key] !== undefined)) {
    const problems = CATALOGUE.optionProblems(contentKey, asked, await activeCategoryOptions(ctx));
    if (problems.length) throw fieldError('CONTENT_INVALID_FIELDS', problems, `Invalid fields for ${contentKey}`);
  }
  return check;
}
