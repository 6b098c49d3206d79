import { GridFSBucket, MongoClient, type Db, type GridFSFile } from 'mongodb';
import { assertSafeBlobName, type BlobInfo, type BlobStore } from './blob-store';

/** how often get() starts over when the revision it reads is replaced under it */
const READ_ATTEMPTS = 4;

function infoOf(name: string, file: GridFSFile): BlobInfo {
  return { name, size: file.length, contentType: String(file.metadata?.contentType ?? 'application/octet-stream') };
}

/** true for the driver's "file not found" answers (a revision deleted by a concurrent writer) */
function isFileNotFound(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return (
    e?.code === 'ENOENT' ||
    /File not found|FileNotFound|ChunkIsMissing/i.test(typeof e?.message === 'string' ? e.message : '')
  );
}

/**
 * Production BlobStore on MongoDB GridFS. One GridFS file per blob name; a
 * replacement uploads the new revision first (GridFS writes the file document
 * only when every chunk is stored, so an unfinished upload is invisible), then
 * deletes the revisions older than its own. Concurrent writers of one name
 * therefore converge on the newest revision, and a reader always finds a
 * complete revision (when the one it started reading is deleted under it, it
 * starts over with the newest).
 */
export class GridFsBlobStore implements BlobStore {
  readonly kind = 'gridfs';
  private readonly bucket: GridFSBucket;

  constructor(
    private readonly client: MongoClient,
    db: Db,
    bucketName = 'blobs',
  ) {
    this.bucket = new GridFSBucket(db, { bucketName });
  }

  static async connect(opts: {
    url: string;
    dbName?: string;
    bucketName?: string;
    serverSelectionTimeoutMS?: number;
  }): Promise<GridFsBlobStore> {
    const client = new MongoClient(opts.url, { serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS ?? 10_000 });
    try {
      await client.connect();
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
    return new GridFsBlobStore(client, client.db(opts.dbName), opts.bucketName);
  }

  /** all revisions of a name, newest first (upload date, then id, as a total order) */
  private async revisions(name: string): Promise<GridFSFile[]> {
    return this.bucket.find({ filename: name }).sort({ uploadDate: -1, _id: -1 }).toArray();
  }

  private async deleteRevision(file: GridFSFile): Promise<void> {
    try {
      await this.bucket.delete(file._id);
    } catch (err) {
      if (!isFileNotFound(err)) throw err; // deleted by a concurrent writer: fine
    }
  }

  async put(name: string, data: Buffer, contentType: string): Promise<void> {
    assertSafeBlobName(name);
    const upload = this.bucket.openUploadStream(name, { metadata: { contentType } });
    await new Promise<void>((resolve, reject) => {
      upload.once('finish', () => resolve());
      upload.once('error', reject);
      upload.end(data);
    });
    const ownId = String(upload.id);
    const all = await this.revisions(name);
    const own = all.findIndex((f) => String(f._id) === ownId);
    // revisions older than ours go; a newer one (a concurrent writer) deletes ours
    for (const f of own < 0 ? [] : all.slice(own + 1)) await this.deleteRevision(f);
  }

  async stat(name: string): Promise<BlobInfo | null> {
    assertSafeBlobName(name);
    const [latest] = await this.revisions(name);
    return latest ? infoOf(name, latest) : null;
  }

  private read(file: GridFSFile): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      this.bucket
        .openDownloadStream(file._id)
        .on('data', (c: Buffer) => chunks.push(c))
        .once('end', () => resolve(Buffer.concat(chunks)))
        .once('error', reject);
    });
  }

  async get(name: string): Promise<{ data: Buffer; info: BlobInfo } | null> {
    assertSafeBlobName(name);
    for (let attempt = 1; ; attempt++) {
      const [latest] = await this.revisions(name);
      if (!latest) return null;
      try {
        const data = await this.read(latest);
        if (data.length !== latest.length)
          throw Object.assign(new Error('ChunkIsMissing: short read'), { code: 'ENOENT' });
        return { data, info: infoOf(name, latest) };
      } catch (err) {
        // the revision was replaced (and deleted) while we read it: read the newest
        if (!isFileNotFound(err) || attempt >= READ_ATTEMPTS) throw err;
      }
    }
  }

  async delete(name: string): Promise<boolean> {
    assertSafeBlobName(name);
    const all = await this.revisions(name);
    for (const f of all) await this.deleteRevision(f);
    return all.length > 0;
  }

  async *names(): AsyncIterable<string> {
    // revisions of one name are stored side by side until the older are deleted: each name once
    const seen = new Set<string>();
    for await (const file of this.bucket.find({}, { projection: { filename: 1 } })) {
      if (seen.has(file.filename)) continue;
      seen.add(file.filename);
      yield file.filename;
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
