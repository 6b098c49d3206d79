/** Types of redis-cluster.js (plain JS for jest's globalSetup), for the TypeScript tests that use it. */

export interface ClusterNodeProcess {
  host: string;
  port: number;
  pid: number;
}

export interface ClusterNodeRecord {
  id: string;
  host: string;
  port: number;
  flags: string[];
  /** its master's id, null for a master */
  master: string | null;
  connected: boolean;
  slots: string[];
}

export interface LocalRedisCluster {
  /** masters first, then replicas (as formed; see masters() for the masters now) */
  nodes: ClusterNodeProcess[];
  /** `127.0.0.1:p1,127.0.0.1:p2,...`, masters first: a REDIS_CLUSTER_NODES value */
  nodesEnv: string;
  /** the temporary directory of its nodes-<port>.conf, logs (node-<port>.log) and data */
  dir: string;
  /** stops every node and removes `dir` */
  stop(): Promise<void>;
  /** signals one node (SIGKILL: a crash) and waits for it to exit */
  kill(port: number, signal?: NodeJS.Signals): Promise<void>;
  /** starts a stopped node again on its port, with its nodes.conf */
  restart(port: number): Promise<ClusterNodeProcess>;
  /** the masters not failed, from CLUSTER NODES of a live node */
  masters(): Promise<{ host: string; port: number; id: string; slots: string[] }[]>;
}

export interface StartRedisClusterOptions {
  /** 3 or more (default 3) */
  masters?: number;
  /** default 0 */
  replicasPerMaster?: number;
  /** cluster-node-timeout (default 1000 ms) */
  nodeTimeoutMs?: number;
  /** AOF on (default off) */
  appendonly?: boolean;
  /** deadline of the whole start (default 30000 ms) */
  timeoutMs?: number;
  /** false: start the nodes and leave them unjoined (default true) */
  form?: boolean;
}

export function startRedisCluster(options?: StartRedisClusterOptions): Promise<LocalRedisCluster>;

export function parseClusterNodes(text: string): ClusterNodeRecord[];

/** One command on a connection of its own; its reply ({ error } for an error reply), null without an answer in time. */
export function command(port: number, args: (string | number)[], timeoutMs?: number): Promise<unknown>;
