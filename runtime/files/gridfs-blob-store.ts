import { GridFSBucket, MongoClient, type Db } from 'mongodb';
import { assertSafeBlobName, type BlobInfo, type BlobStore } from './blob-store';

/**
 * Production BlobStore on MongoDB GridFS. One GridFS file per blob name; a
 * replacement uploads the new revision first, then deletes older ones, so a
 * reader always finds a complete revision.
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

  static async connect(opts: { url: string; dbName?: string; bucketName?: string; serverSelectionTimeoutMS?: number }): Promise<GridFsBlobStore> {
    const client = new MongoClient(opts.url, { serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS ?? 10_000 });
    try {
      await client.connect();
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
    return new GridFsBlobStore(client, client.db(opts.dbName), opts.bucketName);
  }

  private async revisions(name: string) {
    return this.bucket.find({ filename: name }).sort({ uploadDate: -1, _id: -1 }).toArray();
  }

  async put(name: string, data: Buffer, contentType: string): Promise<void> {
    assertSafeBlobName(name);
    const older = await this.revisions(name);
    await new Promise<void>((resolve, reject) => {
      const upload = this.bucket.openUploadStream(name, { metadata: { contentType } });
      upload.once('finish', () => resolve());
      upload.once('error', reject);
      upload.end(data);
    });
    for (const f of older) await this.bucket.delete(f._id).catch(() => undefined);
  }

  async stat(name: string): Promise<BlobInfo | null> {
    assertSafeBlobName(name);
    const [latest] = await this.revisions(name);
    if (!latest) return null;
    return { name, size: latest.length, contentType: String(latest.metadata?.contentType ?? 'application/octet-stream') };
  }

  async get(name: string): Promise<{ data: Buffer; info: BlobInfo } | null> {
    assertSafeBlobName(name);
    const [latest] = await this.revisions(name);
    if (!latest) return null;
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      this.bucket
        .openDownloadStream(latest._id)
        .on('data', (c: Buffer) => chunks.push(c))
        .once('end', () => resolve())
        .once('error', reject);
    });
    const info = { name, size: latest.length, contentType: String(latest.metadata?.contentType ?? 'application/octet-stream') };
    return { data: Buffer.concat(chunks), info };
  }

  async delete(name: string): Promise<boolean> {
    assertSafeBlobName(name);
    const all = await this.revisions(name);
    for (const f of all) await this.bucket.delete(f._id).catch(() => undefined);
    return all.length > 0;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
