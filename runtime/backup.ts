/**
 * `cli backup <dir>` and `cli restore <dir>`: a project's data as files, and
 * back. What is copied: every Redis key of the project (actor state, lookup
 * keys, outboxes, queued jobs and delayed tasks, API keys, roles, sessions:
 * `rt:<project>:…` and `rt:{<project>:…}`), each as Redis's own DUMP payload
 * with its remaining time to live, and every blob of the file store. The
 * document store is not copied: it is derived, and a restored service rebuilds
 * it from actor state (at start with the embedded store, `cli reproject` with
 * MongoDB).
 *
 * Each key is copied atomically, not the whole keyspace at one instant. That
 * is enough for this runtime: an instance's change and everything it causes in
 * other instances are committed in one key set of its bucket (the change, its
 * outbox entry), and what the outbox still holds is applied after the restore
 * effectively once (a target records the deliveries it applied). A change
 * committed while the backup runs is in it or not, whole. For a backup at one
 * instant, stop writers first (or back up a paused replica).
 *
 * Works on one redis-server and on a Redis Cluster (every master is walked; a
 * restored key lands in its slot wherever the target's slots are). A DUMP
 * payload is read by the same or a newer Redis version only.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { assertSafeBlobName, type BlobStore } from './files/blob-store';
import { scanTargets, type RedisConnection } from './redis/connection';

export class BackupError extends Error {}

export const BACKUP_FORMAT = 1;
const MANIFEST = 'manifest.json';
const KEYS_FILE = 'redis-keys.jsonl';
const BLOBS_DIR = 'blobs';
/** one line per blob: its name and content type (the content is the file of that name in BLOBS_DIR) */
const BLOBS_FILE = 'blobs.jsonl';

export interface BackupManifest {
  format: number;
  projectId: string;
  createdAt: string;
  /** the Redis version the DUMP payloads come from (a restore needs this or newer) */
  redisVersion: string;
  keys: number;
  blobs: number;
  /** sha256 of the keys file, checked before a restore writes anything */
  keysSha256: string;
}

export interface BackupProgress {
  (what: 'keys' | 'blobs', done: number): void;
}

/** the SCAN patterns of a project's keys (project ids are [a-z0-9-]: nothing to escape) */
export function projectKeyPatterns(projectId: string): string[] {
  return [`rt:${projectId}:*`, `rt:{${projectId}:*`];
}

async function redisVersion(conn: RedisConnection): Promise<string> {
  const info = await scanTargets(conn)[0].info('server');
  return /redis_version:([^\r\n]+)/.exec(info)?.[1] ?? 'unknown';
}

