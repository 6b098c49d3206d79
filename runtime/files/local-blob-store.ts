import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { assertSafeBlobName, type BlobInfo, type BlobStore } from './blob-store';

/**
 * Embedded BlobStore: one file per blob in a directory, with its content type
 * in a `<name>.meta.json` sidecar. Writes go to a temporary file first and
 * are renamed into place, so a reader never sees half a blob.
 */
export class LocalBlobStore implements BlobStore {
  readonly kind = 'local';

  constructor(private readonly dir: string) {}

  private file(name: string): string {
    assertSafeBlobName(name);
    return path.join(this.dir, name);
  }

  async put(name: string, data: Buffer, contentType: string): Promise<void> {
    const file = this.file(name);
    await fs.mkdir(this.dir, { recursive: true });
    const tmp = path.join(this.dir, `.tmp-${randomUUID()}`);
    const meta: BlobInfo = { name, size: data.length, contentType };
    await fs.writeFile(`${tmp}.meta`, JSON.stringify(meta));
    await fs.writeFile(tmp, data);
    await fs.rename(`${tmp}.meta`, `${file}.meta.json`);
    await fs.rename(tmp, file);
  }

  async stat(name: string): Promise<BlobInfo | null> {
    try {
      return JSON.parse(await fs.readFile(`${this.file(name)}.meta.json`, 'utf8')) as BlobInfo;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async get(name: string): Promise<{ data: Buffer; info: BlobInfo } | null> {
    const info = await this.stat(name);
    if (!info) return null;
    try {
      return { data: await fs.readFile(this.file(name)), info };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(name: string): Promise<boolean> {
    const file = this.file(name);
    const results = await Promise.allSettled([fs.unlink(file), fs.unlink(`${file}.meta.json`)]);
    return results.some((r) => r.status === 'fulfilled');
  }

  async close(): Promise<void> {
    /* nothing held open */
  }
}
