/**
 * Runs the DocumentStore contract against MongoDB when MONGODB_URL is set
 * (e.g. mongodb://localhost:27017/test). Collections get a random prefix and
 * are dropped afterwards, so a shared server can be used.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { MongoDocumentStore } from '../runtime/stream/mongo-document-store';
import { documentStoreContract } from './contract/document-store.contract';

describe('MongoDocumentStore without a server', () => {
  it('is a shared store of kind mongodb and does not connect when constructed', async () => {
    const store = new MongoDocumentStore({ url: 'mongodb://127.0.0.1:1/unused' });
    expect(store.shared).toBe(true);
    expect(store.kind).toBe('mongodb');
    await store.close();
  });

  it('rejects connect() when the server is unreachable', async () => {
    await expect(
      MongoDocumentStore.connect({ url: 'mongodb://127.0.0.1:1/unused' }, { serverSelectionTimeoutMS: 200 }),
    ).rejects.toMatchObject({ name: 'MongoServerSelectionError' });
  });
});

const url = process.env.MONGODB_URL;
if (url) {
  const collectionPrefix = `test_${randomUUID().slice(0, 8)}_`;
  documentStoreContract(
    'MongoDocumentStore',
    () => MongoDocumentStore.connect({ url, collectionPrefix }),
    async (store) => {
      await store.close();
      const client = await MongoClient.connect(url);
      try {
        const db = client.db();
        const collections = await db.listCollections({ name: { $regex: `^${collectionPrefix}` } }).toArray();
        for (const { name } of collections) await db.dropCollection(name);
      } finally {
        await client.close();
      }
    },
  );
}
