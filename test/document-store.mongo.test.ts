/**
 * Runs the DocumentStore contract against MongoDB when MONGODB_URL is set
 * (e.g. mongodb://localhost:27017/test). Collections get a random prefix and
 * are dropped afterwards, so a shared server can be used.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { MongoDocumentStore, totalFromPage } from '../runtime/stream/mongo-document-store';
import { documentStoreContract } from './contract/document-store.contract';

describe('MongoDocumentStore without a server', () => {
  it('is a shared store of kind mongodb and does not connect when constructed', async () => {
    const store = new MongoDocumentStore({ url: 'mongodb://127.0.0.1:1/unused' });
    expect(store.shared).toBe(true);
    expect(store.kind).toBe('mongodb');
    await store.close();
  });

  it('takes a total from the page when the page ends the matches, and counts otherwise', () => {
    expect(totalFromPage(40, 20, 7)).toBe(47); // a short page: the last
    expect(totalFromPage(0, 20, 0)).toBe(0); // nothing matches
    expect(totalFromPage(0, 0, 12)).toBe(12); // no limit: every match
    expect(totalFromPage(40, 20, 20)).toBeUndefined(); // a full page: more may follow
    expect(totalFromPage(60, 20, 0)).toBeUndefined(); // past the end: how far is unknown
    expect(totalFromPage(60, 0, 0)).toBeUndefined();
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
