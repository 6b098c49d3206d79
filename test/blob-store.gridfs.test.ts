/**
 * Runs the BlobStore contract against MongoDB GridFS when MONGODB_URL is set
 * (e.g. mongodb://localhost:27017/test). The bucket has a random name and is
 * dropped afterwards, so a shared server can be used.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { GridFsBlobStore } from '../runtime/files/gridfs-blob-store';
import { blobStoreContract, UNSAFE_NAMES } from './contract/blob-store.contract';

describe('GridFsBlobStore without a server', () => {
  it('rejects connect() when the server is unreachable', async () => {
    const started = Date.now();
    await expect(
      GridFsBlobStore.connect({ url: 'mongodb://127.0.0.1:1/unused', serverSelectionTimeoutMS: 200 }),
    ).rejects.toMatchObject({ name: 'MongoServerSelectionError' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('is of kind gridfs and refuses unsafe names before any server round trip', async () => {
    const client = new MongoClient('mongodb://127.0.0.1:1/unused', { serverSelectionTimeoutMS: 200 });
    const store = new GridFsBlobStore(client, client.db('unused'));
    try {
      expect(store.kind).toBe('gridfs');
      for (const unsafe of UNSAFE_NAMES) {
        await expect(store.put(unsafe, Buffer.from('x'), 'text/plain')).rejects.toMatchObject({ code: 'UNSAFE_NAME' });
        await expect(store.get(unsafe)).rejects.toMatchObject({ code: 'UNSAFE_NAME' });
        await expect(store.stat(unsafe)).rejects.toMatchObject({ code: 'UNSAFE_NAME' });
        await expect(store.delete(unsafe)).rejects.toMatchObject({ code: 'UNSAFE_NAME' });
      }
    } finally {
      await store.close();
    }
  });
});

const url = process.env.MONGODB_URL;
if (url) {
  const bucketName = `test_blobs_${randomUUID().slice(0, 8)}`;
  blobStoreContract(
    'GridFsBlobStore',
    () => GridFsBlobStore.connect({ url, bucketName }),
    async (store) => {
      await store.close();
      const client = await MongoClient.connect(url);
      try {
        const db = client.db();
        for (const suffix of ['files', 'chunks'])
          await db.dropCollection(`${bucketName}.${suffix}`).catch(() => undefined);
      } finally {
        await client.close();
      }
    },
  );

  describe('GridFsBlobStore revisions', () => {
    it('keeps a single GridFS revision after concurrent replacements', async () => {
      const store = await GridFsBlobStore.connect({ url, bucketName });
      const client = await MongoClient.connect(url);
      try {
        const name = `rev_${randomUUID().slice(0, 8)}`;
        await Promise.all(
          Array.from({ length: 6 }, (_, i) => store.put(name, Buffer.alloc(1000 + i, i), 'text/plain')),
        );
        const files = await client.db().collection(`${bucketName}.files`).find({ filename: name }).toArray();
        expect(files).toHaveLength(1);
      } finally {
        await client.close();
        await store.close();
      }
    });
  });
}
