/**
 * The documentation's references point into the repository:
 * every relative link of README.md, docs/*.md and the class folders'
 * README.md files names a file of the repository (and a heading of it, for a
 * `#fragment`), and no prose names a path outside it (`../shared/...`, an
 * absolute path of some machine). Code blocks are left out: their relative
 * imports are relative to the file they show, not to the document. The
 * README, a quick start and a page of concepts, links every page of docs/ and
 * every class README, so none of them is a page nobody finds.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { projectRoot } from '../../runtime/config';

const ROOT = projectRoot();

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** the text outside fenced code blocks */
function prose(text: string): string {
  return text.replace(/^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?^[ \t]*\1[^\n]*$/gm, '');
}

function anchors(text: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of prose(text).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Problems of one markdown file's references, as `file: target: why`. */
export function referenceProblems(file: string, text: string, root: string): string[] {
  const problems: string[] = [];
  const rel = path.relative(root, file);
  const body = prose(text);
  const inside = (p: string) => p === root || p.startsWith(root + path.sep);
  const targets = [
    ...body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g),
    ...body.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm),
  ].map((m) => m[1]!);
  for (const target of targets) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    const [link, fragment] = target.split('#') as [string, string | undefined];
    if (!link) {
      if (fragment && !anchors(text).has(fragment.toLowerCase())) problems.push(`${rel}: ${target}: no such heading`);
      continue;
    }
    const resolved = path.resolve(path.dirname(file), decodeURI(link));
    if (link.startsWith('/')) problems.push(`${rel}: ${target}: an absolute path (link relative to the file)`);
    else if (!inside(resolved)) problems.push(`${rel}: ${target}: outside the repository`);
    else if (!fs.existsSync(resolved)) problems.push(`${rel}: ${target}: no such file`);
    else if (
      fragment &&
      resolved.endsWith('.md') &&
      !anchors(fs.readFileSync(resolved, 'utf8')).has(fragment.toLowerCase())
    ) {
      problems.push(`${rel}: ${target}: no such heading`);
    }
  }
  // paths in the prose (inline code or plain text) that leave the repository
  for (const m of body.matchAll(/(?<![\w./-])((?:\.\.\/)+[\w./-]*[\w/-])/g)) {
    const resolved = path.resolve(path.dirname(file), m[1]!);
    if (!inside(resolved)) problems.push(`${rel}: ${m[1]}: a path outside the repository`);
    else if (!fs.existsSync(resolved)) problems.push(`${rel}: ${m[1]}: no such file`);
  }
  for (const m of body.matchAll(/(?<![\w.-])(\/(?:work|home|Users|root|tmp|opt|srv|mnt)\/[\w./-]*[\w/-])/g)) {
    problems.push(`${rel}: ${m[1]}: an absolute path of a machine`);
  }
  return problems;
}

function documents(): string[] {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(ROOT, 'docs', f));
  const classes = fs
    .readdirSync(path.join(ROOT, 'classes'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => path.join(ROOT, 'classes', d.name, 'README.md'))
    .filter((f) => fs.existsSync(f));
  return [path.join(ROOT, 'README.md'), ...docs, ...classes];
}

describe("the documentation's references", () => {
  it('point at files (and headings) inside the repository', () => {
    const files = documents();
    expect(files.length).toBeGreaterThan(5);
    const problems = files.flatMap((f) => referenceProblems(f, fs.readFileSync(f, 'utf8'), ROOT));
    expect(problems).toEqual([]);
  });

  it('the README links into the repository at all (the check has links to look at)', () => {
    const text = prose(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    expect([...text.matchAll(/\]\((?!https?:)[^)]+\)/g)].length).toBeGreaterThan(2);
  });

  it('the README links every page of docs/ and every class README', () => {
    const text = prose(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    const linked = new Set(
      [...text.matchAll(/\]\(\s*<?([^)\s>#]+)/g)].map((m) => path.resolve(ROOT, decodeURI(m[1]!))),
    );
    const pages = documents().filter((f) => f !== path.join(ROOT, 'README.md'));
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.filter((f) => !linked.has(f)).map((f) => path.relative(ROOT, f))).toEqual([]);
  });

  it('refuses a link to a missing file or heading, a path outside the repository, a machine path; not code blocks', () => {
    const file = path.join(ROOT, 'docs', 'x.md');
    const text = [
      '# Title',
      'See [the spec](../../shared/spec.md), [gone](missing.md), [README](../README.md#no-such-heading),',
      '[ok](../README.md#quick-start), [self](#title), [nowhere](#nowhere), [web](https://example.com/x), `../shared/GUIDE.md` section 2',
      'and /work/main/README.md.',
      '```ts',
      "import { x } from '../../../runtime';",
      '```',
    ].join('\n');
    expect(referenceProblems(file, text, ROOT)).toEqual([
      'docs/x.md: ../../shared/spec.md: outside the repository',
      'docs/x.md: missing.md: no such file',
      'docs/x.md: ../README.md#no-such-heading: no such heading',
      'docs/x.md: #nowhere: no such heading',
      'docs/x.md: ../../shared/spec.md: a path outside the repository',
      'docs/x.md: ../shared/GUIDE.md: no such file',
      'docs/x.md: /work/main/README.md: an absolute path of a machine',
    ]);
  });
});
