/** What DataSubject's requests share: the handler contexts, asking the classes about a subject, its own class's answer. */
import type { Ctx, ReadCtx, StaticCtx } from '../../../runtime';
import { isAbsentRecord } from '../../_platform/calls';
import { SUBJECT_DATA_METHOD, subjectOwnerClass, type Subject, type SubjectData } from '../../_platform/personal-data';
import { dataSubjectError } from '../errors';
import { mergeSubjectData, scopeRefusal, SUBJECT_DATA_CLASSES } from '../rules';
import type { DataSubjectClassState } from '../types';

export type DataSubjectCtx<I> = Ctx<DataSubjectClassState, I>;
export type DataSubjectReadCtx<I> = ReadCtx<DataSubjectClassState, I>;
export type DataSubjectStaticCtx<I> = StaticCtx<I>;
/** what asking the classes needs of a handler's context */
type Asker = Pick<ReadCtx, 'call' | 'tenancy'>;

/** One class's exportSubjectData. */
export async function askClass(
  ctx: Asker,
  classId: string,
  subject: Subject,
  subjectCompanyId?: string | null,
): Promise<SubjectData> {
  const body = subjectCompanyId === undefined ? { subject } : { subject, subjectCompanyId };
  return (await ctx.call(classId, SUBJECT_DATA_METHOD, undefined, body)).body as SubjectData;
}

/**
 * What the subject's own class answers: no such subject there is 404 20001;
 * a subject outside the caller's company is 403 20002.
 */
export async function askOwner(ctx: Asker, subject: Subject): Promise<SubjectData> {
  let owner: SubjectData;
  try {
    // its own class's 404 means there is no such subject
    owner = await askClass(ctx, subjectOwnerClass(subject.type), subject);
  } catch (err) {
    if (isAbsentRecord(err)) throw dataSubjectError('SUBJECT_NOT_FOUND', `No ${subject.type} '${subject.id}'`);
    throw err;
  }
  const refusal = scopeRefusal(ctx.tenancy.tenant, owner.companyId);
  if (refusal) throw dataSubjectError('SUBJECT_OUT_OF_SCOPE', `${subject.type} '${subject.id}': ${refusal}`);
  return owner;
}

/** One subject's data from every class: its own class first, then the others side by side. */
export async function gather(ctx: Asker, subject: Subject): Promise<SubjectData> {
  const owner = await askOwner(ctx, subject);
  const ownerClass = subjectOwnerClass(subject.type);
  const others = await Promise.all(
    SUBJECT_DATA_CLASSES.filter((c) => c !== ownerClass).map((c) => askClass(ctx, c, subject, owner.companyId ?? null)),
  );
  return mergeSubjectData(owner, others);
}
