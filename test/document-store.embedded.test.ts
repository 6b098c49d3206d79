import { find as mingoFind } from 'mingo';
import { EmbeddedDocumentStore } from '../runtime/stream/embedded-document-store';
import type { StoredDocument } from '../runtime/stream/document-store';
import { documentStoreContract } from './contract/document-store.contract';

documentStoreContract('EmbeddedDocumentStore', async () => new EmbeddedDocumentStore());

describe('EmbeddedDocumentStore', () => {
  it('is a per-process store of kind embedded', () => {
    const store = new EmbeddedDocumentStore();
    expect(store.shared).toBe(false);
    expect(store.kind).toBe('embedded');
  });

  it('filters, sorts and pages 100k documents', async () => {
    const store = new EmbeddedDocumentStore();
    const statuses = ['active', 'inactive', 'pending', 'closed'];
    for (let i = 0; i < 100_000; i++) {
      const doc: StoredDocument = {
        _id: `m${String(i).padStart(6, '0')}`,
        _v: 1,
        _instance: `inst-${i % 1000}`,
        _class: 'Member',
        status: statuses[i % 4],
        score: (i * 7919) % 100_000,
        profile: { tier: i % 3 },
      };
      await store.upsertIfNewer('members', doc);
    }

    const { items, total } = await store.find(
      'members',
      { status: 'active', 'profile.tier': { $in: [0, 1] } },
      { sort: { score: -1 }, skip: 10, limit: 5, projection: { score: 1 } },
    );
    expect(total).toBe(16_667);
    expect(items).toHaveLength(5);
    const scores = items.map((item) => item.score as number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    await expect(store.count('members', { status: 'closed' })).resolves.toBe(25_000);
    await store.close();
  });

  it('walks a broad $in over an array field, counting a document in several of its buckets once', async () => {
    const store = new EmbeddedDocumentStore();
    await store.ensureIndexes('members', [{ keys: { createdAt: -1 } }, { keys: { statuses: 1 } }]);
    const choices = [['active'], ['pending'], ['active', 'pending'], ['expired'], []];
    for (let i = 0; i < 2_000; i++) {
      await store.upsertIfNewer('members', {
        _id: `m${String(i).padStart(4, '0')}`,
        _v: 1,
        _instance: `m${i}`,
        _class: 'Member',
        statuses: choices[i % choices.length],
        createdAt: new Date(Date.UTC(2024, 0, 1) + (i % 700) * 60_000).toISOString(),
      });
    }
    const all = (await store.find('members', {})).items;
    const sort = { createdAt: -1 as const, _id: 1 as const };
    for (const filter of [
      { statuses: { $in: ['active', 'pending'] } },
      { statuses: { $in: ['pending', 'expired'] } },
    ]) {
      // a first page is walked off the view; a deep one is selected from the buckets: the same answers
      for (const [skip, limit, order] of [
        [0, 20, 'walk'],
        [300, 7, 'top-k'],
      ] as const) {
        const { items, total } = await store.find('members', filter, { sort, skip, limit });
        expect(store.lastQuery).toMatchObject({ plan: 'index', index: 'statuses', order });
        expect(total).toBe(mingoFind(all, filter).all().length);
        expect(items).toEqual(mingoFind(all, filter).sort(sort).skip(skip).limit(limit).all());
      }
    }
    await store.close();
  });
});
