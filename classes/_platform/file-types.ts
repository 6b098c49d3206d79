/**
 * File type rules of spec section 8 (pure: no I/O).
 *
 *  - which types may be uploaded, their extension, file type and size limit
 *  - classification of a declared mime type or extension
 *  - strict Base64 decoding
 *  - checking that content really is of its declared type (magic bytes,
 *    JSON that parses, text that is UTF-8 without NUL bytes)
 */

import { isBase64Char } from './base64';

export type FileType = 'image' | 'json' | 'document';

export const MB = 1024 * 1024;

/** Spec 8 limits, in bytes. */
export const SIZE_LIMITS: Readonly<Record<FileType, number>> = {
  image: 5 * MB,
  json: 5 * MB,
  document: 10 * MB,
};

/** How content of a kind is recognised. */
export type ContentKind = 'jpeg' | 'png' | 'gif' | 'webp' | 'json' | 'pdf' | 'ole' | 'zip' | 'text';

export interface TypeSpec {
  /** canonical extension used in stored file names */
  ext: string;
  /** other extensions naming the same type (jpeg for jpg) */
  aliases: readonly string[];
  /** canonical mime type, stored with the file and sent as Content-Type */
  mimeType: string;
  /** other mime types declaring the same type */
  mimeAliases: readonly string[];
  fileType: FileType;
  maxBytes: number;
  content: ContentKind;
}

function spec(
  ext: string,
  mimeType: string,
  fileType: FileType,
  content: ContentKind,
  more: { aliases?: string[]; mimeAliases?: string[] } = {},
): TypeSpec {
  return {
    ext,
    aliases: more.aliases ?? [],
    mimeType,
    mimeAliases: more.mimeAliases ?? [],
    fileType,
    maxBytes: SIZE_LIMITS[fileType],
    content,
  };
}