/** Writes the project's keys and blobs into `dir`, which must be absent or empty. */
export async function backup(
  conn: RedisConnection,
  blobs: BlobStore,
  projectId: string,
  dir: string,
  onProgress?: BackupProgress,
): Promise<BackupManifest> {
  await fs.mkdir(dir, { recursive: true });
  if ((await fs.readdir(dir)).length) throw new BackupError(`backup: ${dir} is not empty; name a new directory`);
  const createdAt = new Date().toISOString();
  const version = await redisVersion(conn);
  const hash = createHash('sha256');
  const out = createWriteStream(path.join(dir, KEYS_FILE), { mode: 0o600 });
  const write = (line: string) =>
    new Promise<void>((resolve, reject) => {
      hash.update(line);
      out.write(line, (err) => (err ? reject(err) : resolve()));
    });
  let keys = 0;
  // a key SCAN returns twice (the table resized meanwhile) is written once
  const seen = new Set<string>();
  try {
    for (const node of scanTargets(conn)) {
      for (const pattern of projectKeyPatterns(projectId)) {
        let cursor = '0';
        do {
          const [next, batch] = await node.scanBuffer(cursor, 'MATCH', pattern, 'COUNT', 1000);
          cursor = next.toString();
          const fresh = batch.filter((k) => !seen.has(k.toString('base64')));
          if (!fresh.length) continue;
          const pipe = node.pipeline();
          for (const k of fresh) pipe.dumpBuffer(k).pttl(k);
          const replies = (await pipe.exec()) ?? [];
          for (let i = 0; i < fresh.length; i++) {
            const [dumpErr, payload] = replies[2 * i] ?? [];
            const [ttlErr, ttl] = replies[2 * i + 1] ?? [];
            const failed = dumpErr ?? ttlErr;
            if (failed) throw failed;
            if (payload === null) continue; // expired or deleted since the scan saw it
            const key = fresh[i].toString('base64');
            seen.add(key);
            const line = JSON.stringify({ k: key, d: (payload as Buffer).toString('base64'), t: ttl as number }) + '\n';
            await write(line);
            keys++;
          }
          onProgress?.('keys', keys);
        } while (cursor !== '0');
      }
    }
  } finally {
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }
  let count = 0;
  await fs.mkdir(path.join(dir, BLOBS_DIR), { recursive: true, mode: 0o700 });
  const listed = createWriteStream(path.join(dir, BLOBS_FILE), { mode: 0o600 });
  try {
    for await (const name of blobs.names()) {
      const blob = await blobs.get(name);
      if (!blob) continue; // deleted since it was listed
      // the name passed the store's safe-name check: a plain file name, never a path
      await fs.writeFile(path.join(dir, BLOBS_DIR, name), blob.data, { mode: 0o600 });
      listed.write(JSON.stringify({ name, contentType: blob.info.contentType, size: blob.data.length }) + '\n');
      count++;
      onProgress?.('blobs', count);
    }
  } finally {
    await new Promise<void>((resolve, reject) => listed.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    projectId,
    createdAt,
    redisVersion: version,
    keys,
    blobs: count,
    keysSha256: hash.digest('hex'),
  };
  await fs.writeFile(path.join(dir, MANIFEST), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
  return manifest;
}

export async function readManifest(dir: string): Promise<BackupManifest> {
  let raw: string;
  try {
    raw = await fs.readFile(path.join(dir, MANIFEST), 'utf8');
  } catch {
    throw new BackupError(`restore: ${dir} holds no ${MANIFEST}: not a backup`);
  }
  const m = JSON.parse(raw) as Partial<BackupManifest>;
  if (m.format !== BACKUP_FORMAT) throw new BackupError(`restore: backup format ${m.format} is not ${BACKUP_FORMAT}`);
  return m as BackupManifest;
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** does the target hold any key of the project? */
async function holdsProject(conn: RedisConnection, projectId: string): Promise<boolean> {
  for (const node of scanTargets(conn)) {
    for (const pattern of projectKeyPatterns(projectId)) {
      let cursor = '0';
      do {
        const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        if (batch.length) return true;
        cursor = next;
      } while (cursor !== '0');
    }
  }
  return false;
}

export interface RestoreResult {
  projectId: string;
  keys: number;
  blobs: number;
  /** when the backup was taken (a key with a time to live gets what it had left then) */
  createdAt: string;
}

/**
 * Writes a backup into an empty project: refused when the target already holds
 * any key of the project (a restore never mixes two histories), or when the
 * backup's project is another (`projectId`).
 */
export async function restore(
  conn: RedisConnection,
  blobs: BlobStore,
  projectId: string,
  dir: string,
  onProgress?: BackupProgress,
): Promise<RestoreResult> {
  const manifest = await readManifest(dir);
  if (manifest.projectId !== projectId) {
    throw new BackupError(
      `restore: the backup is of project '${manifest.projectId}', this service's PROJECT_ID is '${projectId}'`,
    );
  }
  const keysFile = path.join(dir, KEYS_FILE);
  if ((await fileSha256(keysFile)) !== manifest.keysSha256)
    throw new BackupError(`restore: ${KEYS_FILE} does not match the manifest's checksum: the backup is damaged`);
  if (await holdsProject(conn, projectId)) {
    throw new BackupError(
      `restore: the target Redis already holds data of project '${projectId}'; restore into an empty one`,
    );
  }
  let keys = 0;
  const lines = readline.createInterface({ input: createReadStream(keysFile), crlfDelay: Infinity });
  let batch: { k: string; d: string; t: number }[] = [];
  const flush = async () => {
    // one key per command: on a cluster each goes to its own slot's master
    await Promise.all(
      batch.map((e) => conn.restore(Buffer.from(e.k, 'base64'), e.t > 0 ? e.t : 0, Buffer.from(e.d, 'base64'))),
    );
    keys += batch.length;
    batch = [];
    onProgress?.('keys', keys);
  };
  for await (const line of lines) {
    if (!line) continue;
    batch.push(JSON.parse(line) as { k: string; d: string; t: number });
    if (batch.length >= 500) await flush();
  }
  await flush();
  let count = 0;
  const listed = readline.createInterface({ input: createReadStream(path.join(dir, BLOBS_FILE)), crlfDelay: Infinity });
  for await (const line of listed) {
    if (!line) continue;
    const { name, contentType } = JSON.parse(line) as { name: string; contentType: string };
    // the store refuses a name that is not a plain file name: the path below cannot leave the backup
    assertSafeBlobName(name);
    await blobs.put(name, await fs.readFile(path.join(dir, BLOBS_DIR, name)), contentType);
    count++;
    onProgress?.('blobs', count);
  }
  if (keys !== manifest.keys || count !== manifest.blobs) {
    throw new BackupError(
      `restore: wrote ${keys} keys and ${count} blobs, the manifest lists ${manifest.keys} and ${manifest.blobs}`,
    );
  }
  return { projectId, keys, blobs: count, createdAt: manifest.createdAt };
}
