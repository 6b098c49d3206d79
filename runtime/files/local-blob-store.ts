import { randomUUID } from 'node:crypto';
import { close, fsync, open, promises as fs, write } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { assertSafeBlobName, SAFE_BLOB_NAME, type BlobInfo, type BlobStore } from './blob-store';

// put's steps on a file descriptor: lighter than a FileHandle's (no handle object per file), which a put per audit entry with a large value felt
const openFd = promisify(open);
const writeFd = promisify(write);
const fsyncFd = promisify(fsync);
const closeFd = promisify(close);

/** all of `data` to the file, however many writes that takes */
async function writeAll(fd: number, data: Buffer): Promise<void> {
  let done = 0;
  while (done < data.length) done += (await writeFd(fd, data, done, data.length - done, null)).bytesWritten;
}

/**
 * Embedded BlobStore: one file per blob in a directory. Each file holds a
 * small header (4-byte big-endian length, then JSON `{contentType}`) followed
 * by the content, so content and content type are always replaced together.
 * A write goes to a temporary file (flushed to disk) that is renamed into
 * place in one step: a reader sees the old blob or the new one, never half a
 * blob or one blob's content with another's type, and concurrent writers of
 * one name leave exactly one of their blobs. Temporary files start with '.',
 * which no safe blob name does, so they can never collide with a blob.
 */
export class LocalBlobStore implements BlobStore {
  readonly kind = 'local';

  /** set once the directory is known to exist: a put then skips the mkdir (one system call less per blob) */
  private dirMade = false;

  constructor(private readonly dir: string) {}

  private file(name: string): string {
    assertSafeBlobName(name);
    return path.join(this.dir, name);
  }

  async put(name: string, data: Buffer, contentType: string): Promise<void> {
    const file = this.file(name);
    if (!this.dirMade) {
      await fs.mkdir(this.dir, { recursive: true });
      this.dirMade = true;
    }
    const header = Buffer.from(JSON.stringify({ contentType }), 'utf8');
    const content = Buffer.allocUnsafe(4 + header.length + data.length);
    content.writeUInt32BE(header.length, 0);
    header.copy(content, 4);
    data.copy(content, 4 + header.length);
    const tmp = path.join(this.dir, `.tmp-${randomUUID()}`);
    let fd: number;
    try {
      fd = await openFd(tmp, 'wx', 0o600);
    } catch (err) {
      // the directory was removed since it was made (an operator cleaning up): made again, as every put did before
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await fs.mkdir(this.dir, { recursive: true });
      fd = await openFd(tmp, 'wx', 0o600);
    }
    try {
      await writeAll(fd, content);
      await fsyncFd(fd);
    } catch (err) {
      await closeFd(fd).catch(() => undefined);
      await fs.unlink(tmp).catch(() => undefined);
      throw err;
    }
    await closeFd(fd);
    try {
      await fs.rename(tmp, file);
    } catch (err) {
      await fs.unlink(tmp).catch(() => undefined);
      throw err;
    }
  }

  private static parseHeader(name: string, head: Buffer, fileSize: number): { info: BlobInfo; offset: number } {
    if (head.length < 4) throw new Error(`blob '${name}' is corrupt (no header)`);
    const headerLength = head.readUInt32BE(0);
    if (4 + headerLength > fileSize || 4 + headerLength > head.length)
      throw new Error(`blob '${name}' is corrupt (bad header length)`);
    const meta = JSON.parse(head.subarray(4, 4 + headerLength).toString('utf8')) as { contentType?: unknown };
    const offset = 4 + headerLength;
    const contentType = typeof meta.contentType === 'string' ? meta.contentType : 'application/octet-stream';
    return { info: { name, size: fileSize - offset, contentType }, offset };
  }

  async stat(name: string): Promise<BlobInfo | null> {
    const file = this.file(name);
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      const { size } = await handle.stat();
      const lengthBuf = Buffer.alloc(4);
      const { bytesRead } = await handle.read(lengthBuf, 0, 4, 0);
      if (bytesRead < 4) throw new Error(`blob '${name}' is corrupt (no header)`);
      const headerLength = Math.min(lengthBuf.readUInt32BE(0), Math.max(0, size - 4));
      const head = Buffer.alloc(4 + headerLength);
      lengthBuf.copy(head, 0);
      await handle.read(head, 4, headerLength, 4);
      return LocalBlobStore.parseHeader(name, head, size).info;
    } finally {
      await handle.close();
    }
  }

  async get(name: string): Promise<{ data: Buffer; info: BlobInfo } | null> {
    let raw: Buffer;
    try {
      raw = await fs.readFile(this.file(name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const { info, offset } = LocalBlobStore.parseHeader(name, raw, raw.length);
    return { data: raw.subarray(offset), info };
  }

  async delete(name: string): Promise<boolean> {
    const file = this.file(name);
    try {
      await fs.unlink(file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  async *names(): AsyncIterable<string> {
    let dir;
    try {
      dir = await fs.opendir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    // a put's temporary file starts with '.', which no blob name does
    for await (const entry of dir) if (entry.isFile() && SAFE_BLOB_NAME.test(entry.name)) yield entry.name;
  }

  async close(): Promise<void> {
    /* nothing held open */
  }
}
