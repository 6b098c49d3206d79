/**
 * Contract suite for the BlobStore port. Every adapter must pass it; code
 * that stores file content may rely on exactly what it covers.
 *
 * Each test uses blob names with a random prefix, so suites can share a store.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { BlobStore } from '../../runtime/files/blob-store';

export const UNSAFE_NAMES = [
  '../x',
  '..',
  'a/b',
  'a\\b',
  '/etc/passwd',
  '',
  'with space',
  ' leading',
  'trailing ',
  '.hidden',
  'a..b',
  'a\u0000b',
  'a\nb',
  'é.txt',
  'x'.repeat(256),
];

export function blobStoreContract(
  label: string,
  open: () => Promise<BlobStore>,
  cleanup: (store: BlobStore) => Promise<void> = (store) => store.close(),
): void {
  describe(`BlobStore contract: ${label}`, () => {
    let store: BlobStore;
    let prefix: string;
    const name = (suffix: string) => `${prefix}${suffix}`;

    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await cleanup(store);
    });
    beforeEach(() => {
      prefix = `t${randomUUID().replace(/-/g, '').slice(0, 12)}_`;
    });

    test('has a kind', () => {
      expect(typeof store.kind).toBe('string');
      expect(store.kind.length).toBeGreaterThan(0);
    });

    test('put then get returns the same bytes, size and content type', async () => {
      const data = Buffer.from('hello, blob store', 'utf8');
      await store.put(name('a.txt'), data, 'text/plain');
      const got = await store.get(name('a.txt'));
      expect(got).not.toBeNull();
      expect(got!.data.equals(data)).toBe(true);
      expect(got!.info).toEqual({ name: name('a.txt'), size: data.length, contentType: 'text/plain' });
    });

    test('binary content round-trips byte for byte (every byte value, and 3 MB of random bytes)', async () => {
      const every = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));
      const random = randomBytes(3 * 1024 * 1024 + 7);
      await store.put(name('every.bin'), every, 'application/octet-stream');
      await store.put(name('random.bin'), random, 'image/png');
      const a = await store.get(name('every.bin'));
      const b = await store.get(name('random.bin'));
      expect(a!.data.equals(every)).toBe(true);
      expect(b!.data.length).toBe(random.length);
      expect(b!.data.equals(random)).toBe(true);
      expect(b!.info).toMatchObject({ size: random.length, contentType: 'image/png' });
    });

    test('an empty blob is stored and read back as empty', async () => {
      await store.put(name('empty'), Buffer.alloc(0), 'text/plain');
      const got = await store.get(name('empty'));
      expect(got!.data.length).toBe(0);
      expect(await store.stat(name('empty'))).toEqual({ name: name('empty'), size: 0, contentType: 'text/plain' });
    });

    test('stat describes a blob without its content; absent names give null', async () => {
      await store.put(name('s.json'), Buffer.from('{"a":1}'), 'application/json');
      expect(await store.stat(name('s.json'))).toEqual({
        name: name('s.json'),
        size: 7,
        contentType: 'application/json',
      });
      expect(await store.stat(name('missing'))).toBeNull();
      expect(await store.get(name('missing'))).toBeNull();
    });

    test('put replaces content, size and content type together', async () => {
      await store.put(name('r'), Buffer.from('first version, longer'), 'text/plain');
      await store.put(name('r'), Buffer.from([1, 2, 3]), 'application/octet-stream');
      const got = await store.get(name('r'));
      expect([...got!.data]).toEqual([1, 2, 3]);
      expect(got!.info).toEqual({ name: name('r'), size: 3, contentType: 'application/octet-stream' });
      expect(await store.stat(name('r'))).toEqual(got!.info);
    });

    test('delete removes a blob and tells whether something was deleted', async () => {
      await store.put(name('d'), Buffer.from('x'), 'text/plain');
      await expect(store.delete(name('d'))).resolves.toBe(true);
      expect(await store.get(name('d'))).toBeNull();
      expect(await store.stat(name('d'))).toBeNull();
      await expect(store.delete(name('d'))).resolves.toBe(false);
      await expect(store.delete(name('never-there'))).resolves.toBe(false);
    });

    test('names() lists every stored blob once: replaced ones once, deleted ones not at all', async () => {
      const mine = async () => {
        const out: string[] = [];
        for await (const n of store.names()) if (n.startsWith(prefix)) out.push(n);
        return out.sort();
      };
      await store.put(name('list-a'), Buffer.from('a'), 'text/plain');
      await store.put(name('list-b'), Buffer.from('b'), 'text/plain');
      await store.put(name('list-b'), Buffer.from('b2'), 'text/plain');
      await store.put(name('list-c'), Buffer.from('c'), 'text/plain');
      await store.delete(name('list-c'));
      const listed = await mine();
      expect(listed.filter((n) => n.includes('list-'))).toEqual([name('list-a'), name('list-b')]);
    });

    test('names are independent, including names that look like another name plus a suffix', async () => {
      await store.put(name('report'), Buffer.from('report'), 'text/plain');
      await store.put(name('report.meta.json'), Buffer.from('{"other":true}'), 'application/json');
      await store.put(name('report.tmp'), Buffer.from('tmp'), 'text/plain');
      expect((await store.get(name('report')))!.data.toString()).toBe('report');
      expect((await store.get(name('report')))!.info.contentType).toBe('text/plain');
      expect((await store.get(name('report.meta.json')))!.data.toString()).toBe('{"other":true}');
      expect((await store.get(name('report.tmp')))!.data.toString()).toBe('tmp');
      await store.delete(name('report.meta.json'));
      expect((await store.get(name('report')))!.data.toString()).toBe('report');
    });

    test('names may use letters, digits, underscore, dot and dash', async () => {
      const n = name('Member_abc-123_0f8fad5b-d9cb-469f-a165-70867728950e.pdf');
      await store.put(n, Buffer.from('%PDF-1.4'), 'application/pdf');
      expect((await store.stat(n))!.size).toBe(8);
    });

    test.each(UNSAFE_NAMES.map((n) => [JSON.stringify(n), n]))(
      'unsafe name %s is refused by every operation',
      async (_label, unsafe) => {
        const refused = { code: 'UNSAFE_NAME' };
        await expect(store.put(unsafe, Buffer.from('x'), 'text/plain')).rejects.toMatchObject(refused);
        await expect(store.get(unsafe)).rejects.toMatchObject(refused);
        await expect(store.stat(unsafe)).rejects.toMatchObject(refused);
        await expect(store.delete(unsafe)).rejects.toMatchObject(refused);
      },
    );

    test('concurrent puts of one name leave exactly one complete blob', async () => {
      const versions = Array.from({ length: 8 }, (_, i) => randomBytes(64 * 1024 + i * 1000));
      await Promise.all(versions.map((v, i) => store.put(name('race'), v, `application/x-v${i}`)));
      const got = await store.get(name('race'));
      const winner = versions.findIndex((v) => v.equals(got!.data));
      expect(winner).toBeGreaterThanOrEqual(0);
      expect(got!.info).toEqual({
        name: name('race'),
        size: versions[winner]!.length,
        contentType: `application/x-v${winner}`,
      });
      expect(await store.stat(name('race'))).toEqual(got!.info);
      // one blob: a single delete removes it
      await expect(store.delete(name('race'))).resolves.toBe(true);
      expect(await store.get(name('race'))).toBeNull();
    });

    test('readers during replacements always see one whole version', async () => {
      const versions = Array.from({ length: 4 }, (_, i) => Buffer.alloc(200 * 1024 + i * 4096, i + 1));
      await store.put(name('live'), versions[0]!, 'application/x-v0');
      let writing = true;
      const writer = (async () => {
        for (let round = 0; round < 5; round++) {
          for (let i = 0; i < versions.length; i++) await store.put(name('live'), versions[i]!, `application/x-v${i}`);
        }
        writing = false;
      })();
      let reads = 0;
      while (writing) {
        const got = await store.get(name('live'));
        expect(got).not.toBeNull();
        const i = versions.findIndex((v) => v.equals(got!.data));
        expect(i).toBeGreaterThanOrEqual(0);
        expect(got!.info.contentType).toBe(`application/x-v${i}`);
        expect(got!.info.size).toBe(versions[i]!.length);
        reads += 1;
      }
      await writer;
      expect(reads).toBeGreaterThan(0);
    });
  });
}
