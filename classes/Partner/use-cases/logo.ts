/**
 * The brand logo: a public file of the partner in FileManager (instance
 * `partner_<id>`, `isPublic: true`), so the member application shows it
 * without signing in (FileManager.getPublicFile). The partner keeps the public
 * URL path as `brandLogoPath`.
 *
 * The file is stored by a call during the handler (FileManager judges the
 * content and names the file), as Member's files are: a change that fails
 * afterwards, or a logo change that is rejected, leaves a stored file that no
 * partner names.
 */
import { client } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { entityFileInstance, fileRefusal } from '../../_platform/entity-documents';
import type { FileManager } from '../../FileManager/FileManager.class';
import { partnerError } from '../errors';
import { logoTypeProblem } from '../rules';
import type { LogoInput } from '../types';
import { PARTNER_ENTITY, type PartnerCtx } from './common';

/** Stores the logo as a public file of the partner; answers its public URL path. `field`: where the logo is in the body. */
export async function storeLogo(
  ctx: PartnerCtx<unknown>,
  partnerId: string,
  logo: LogoInput,
  field: string,
): Promise<string> {
  const typeProblem = logoTypeProblem(logo.mimeType);
  if (typeProblem)
    throw partnerError('INVALID_INPUT', typeProblem, { errors: [{ field: `${field}.mimeType`, reason: typeProblem }] });
  try {
    const stored = await client<typeof FileManager>(ctx, 'FileManager').uploadFile(
      entityFileInstance(PARTNER_ENTITY, partnerId),
      {
        content: logo.content,
        mimeType: logo.mimeType,
        originalFilename: logo.originalFilename ?? 'logo',
        isPublic: true,
        actor: actorFromIdentity(ctx.identity),
      },
    );
    if (!stored.publicUrl) throw new Error('FileManager stored the logo without a public URL');
    return stored.publicUrl;
  } catch (err) {
    // FileManager's refusals (type, size, content) as 400 17013 naming the field; its failures as 500 17014
    throw fileRefusal(partnerError, err, { content: `${field}.content`, type: `${field}.mimeType` });
  }
}
