/**
 * BlobStore port: file content by name. Production: MongoDB GridFS; embedded
 * default: a local directory. Names are produced by the platform (never taken
 * from user input) and must match SAFE_BLOB_NAME; adapters refuse others.
 */
export const SAFE_BLOB_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$/;

export function assertSafeBlobName(name: string): void {
  if (!SAFE_BLOB_NAME.test(name) || name.includes('..')) {
    throw Object.assign(new Error(`unsafe blob name '${name}'`), { code: 'UNSAFE_NAME' });
  }
}

export interface BlobInfo {
  name: string;
  size: number;
  contentType: string;
}

export interface BlobStore {
  readonly kind: string;
  /** store (or replace) a blob */
  put(name: string, data: Buffer, contentType: string): Promise<void>;
  /** null when absent */
  get(name: string): Promise<{ data: Buffer; info: BlobInfo } | null>;
  stat(name: string): Promise<BlobInfo | null>;
  /** true when something was deleted */
  delete(name: string): Promise<boolean>;
  /** every stored blob's name, each once, in no set order (a backup's walk; not for request paths) */
  names(): AsyncIterable<string>;
  close(): Promise<void>;
}
