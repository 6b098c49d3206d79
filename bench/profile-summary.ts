/**
 * Summarise a V8 .cpuprofile (from `npm run bench -- --cpu-prof`):
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [top=40] [filter] [--skip=seconds]
 * Prints self time per function and inclusive time per function, both as a
 * share of the profile's samples (idle excluded from the denominator).
 * With a filter (substring of function name or file), only matching rows are shown.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const skipArg = args.find((a) => a.startsWith('--skip='));
/** seconds at the start of the profile to leave out (module loading, warm-up) */
const skipUs = skipArg ? Number(skipArg.slice('--skip='.length)) * 1e6 : 0;
const [file, topArg, filter] = args.filter((a) => !a.startsWith('--'));
if (!file) {
  console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top] [filter]');
  process.exit(2);
}
const top = Number(topArg ?? 40);
const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const root = process.cwd();
function label(n: ProfileNode): string {
  const cf = n.callFrame;
  let url = cf.url.replace(/^file:\/\//, '');
  if (url.startsWith(root)) url = path.relative(root, url);
  url = url.replace(/^.*node_modules\//, 'nm/');
  return `${cf.functionName || '(anonymous)'} ${url ? `${url}:${cf.lineNumber + 1}` : ''}`.trim();
}

const selfUs = new Map<string, number>();
const inclUs = new Map<string, number>();
let total = 0;
let idle = 0;
let clock = 0;
for (let i = 0; i < prof.samples.length; i++) {
  const dt = prof.timeDeltas[i] ?? 0;
  clock += dt;
  if (clock < skipUs) continue;
  const node = byId.get(prof.samples[i])!;
  const name = node.callFrame.functionName;
  total += dt;
  if (name === '(idle)' || name === '(program)') {
    if (name === '(idle)') idle += dt;
  }
  const l = label(node);
  selfUs.set(l, (selfUs.get(l) ?? 0) + dt);
  const seen = new Set<string>();
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    const ll = label(byId.get(id)!);
    if (seen.has(ll)) continue;
    seen.add(ll);
    inclUs.set(ll, (inclUs.get(ll) ?? 0) + dt);
  }
}
const busy = total - idle;
const show = (title: string, m: Map<string, number>) => {
  console.log(`\n${title} (share of ${(busy / 1e6).toFixed(2)} s busy; idle ${(idle / 1e6).toFixed(2)} s)`);
  const rows = [...m.entries()]
    .filter(([l]) => !filter || l.includes(filter))
    .filter(([l]) => !l.startsWith('(idle)') && !l.startsWith('(root)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top);
  for (const [l, us] of rows) console.log(`${((100 * us) / busy).toFixed(1).padStart(6)}%  ${l}`);
};
show('self time', selfUs);
show('inclusive time', inclUs);