/** Every uploadable type (spec 8). */
export const FILE_TYPES: readonly TypeSpec[] = [
  spec('jpg', 'image/jpeg', 'image', 'jpeg', { aliases: ['jpeg'], mimeAliases: ['image/jpg', 'image/pjpeg'] }),
  spec('png', 'image/png', 'image', 'png'),
  spec('gif', 'image/gif', 'image', 'gif'),
  spec('webp', 'image/webp', 'image', 'webp'),
  spec('json', 'application/json', 'json', 'json', { mimeAliases: ['text/json'] }),
  spec('pdf', 'application/pdf', 'document', 'pdf'),
  spec('doc', 'application/msword', 'document', 'ole'),
  spec('docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'document', 'zip'),
  spec('xls', 'application/vnd.ms-excel', 'document', 'ole'),
  spec('xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'document', 'zip'),
  spec('txt', 'text/plain', 'document', 'text'),
  spec('csv', 'text/csv', 'document', 'text', { mimeAliases: ['application/csv', 'text/comma-separated-values'] }),
];

/** The extensions accepted (canonical and aliases), for messages. */
export const ALLOWED_EXTENSIONS: readonly string[] = FILE_TYPES.flatMap((t) => [t.ext, ...t.aliases]);
/** The mime types accepted (canonical and aliases), for messages. */
export const ALLOWED_MIME_TYPES: readonly string[] = FILE_TYPES.flatMap((t) => [t.mimeType, ...t.mimeAliases]);

/** `image/PNG; charset=x` → `image/png` */
export function normalizeMimeType(mimeType: string): string {
  return mimeType.split(';')[0].trim().toLowerCase();
}

/** The type declared by a mime type (`image/png`, parameters ignored); null when not allowed. */
export function typeForMimeType(mimeType: string): TypeSpec | null {
  const m = normalizeMimeType(mimeType);
  return FILE_TYPES.find((t) => t.mimeType === m || t.mimeAliases.includes(m)) ?? null;
}

/** The type named by an extension (`png`, `.PNG`); null when not allowed. */
export function typeForExtension(extension: string): TypeSpec | null {
  const e = extension.trim().replace(/^\./, '').toLowerCase();
  return FILE_TYPES.find((t) => t.ext === e || t.aliases.includes(e)) ?? null;
}

/** A declared mime type (contains '/') or extension, classified; null when not allowed. */
export function classify(declared: string): TypeSpec | null {
  return declared.includes('/') ? typeForMimeType(declared) : typeForExtension(declared);
}

// ---------------------------------------------------------------------------
// Base64

export type Base64Result = { ok: true; data: Buffer } | { ok: false; reason: string };

function base64Value(c: number): number {
  if (c >= 65 && c <= 90) return c - 65;
  if (c >= 97 && c <= 122) return c - 71;
  if (c >= 48 && c <= 57) return c + 4;
  return c === 43 ? 62 : 63;
}

/**
 * Strict RFC 4648 Base64 (standard alphabet, padded, canonical). Node's own
 * decoder skips invalid characters and accepts any padding; this one refuses
 * whitespace, URL-safe characters, missing or misplaced padding and non-zero
 * padding bits, so only one text decodes to given bytes.
 */
export function decodeBase64Strict(text: string): Base64Result {
  const n = text.length;
  if (n % 4 !== 0) return { ok: false, reason: `length ${n} is not a multiple of 4 (missing or extra padding)` };
  let pad = 0;
  if (n > 0 && text.charCodeAt(n - 1) === 61) pad = text.charCodeAt(n - 2) === 61 ? 2 : 1;
  const body = n - pad;
  for (let i = 0; i < body; i++) {
    const c = text.charCodeAt(i);
    if (!isBase64Char(c)) {
      return {
        ok: false,
        reason: c === 61 ? `padding '=' inside the text at position ${i}` : `invalid character at position ${i}`,
      };
    }
  }
  if (pad > 0) {
    const last = base64Value(text.charCodeAt(body - 1));
    if ((pad === 2 && (last & 0x0f) !== 0) || (pad === 1 && (last & 0x03) !== 0)) {
      return { ok: false, reason: 'non-zero padding bits (not canonical Base64)' };
    }
  }
  const data = Buffer.from(text, 'base64');
  if (data.length !== (n / 4) * 3 - pad) return { ok: false, reason: 'malformed Base64' };
  return { ok: true, data };
}

/** Decoded size of well-formed Base64 text, without decoding it. */
export function base64DecodedLength(text: string): number {
  const n = text.length;
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return Math.floor(n / 4) * 3 - pad;
}

// ---------------------------------------------------------------------------
// Content checks

const SIG = {
  jpeg: Buffer.from([0xff, 0xd8, 0xff]),
  png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  gif87: Buffer.from('GIF87a', 'latin1'),
  gif89: Buffer.from('GIF89a', 'latin1'),
  riff: Buffer.from('RIFF', 'latin1'),
  webp: Buffer.from('WEBP', 'latin1'),
  pdf: Buffer.from('%PDF-', 'latin1'),
  ole: Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
  zip: Buffer.from([0x50, 0x4b, 0x03, 0x04]),
};

function startsWith(data: Buffer, sig: Buffer, at = 0): boolean {
  return data.length >= at + sig.length && data.subarray(at, at + sig.length).equals(sig);
}

const BINARY_CHECKS: Record<Exclude<ContentKind, 'json' | 'text'>, (d: Buffer) => boolean> = {
  jpeg: (d) => startsWith(d, SIG.jpeg),
  png: (d) => startsWith(d, SIG.png),
  gif: (d) => startsWith(d, SIG.gif87) || startsWith(d, SIG.gif89),
  webp: (d) => startsWith(d, SIG.riff) && startsWith(d, SIG.webp, 8),
  pdf: (d) => startsWith(d, SIG.pdf),
  ole: (d) => startsWith(d, SIG.ole),
  zip: (d) => startsWith(d, SIG.zip),
};

/** The binary format the content's magic bytes announce, if any (for error details). */
export function sniff(data: Buffer): Exclude<ContentKind, 'json' | 'text'> | null {
  for (const [kind, check] of Object.entries(BINARY_CHECKS)) {
    if (check(data)) return kind as Exclude<ContentKind, 'json' | 'text'>;
  }
  return null;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** UTF-8 text, or null when the bytes are not valid UTF-8 (a leading BOM is dropped). */
export function decodeUtf8Strict(data: Buffer): string | null {
  const body = startsWith(data, BOM) ? data.subarray(3) : data;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return null;
  }
}

export type ContentCheck = { ok: true } | { ok: false; reason: string };

/** Does the content really have the declared type? */
export function checkContent(type: TypeSpec, data: Buffer): ContentCheck {
  switch (type.content) {
    case 'json': {
      const text = decodeUtf8Strict(data);
      if (text === null) return { ok: false, reason: 'JSON content is not valid UTF-8' };
      try {
        JSON.parse(text);
        return { ok: true };
      } catch (err) {
        return { ok: false, reason: `content is not valid JSON: ${(err as Error).message}` };
      }
    }
    case 'text': {
      if (data.includes(0)) return { ok: false, reason: 'text content contains NUL bytes' };
      if (decodeUtf8Strict(data) === null) return { ok: false, reason: 'text content is not valid UTF-8' };
      return { ok: true };
    }
    default: {
      if (BINARY_CHECKS[type.content](data)) return { ok: true };
      const found = sniff(data);
      return {
        ok: false,
        reason: `content does not start with the ${type.ext} signature${found ? ` (it looks like ${found})` : ''}`,
      };
    }
  }
}

// ---------------------------------------------------------------------------
// The whole upload rule

export type UploadRuleError =
  'UNSUPPORTED_TYPE' | 'INVALID_BASE64' | 'EMPTY_FILE' | 'FILE_TOO_LARGE' | 'CONTENT_MISMATCH';

export type UploadCheck =
  | { ok: true; type: TypeSpec; data: Buffer }
  | { ok: false; error: UploadRuleError; message: string; details?: Record<string, unknown> };

/**
 * Checks an upload: declared type allowed → strict Base64 → not empty →
 * within the type's limit → content matches the declared type.
 */
export function checkUpload(input: { content: string; mimeType: string }): UploadCheck {
  const type = classify(input.mimeType);
  if (!type) {
    return {
      ok: false,
      error: 'UNSUPPORTED_TYPE',
      message: `Type '${input.mimeType}' is not allowed; allowed: ${ALLOWED_MIME_TYPES.join(', ')}`,
      details: {
        mimeType: input.mimeType,
        allowedMimeTypes: ALLOWED_MIME_TYPES,
        allowedExtensions: ALLOWED_EXTENSIONS,
      },
    };
  }
  const decoded = decodeBase64Strict(input.content);
  if (!decoded.ok) {
    return {
      ok: false,
      error: 'INVALID_BASE64',
      message: `content is not valid Base64: ${decoded.reason}`,
      details: { reason: decoded.reason },
    };
  }
  const data = decoded.data;
  if (data.length === 0) return { ok: false, error: 'EMPTY_FILE', message: 'content is empty' };
  if (data.length > type.maxBytes) {
    return {
      ok: false,
      error: 'FILE_TOO_LARGE',
      message: `${type.fileType} files may be at most ${type.maxBytes} bytes (${type.maxBytes / MB} MB); this one has ${data.length}`,
      details: { size: data.length, maxBytes: type.maxBytes, fileType: type.fileType },
    };
  }
  const content = checkContent(type, data);
  if (!content.ok) {
    return {
      ok: false,
      error: 'CONTENT_MISMATCH',
      message: `content does not match the declared type ${type.mimeType}: ${content.reason}`,
      details: { declared: type.mimeType, reason: content.reason },
    };
  }
  return { ok: true, type, data };
}
