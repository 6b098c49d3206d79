import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { LocalBlobStore } from '../runtime/files/local-blob-store';
import { blobStoreContract } from './contract/blob-store.contract';

const root = path.join(os.tmpdir(), `blob-local-${randomUUID()}`);
afterAll(() => fs.rm(root, { recursive: true, force: true }));

blobStoreContract('LocalBlobStore', async () => new LocalBlobStore(path.join(root, 'contract')));

describe('LocalBlobStore', () => {
  test('is of kind local and creates its directory on first write only', async () => {
    const dir = path.join(root, 'lazy', 'nested');
    const store = new LocalBlobStore(dir);
    expect(store.kind).toBe('local');
    expect(await store.get('nothing')).toBeNull();
    expect(await store.stat('nothing')).toBeNull();
    await expect(store.delete('nothing')).resolves.toBe(false);
    await expect(fs.stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
    await store.put('first', Buffer.from('1'), 'text/plain');
    expect((await fs.stat(dir)).isDirectory()).toBe(true);
  });

  test('keeps one file per blob inside its directory and leaves no temporary files behind', async () => {
    const dir = path.join(root, 'tidy');
    const store = new LocalBlobStore(dir);
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => store.put('same', Buffer.alloc(1000 * (i + 1), i), 'text/plain')),
    );
    await store.put('other', Buffer.from('o'), 'text/plain');
    expect((await fs.readdir(dir)).sort()).toEqual(['other', 'same']);
    await store.delete('same');
    expect(await fs.readdir(dir)).toEqual(['other']);
  });

  test('a put after its directory was removed makes the directory again', async () => {
    const dir = path.join(root, 'removed', 'inner');
    const store = new LocalBlobStore(dir);
    await store.put('first', Buffer.from('1'), 'text/plain');
    await fs.rm(path.join(root, 'removed'), { recursive: true, force: true });
    await store.put('second', Buffer.from('2'), 'text/plain');
    expect((await store.get('second'))?.data.toString()).toBe('2');
    expect(await fs.readdir(dir)).toEqual(['second']);
  });

  test('an unsafe name never touches the file system outside the directory', async () => {
    const dir = path.join(root, 'jail', 'inner');
    const store = new LocalBlobStore(dir);
    await expect(store.put('../escaped', Buffer.from('x'), 'text/plain')).rejects.toMatchObject({
      code: 'UNSAFE_NAME',
    });
    await expect(fs.stat(path.join(root, 'jail', 'escaped'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(fs.stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  test('a corrupt blob file is reported, not returned as content', async () => {
    const dir = path.join(root, 'corrupt');
    const store = new LocalBlobStore(dir);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'broken'), Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2]));
    await expect(store.get('broken')).rejects.toThrow(/corrupt/);
    await expect(store.stat('broken')).rejects.toThrow(/corrupt/);
  });
});
