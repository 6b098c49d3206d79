/**
 * Summarise a V8 .cpuprofile (from `npm run bench -- --cpu-prof`, `bench/profile-calls.ts`,
 * `node --cpu-prof`, or the inspector's Profiler):
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [top=40] [filter] [--skip=seconds]
 * Prints self time per function, inclusive (total) time per function, and self
 * time per area (a runtime folder, a package, node's internals, GC), each as a
 * share of the profile's busy samples (idle excluded from the denominator).
 * With a filter (substring of function name or file), only matching rows are shown.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** µs of samples that were not idle */
  busyUs: number;
  idleUs: number;
  /** function label → µs */
  self: Map<string, number>;
  inclusive: Map<string, number>;
  /** area (runtime/actor, nm/express, node:internal, (garbage collector) ...) → self µs */
  areas: Map<string, number>;
}

const ROOT = path.resolve(__dirname, '..');

function fileOf(url: string): string {
  let file = url.replace(/^file:\/\//, '');
  if (file.startsWith(ROOT)) file = path.relative(ROOT, file).replace(/^dist\//, '');
  return file.replace(/^.*node_modules\//, 'nm/');
}

function label(n: ProfileNode): string {
  const cf = n.callFrame;
  const file = fileOf(cf.url);
  return `${cf.functionName || '(anonymous)'} ${file ? `${file}:${cf.lineNumber + 1}` : ''}`.trim();
}

/** The area a frame's self time is charged to: a folder of ours (two levels), a package, node's internals, or V8's own. */
function area(n: ProfileNode): string {
  const file = fileOf(n.callFrame.url);
  if (!file) return n.callFrame.functionName.startsWith('(') ? n.callFrame.functionName : '(native)';
  if (file.startsWith('nm/')) {
    const parts = file.split('/');
    return parts[1].startsWith('@') ? `nm/${parts[1]}/${parts[2]}` : `nm/${parts[1]}`;
  }
  if (file.startsWith('node:')) return file.split('/').slice(0, 2).join('/');
  return file.split('/').slice(0, 2).join('/');
}

/** Self and inclusive time per function and self time per area, leaving out the first `skipUs` µs. */
export function summariseProfile(prof: CpuProfile, skipUs = 0): ProfileSummary {
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const labels = new Map(prof.nodes.map((n) => [n.id, label(n)]));
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const areas = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let clock = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    const dt = prof.timeDeltas[i] ?? 0;
    clock += dt;
    if (clock < skipUs) continue;
    const node = byId.get(prof.samples[i])!;
    total += dt;
    if (node.callFrame.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    const l = labels.get(node.id)!;
    self.set(l, (self.get(l) ?? 0) + dt);
    const a = area(node);
    areas.set(a, (areas.get(a) ?? 0) + dt);
    // a function counted once per sample, however often it recurs on the stack
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const ll = labels.get(id)!;
      if (seen.has(ll)) continue;
      seen.add(ll);
      inclusive.set(ll, (inclusive.get(ll) ?? 0) + dt);
    }
  }
  inclusive.delete('(root)');
  return { busyUs: total - idle, idleUs: idle, self, inclusive, areas };
}

/** The `top` largest rows of `m` (optionally only those containing `filter`), as "  12.3%  label" lines. */
export function topRows(m: Map<string, number>, busyUs: number, top: number, filter?: string): string[] {
  return [...m.entries()]
    .filter(([l]) => !filter || l.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([l, us]) => `${((100 * us) / busyUs).toFixed(1).padStart(6)}%  ${l}`);
}

/** The summary as printed by the command line. */
export function describeProfile(s: ProfileSummary, top: number, filter?: string): string[] {
  const head = (title: string) =>
    `\n${title} (share of ${(s.busyUs / 1e6).toFixed(2)} s busy; idle ${(s.idleUs / 1e6).toFixed(2)} s)`;
  return [
    head('self time by function'),
    ...topRows(s.self, s.busyUs, top, filter),
    head('total (inclusive) time by function'),
    ...topRows(s.inclusive, s.busyUs, top, filter),
    head('self time by area'),
    ...topRows(s.areas, s.busyUs, Math.min(top, 25), filter),
  ];
}

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children?: HeapNode[];
}
/** A sampling heap profile (HeapProfiler.stopSampling; bench/profile-hook.mjs with PROFILE_HEAP=1). */
export interface HeapProfile {
  head: HeapNode;
}

/**
 * Bytes allocated per function (the function that allocated, by sampled size),
 * and their total. With the collected objects included in the sampling (as
 * profile-hook.mjs asks), this is allocation, not what stayed alive.
 */
export function summariseHeapProfile(prof: HeapProfile): { total: number; byFunction: Map<string, number> } {
  const byFunction = new Map<string, number>();
  let total = 0;
  const stack: HeapNode[] = [prof.head];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.selfSize) {
      const l = label(n as unknown as ProfileNode);
      byFunction.set(l, (byFunction.get(l) ?? 0) + n.selfSize);
      total += n.selfSize;
    }
    for (const c of n.children ?? []) stack.push(c);
  }
  return { total, byFunction };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const skipArg = args.find((a) => a.startsWith('--skip='));
  /** seconds at the start of the profile to leave out (module loading, warm-up) */
  const skipUs = skipArg ? Number(skipArg.slice('--skip='.length)) * 1e6 : 0;
  const [file, topArg, filter] = args.filter((a) => !a.startsWith('--'));
  if (!file) {
    console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top] [filter] [--skip=seconds]');
    process.exit(2);
  }
  const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  for (const line of describeProfile(summariseProfile(prof, skipUs), Number(topArg ?? 40), filter)) console.log(line);
}
