/*
 * A throw-away local Redis Cluster for the tests (the cluster twin of
 * redis-server.js, plain JS for jest's globalSetup, which jest loads without
 * transpiling): starts masters * (1 + replicasPerMaster) `redis-server
 * --cluster-enabled yes` processes on free 127.0.0.1 ports (no persistence
 * unless asked, one temporary directory), joins them with `redis-cli --cluster
 * create`, waits until every node sees the same complete cluster, and stops
 * them all.
 *
 *   const { startRedisCluster } = require('./redis-cluster');
 *   const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
 *   cluster.nodesEnv          // '127.0.0.1:p1,127.0.0.1:p2,...', masters first (REDIS_CLUSTER_NODES)
 *   await cluster.kill(port)  // SIGKILL one node: a crash (cluster.restart(port) brings it back)
 *   await cluster.masters()   // the masters now, from CLUSTER NODES
 *   await cluster.stop()
 *
 * As a command, for developers: `node test/support/redis-cluster.js [--masters 3] [--replicas 0]`
 * starts one, prints REDIS_CLUSTER_NODES=... and keeps it up until SIGINT or SIGTERM.
 */
'use strict';

const { execFile, spawn } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const { findFreePort } = require('./redis-server');

const HOST = '127.0.0.1';
const SLOTS = 16384;
const LOG_TAIL_LINES = 15;

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function findOnPath(cmd) {
  if (cmd.includes('/')) return fs.existsSync(cmd) ? cmd : undefined;
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, cmd);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/**
 * Parses one RESP reply at `at`: { value, end } or undefined while incomplete. Errors become
 * { error: 'ERR ...' } values, bulk and simple strings strings, arrays arrays.
 */
function parseReply(buf, at = 0) {
  const eol = buf.indexOf('\r\n', at);
  if (eol < 0) return undefined;
  const type = buf[at];
  const head = buf.slice(at + 1, eol);
  if (type === '+') return { value: head, end: eol + 2 };
  if (type === '-') return { value: { error: head }, end: eol + 2 };
  if (type === ':') return { value: Number(head), end: eol + 2 };
  if (type === '$') {
    const len = Number(head);
    if (len < 0) return { value: null, end: eol + 2 };
    // a bulk reply's length counts bytes: measure on a Buffer when the text is not ASCII
    const rest = buf.slice(eol + 2);
    const bytes = Buffer.from(rest, 'utf8');
    if (bytes.length < len + 2) return undefined;
    const value = bytes.subarray(0, len).toString('utf8');
    return { value, end: eol + 2 + value.length + 2 };
  }
  if (type === '*') {
    const n = Number(head);
    if (n < 0) return { value: null, end: eol + 2 };
    const items = [];
    let pos = eol + 2;
    for (let i = 0; i < n; i++) {
      const item = parseReply(buf, pos);
      if (!item) return undefined;
      items.push(item.value);
      pos = item.end;
    }
    return { value: items, end: pos };
  }
  return { value: { error: `unexpected reply ${JSON.stringify(buf.slice(at, at + 40))}` }, end: buf.length };
}

/**
 * Sends one command (an array of arguments, RESP-encoded) on a connection of its own; resolves
 * with its reply (an error reply as { error }), or null when the node does not answer in time.
 */
function command(port, args, timeoutMs = 1000) {
  return new Promise((resolve) => {
    let buf = '';
    let done = false;
    const sock = net.createConnection({ host: HOST, port });
    const finish = (value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    sock.once('error', () => finish(null));
    sock.once('close', () => finish(null));
    sock.once('connect', () => {
      const parts = args.map(String);
      sock.write(`*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join('')}`);
    });
    sock.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      const reply = parseReply(buf);
      if (reply) finish(reply.value);
    });
  });
}

/** `key:value` lines of INFO / CLUSTER INFO as an object. */
function infoFields(text) {
  const out = {};
  for (const line of String(text || '').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1).trim();
  }
  return out;
}

/**
 * CLUSTER NODES as records: { id, host, port, flags: [...], master (its master's id, or null),
 * connected, slots: ['0-5460', ...] }.
 */
