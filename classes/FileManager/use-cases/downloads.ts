/** Reading files: getFile (content as Base64), downloadFile (signed token), getPublicFile, createDownloadToken. */
import type { ReadCtx } from '../../../runtime';
import { fileManagerError } from '../errors';
import {
  activeFile,
  checkDownloadToken,
  DOWNLOAD_TOKEN_PURPOSE,
  fileHeaders,
  fileReference,
  PUBLIC_CACHE_SECONDS,
  storedExtension,
} from '../rules';
import type {
  CreateDownloadTokenInput,
  DownloadFileInput,
  GetFileInput,
  GetPublicFileInput,
} from '../../../schemas/FileManager/inputs';
import type { FileManagerState } from '../types';
import { entityOf, guardEnduser, mintDownload, NO_STORE, readContent, unwrap } from './common';

export async function getFile(ctx: ReadCtx<FileManagerState, GetFileInput>) {
  const ref = unwrap(fileReference(ctx.request.body));
  const file = unwrap(activeFile(ctx.state.private.files, ref));
  const content = await readContent(ctx, file);
  ctx.response.headers = { ...NO_STORE };
  return { file, content: content.toString('base64') };
}

/** Raw content for a signed token (5 minutes, bound to instance and filename). */
export async function downloadFile(ctx: ReadCtx<FileManagerState, DownloadFileInput>) {
  const { token, filename } = ctx.request.body;
  const verified = token ? ctx.ports.signer.verify(DOWNLOAD_TOKEN_PURPOSE, token) : null;
  const grant = unwrap(checkDownloadToken(verified, ctx.instanceId!, filename, Date.now() / 1000));
  const file = unwrap(activeFile(ctx.state.private.files, { filename: grant.filename }));
  const content = await readContent(ctx, file);
  ctx.response = {
    status: 200,
    body: content,
    headers: fileHeaders(file, storedExtension(file.filename), `private, max-age=${grant.remainingSeconds}`),
  };
}

/** Raw content of a public file; cached for 30 minutes. */
export async function getPublicFile(ctx: ReadCtx<FileManagerState, GetPublicFileInput>) {
  const { filename } = ctx.request.body;
  if (!filename) throw fileManagerError('INVALID_FILE_REFERENCE', 'Give filename');
  const file = unwrap(activeFile(ctx.state.private.files, { filename }));
  if (!file.isPublic) throw fileManagerError('NOT_PUBLIC', `File '${file.filename}' is not public`);
  const content = await readContent(ctx, file);
  ctx.response = {
    status: 200,
    body: content,
    headers: fileHeaders(file, storedExtension(file.filename), `public, max-age=${PUBLIC_CACHE_SECONDS}`),
  };
}

/** {token, url, expiresAt}: a 5-minute download link. */
export function createDownloadToken(ctx: ReadCtx<FileManagerState, CreateDownloadTokenInput>) {
  guardEnduser(ctx, entityOf(ctx).entityId);
  const ref = unwrap(fileReference(ctx.request.body));
  const file = unwrap(activeFile(ctx.state.private.files, ref));
  ctx.response.headers = { ...NO_STORE };
  return mintDownload(ctx, file);
}