function parseClusterNodes(text) {
  return String(text || '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((line) => {
      const [id, addr, flags, master, , , , link, ...slots] = line.split(' ');
      // addr is ip:port@cport[,hostname]
      const hostPort = addr.split('@')[0];
      const colon = hostPort.lastIndexOf(':');
      return {
        id,
        host: hostPort.slice(0, colon),
        port: Number(hostPort.slice(colon + 1)),
        flags: flags.split(','),
        master: master === '-' ? null : master,
        connected: link === 'connected',
        // importing/migrating markers ([...]) are not slots a node serves
        slots: slots.filter((s) => !s.startsWith('[')),
      };
    });
}

/** The last lines of a node's log file ('' when there is none). */
function logTail(file, lines = LOG_TAIL_LINES) {
  try {
    const text = fs.readFileSync(file, 'utf8').trimEnd();
    return text.split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function waitExit(exited, ms) {
  let timer;
  return Promise.race([
    exited.then(() => true),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * One cluster node process: spawns redis-server with its output appended to `logFile`, and waits
 * until it answers PING as itself (not another Redis that holds the port).
 */
async function startNode(bin, node, timeoutMs) {
  const args = [
    '--port',
    String(node.port),
    '--bind',
    HOST,
    '--protected-mode',
    'yes',
    '--daemonize',
    'no',
    '--dir',
    node.dir,
    '--save',
    '',
    '--appendonly',
    node.appendonly ? 'yes' : 'no',
    // the nodes share the directory: names of their own for every file a node may write
    '--appenddirname',
    `appendonlydir-${node.port}`,
    '--dbfilename',
    `dump-${node.port}.rdb`,
    // a master waits 5 s by default for more replicas before a diskless full sync: replicas would be up 5 s later
    '--repl-diskless-sync-delay',
    '0',
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    node.configFile,
    '--cluster-node-timeout',
    String(node.nodeTimeoutMs),
    // the bus port is chosen free like the client port (the default, port + 10000, may be taken or past 65535)
    '--cluster-port',
    String(node.busPort),
  ];
  const fd = fs.openSync(node.logFile, 'a');
  // setpriv --pdeathsig: the node dies with its parent even if that is SIGKILLed before it stops the cluster
  const setpriv = process.platform === 'linux' ? findOnPath('setpriv') : undefined;
  let child;
  try {
    child = setpriv
      ? spawn(setpriv, ['--pdeathsig', 'TERM', '--', bin, ...args], { stdio: ['ignore', fd, fd], cwd: node.dir })
      : spawn(bin, args, { stdio: ['ignore', fd, fd], cwd: node.dir });
  } finally {
    fs.closeSync(fd);
  }
  let exitedFlag = false;
  const exited = new Promise((resolve) => {
    child.once('error', (err) => resolve({ error: err }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  }).then((e) => {
    exitedFlag = true;
    return e;
  });

  const deadline = Date.now() + timeoutMs;
  let wait = 10;
  for (;;) {
    if (exitedFlag) {
      const e = await exited;
      const tail = logTail(node.logFile);
      const err = new Error(
        e.error
          ? `could not start ${bin}: ${e.error.message}`
          : `cluster node on port ${node.port} exited (${e.signal || `code ${e.code}`}) before answering PING\n${tail}`,
      );
      err.addressInUse = /address already in use/i.test(tail);
      throw err;
    }
    if ((await command(node.port, ['PING'], 500)) === 'PONG') {
      const info = await command(node.port, ['INFO', 'server'], 1000);
      const pid = Number(infoFields(info).process_id);
      if (!pid || pid === child.pid) break;
      child.kill('SIGKILL');
      await waitExit(exited, 5000);
      const err = new Error(`port ${node.port} is already served by another Redis (pid ${pid})`);
      err.addressInUse = true;
      throw err;
    }
    if (Date.now() >= deadline) {
      child.kill('SIGKILL');
      await waitExit(exited, 5000);
      throw new Error(
        `cluster node on port ${node.port} did not answer PING within ${timeoutMs} ms\n${logTail(node.logFile)}`,
      );
    }
    await Promise.race([delay(wait), exited]);
    wait = Math.min(wait * 2, 100);
  }
  child.unref();
  return { child, exited, isExited: () => exitedFlag };
}

/** Sends `signal` to a node's process and waits for its exit (SIGKILL after a deadline). */
async function signalNode(proc, signal, timeoutMs = 10000) {
  if (!proc || proc.isExited()) return;
  proc.child.kill(signal);
  if (await waitExit(proc.exited, timeoutMs)) return;
  proc.child.kill('SIGKILL');
  if (!(await waitExit(proc.exited, 5000))) throw new Error(`redis-server pid ${proc.child.pid} did not exit`);
}

function runRedisCli(cli, args, timeoutMs) {
  return new Promise((resolve, reject) => {
    execFile(cli, args, { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        err.message = `redis-cli ${args.join(' ')} failed (${err.killed ? `killed after ${timeoutMs} ms` : (err.code ?? err.signal)})\n${`${stdout}\n${stderr}`.trim()}`;
        reject(err);
      } else resolve(stdout);
    });
  });
}

/**
 * Why the cluster is not formed yet, as seen from every live node: undefined once every node
 * says cluster_state:ok with all 16384 slots assigned and knows every node, all of them map the
 * slots to the same masters and, with replicas, every replica's link to its master is up.
 */
async function notReady(nodes, replicasPerMaster) {
  const views = await Promise.all(
    nodes.map(async (n) => {
      const [info, nodesText, replication] = await Promise.all([
        command(n.port, ['CLUSTER', 'INFO']),
        command(n.port, ['CLUSTER', 'NODES']),
        replicasPerMaster > 0 ? command(n.port, ['INFO', 'replication']) : Promise.resolve(''),
      ]);
      return { node: n, info, nodesText, replication };
    }),
  );
  let signature;
  for (const { node, info, nodesText, replication } of views) {
    if (typeof info !== 'string' || typeof nodesText !== 'string')
      return `${node.port} does not answer CLUSTER INFO / NODES`;
    const f = infoFields(info);
    if (f.cluster_state !== 'ok') return `${node.port}: cluster_state:${f.cluster_state}`;
    if (Number(f.cluster_slots_assigned) !== SLOTS)
      return `${node.port}: cluster_slots_assigned:${f.cluster_slots_assigned}`;
    if (Number(f.cluster_slots_ok) !== SLOTS) return `${node.port}: cluster_slots_ok:${f.cluster_slots_ok}`;
    if (Number(f.cluster_known_nodes) !== nodes.length)
      return `${node.port}: cluster_known_nodes:${f.cluster_known_nodes} of ${nodes.length}`;
    const view = parseClusterNodes(nodesText);
    const masters = view
      .filter((r) => r.flags.includes('master') && r.slots.length)
      .map((r) => `${r.id}=${r.slots.join(',')}`)
      .sort()
      .join(' ');
    if (signature === undefined) signature = masters;
    else if (signature !== masters)
      return `${node.port} maps the slots differently (${masters}) from another node (${signature})`;
    if (replicasPerMaster > 0) {
      const me = view.find((r) => r.flags.includes('myself'));
      if (me && me.flags.includes('slave')) {
        const link = infoFields(replication).master_link_status;
        if (link !== 'up') return `replica ${node.port}: master_link_status:${link}`;
      }
    }
  }
  if (replicasPerMaster > 0) {
    const view = parseClusterNodes(views[0].nodesText);
    for (const m of view.filter((r) => r.flags.includes('master'))) {
      const replicas = view.filter((r) => r.master === m.id).length;
      if (replicas < replicasPerMaster) return `master ${m.port} has ${replicas} of ${replicasPerMaster} replicas`;
    }
  }
  return undefined;
}

/**
 * Starts a local Redis Cluster; resolves with
 *   { nodes: [{ host, port, pid }], nodesEnv, dir, stop(), kill(port, signal), restart(port), masters() }
 * `nodes` and `nodesEnv` list the masters first, then the replicas. With `form: false` the nodes are
 * started (cluster-enabled, each knowing only itself) and not joined: for testing what forms a cluster.
 */
async function startRedisCluster({
  masters = 3,
  replicasPerMaster = 0,
  nodeTimeoutMs = 1000,
  appendonly = false,
  timeoutMs = 30000,
  form = true,
} = {}) {
  if (!Number.isInteger(masters) || masters < 3)
    throw new Error(`a Redis Cluster needs 3 masters or more, not ${masters}`);
  if (!Number.isInteger(replicasPerMaster) || replicasPerMaster < 0)
    throw new Error(`replicasPerMaster must be 0 or more, not ${replicasPerMaster}`);
  const bin = findOnPath(process.env.REDIS_SERVER_BIN || 'redis-server');
  // redis-cli is installed next to redis-server (Debian's redis-tools, a dependency of redis-server)
  const cli = (bin && findOnPath(path.join(path.dirname(bin), 'redis-cli'))) || findOnPath('redis-cli');
  if (!bin || !cli) {
    const err = new Error(
      `${bin ? 'redis-cli' : 'redis-server'} not found on PATH: run \`node scripts/ensure-deps.js\` ` +
        '(installs redis-server with apt-get as root), or set REDIS_CLUSTER_NODES to a cluster the tests may use',
    );
    err.notInstalled = true;
    throw err;
  }
  const deadline = Date.now() + timeoutMs;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jest-redis-cluster-'));
  const total = masters * (1 + replicasPerMaster);
  /** port -> { spec, proc } */
  const nodes = new Map();

  const launch = async (spec) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await startNode(bin, spec, Math.max(1000, deadline - Date.now()));
      } catch (err) {
        if (!err.addressInUse || attempt >= 3) throw err;
        // taken between the free-port check and the bind: new ports
        spec.port = await findFreePort();
        spec.busPort = await findFreePort();
        spec.configFile = path.join(dir, `nodes-${spec.port}.conf`);
        spec.logFile = path.join(dir, `node-${spec.port}.log`);
      }
    }
  };

  const stopAll = async (signal = 'SIGTERM') => {
    await Promise.allSettled([...nodes.values()].map((n) => signalNode(n.proc, signal)));
  };
  const onProcessExit = () => {
    for (const n of nodes.values()) if (n.proc && !n.proc.isExited()) n.proc.child.kill('SIGTERM');
  };
  process.on('exit', onProcessExit);

  const logsTail = () =>
    [...nodes.values()]
      .map((n) => `--- node ${n.spec.port} (${n.spec.logFile}) ---\n${logTail(n.spec.logFile) || '(no output)'}`)
      .join('\n');

  const specs = [];
  try {
    const ports = new Set();
    const freshPort = async () => {
      // listen(0) hands out ephemeral ports; one already chosen for this cluster is chosen again only by chance
      for (;;) {
        const p = await findFreePort();
        if (!ports.has(p)) {
          ports.add(p);
          return p;
        }
      }
    };
    for (let i = 0; i < total; i++) {
      const port = await freshPort();
      const busPort = await freshPort();
      specs.push({
        port,
        busPort,
        dir,
        appendonly,
        nodeTimeoutMs,
        configFile: path.join(dir, `nodes-${port}.conf`),
        logFile: path.join(dir, `node-${port}.log`),
      });
    }
    const started = await Promise.allSettled(
      specs.map(async (spec) => {
        const proc = await launch(spec);
        nodes.set(spec.port, { spec, proc });
      }),
    );
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;

    if (form) {
      // the first `masters` addresses become the masters when every node is on one host
      await runRedisCli(
        cli,
        [
          '--cluster',
          'create',
          ...specs.map((s) => `${HOST}:${s.port}`),
          '--cluster-replicas',
          String(replicasPerMaster),
          '--cluster-yes',
        ],
        Math.max(1000, deadline - Date.now()),
      );
      const all = specs.map((s) => ({ port: s.port }));
      let wait = 20;
      for (;;) {
        const why = await notReady(all, replicasPerMaster);
        if (!why) break;
        if (Date.now() >= deadline) throw new Error(`the cluster did not form within ${timeoutMs} ms: ${why}`);
        await delay(wait);
        wait = Math.min(wait * 2, 200);
      }
    }
  } catch (err) {
    err.message = `could not start a Redis Cluster of ${masters} masters and ${replicasPerMaster} replicas each: ${err.message}\n${logsTail()}`;
    await stopAll('SIGKILL');
    process.removeListener('exit', onProcessExit);
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  /** CLUSTER NODES from the first live node that answers. */
  const clusterNodes = async () => {
    for (const { spec, proc } of nodes.values()) {
      if (proc.isExited()) continue;
      const text = await command(spec.port, ['CLUSTER', 'NODES']);
      if (typeof text === 'string') return parseClusterNodes(text);
    }
    throw new Error('no node of the cluster answers CLUSTER NODES');
  };

  // masters first, then replicas, as CLUSTER NODES says after formation (unformed: in the order started)
  const view = await clusterNodes();
  const role = (port) => (view.find((r) => r.port === port)?.flags.includes('slave') ? 1 : 0);
  const ordered = specs.map((s) => s.port).sort((a, b) => role(a) - role(b));

  const entry = (port) => ({ host: HOST, port, pid: nodes.get(port).proc.child.pid });
  const nodeOf = (port) => {
    const n = nodes.get(Number(port));
    if (!n) throw new Error(`port ${port} is not a node of this cluster (${ordered.join(', ')})`);
    return n;
  };

  let stopping;
  const cluster = {
    dir,
    nodes: ordered.map(entry),
    nodesEnv: ordered.map((p) => `${HOST}:${p}`).join(','),
    /** Stops every node (SIGTERM, SIGKILL past a deadline) and removes the directory. */
    stop() {
      stopping =
        stopping ||
        (async () => {
          await stopAll('SIGTERM');
          process.removeListener('exit', onProcessExit);
          fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
        })();
      return stopping;
    },
    /** Signals one node (SIGKILL: a crash) and waits for it to exit. */
    async kill(port, signal = 'SIGKILL') {
      await signalNode(nodeOf(port).proc, signal);
    },
    /** Starts a stopped node again on its port, with its nodes-<port>.conf (and data, with appendonly). */
    async restart(port) {
      const n = nodeOf(port);
      if (!n.proc.isExited()) throw new Error(`node ${port} is still running`);
      n.proc = await startNode(bin, n.spec, timeoutMs);
      cluster.nodes = ordered.map(entry);
      return entry(n.spec.port);
    },
    /** The masters now (not failed), as CLUSTER NODES of a live node says: [{ host, port, id, slots }]. */
    async masters() {
      return (await clusterNodes())
        .filter((r) => r.flags.includes('master') && !r.flags.includes('fail') && !r.flags.includes('fail?'))
        .map((r) => ({ host: r.host || HOST, port: r.port, id: r.id, slots: r.slots }));
    },
  };
  return cluster;
}

module.exports = { startRedisCluster, parseClusterNodes, command };

if (require.main === module) {
  const opt = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const started = Date.now();
  startRedisCluster({ masters: opt('masters', 3), replicasPerMaster: opt('replicas', 0) }).then(
    (cluster) => {
      process.stdout.write(`REDIS_CLUSTER_NODES=${cluster.nodesEnv}\n`);
      process.stderr.write(
        `cluster of ${cluster.nodes.length} nodes up in ${Date.now() - started} ms (${cluster.dir}); Ctrl-C stops it\n`,
      );
      // the nodes are unref'ed: this keeps the process (and so the cluster) up
      const keepAlive = setInterval(() => {}, 1 << 30);
      const shutdown = (signal) => {
        process.stderr.write(`${signal}: stopping the cluster\n`);
        cluster.stop().then(
          () => {
            clearInterval(keepAlive);
            process.exit(0);
          },
          (err) => {
            process.stderr.write(`${err.stack || err}\n`);
            process.exit(1);
          },
        );
      };
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
    },
    (err) => {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    },
  );
}
