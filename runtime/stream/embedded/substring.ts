/**
 * Substring search columns: the embedded store's answer to a `$regex` that is
 * a plain literal (`{ $regex: escapeRegex(term), $options: 'i' }`, the shape
 * every listing's `search` takes).
 *
 * Testing a regular expression on 100 000 documents reads a field of each,
 * and the documents lie scattered across a large heap: the scan waits on
 * memory far more than it computes. A column keeps the string values of one
 * indexed field packed into a few long strings (chunks of CHUNK documents,
 * values separated by NUL), so a search is a `String.prototype.indexOf` over
 * contiguous memory, and a hit's offset maps back to its document through the
 * chunk's table of value starts.
 *
 * Exactness: for a string value, a literal regular expression matches exactly
 * when the value contains the literal, compared code unit by code unit after
 * the case folding of the expression's flags. Without `i` that is the value
 * itself; with `i` (and without `u` or `v`) it is ECMAScript's Canonicalize
 * (ECMA-262 22.2.2.7.3, the non-Unicode case: a code unit maps to its
 * toUpperCase when that is one code unit, and a non-ASCII one never maps to
 * ASCII), which `foldCase` applies to both sides. Folding maps each code unit
 * to one code unit, so offsets in the folded text are offsets in the values.
 * Values the column does not hold as strings are decided elsewhere:
 *
 *  - a missing value, null, a number or a boolean never matches a `$regex`;
 *  - an array, an object, or a path with an array along it is `irregular`:
 *    always a candidate, and the store tests the filter on it.
 *
 * So the candidates are exactly the string values containing the literal plus
 * the irregular documents; the store still tests the whole filter on them.
 *
 * Maintenance is lazy, like the sorted views': a write only marks the chunk of
 * a document whose value changed, and the next search rebuilds that chunk.
 * New documents go to the last chunk, so a column lists documents in the
 * collection's order.
 */
import type { Entry } from './entry';
import { COMPLEX, resolvePath, type Doc } from './values';

/** Documents per chunk: small enough to rebuild on a search, large enough for indexOf to run long. */
const CHUNK = 1024;

/** Separates values in a chunk's text; a literal holding it is not searched through a column. */
const SEPARATOR = '\u0000';

// ---------------------------------------------------------------- literals

/** Characters with a meaning in a pattern, literal only when escaped. */
const SYNTAX = new Set('^$\\.*+?()[]{}|');
/** Characters whose escape is the character itself (the ones `escapeRegex` writes, and `/` as RegExp#source writes it). */
const IDENTITY_ESCAPES = new Set('^$\\.*+?()[]{}|/-');

export interface Literal {
  /** the text the expression matches, as written (not folded) */
  text: string;
  ignoreCase: boolean;
}

/**
 * The literal text a regular expression matches, or null when its pattern
 * uses anything but plain characters and escaped syntax characters, is empty,
 * or its flags go beyond i, m, s and d (m and s change nothing without anchors
 * and dots; u and v change both the syntax and the case folding; g and y are
 * stateful).
 */
export function regexLiteral(re: RegExp): Literal | null {
  if (!/^[dims]*$/.test(re.flags)) return null;
  const source = re.source;
  let text = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1];
      if (next === undefined || !IDENTITY_ESCAPES.has(next)) return null;
      text += next;
      i++;
    } else if (SYNTAX.has(c)) {
      return null;
    } else {
      text += c;
    }
  }
  if (text.length === 0 || text.includes(SEPARATOR)) return null;
  return { text, ignoreCase: re.ignoreCase };
}

// ---------------------------------------------------------------- case folding

let FOLD: Uint16Array | undefined;

/** ECMAScript's Canonicalize (non-Unicode, ignoreCase) of every UTF-16 code unit, built on first use. */
function foldTable(): Uint16Array {
  if (FOLD) return FOLD;
  const table = new Uint16Array(0x10000);
  for (let c = 0; c < 0x10000; c++) {
    const upper = String.fromCharCode(c).toUpperCase();
    let folded = c;
    if (upper.length === 1) {
      const cu = upper.charCodeAt(0);
      if (!(c >= 128 && cu < 128)) folded = cu;
    }
    table[c] = folded;
  }
  return (FOLD = table);
}

/** only code units below 0x80 */
const ASCII = /^[^\u0080-\uffff]*$/;

/** The fold of one ASCII code unit (upper case letters); other code units unchanged. */
function foldAscii(code: number): number {
  return code >= 97 && code <= 122 ? code - 32 : code;
}

/**
 * `text` with every code unit replaced by its Canonicalize: two strings match
 * under a non-Unicode `i` flag exactly where their folds are equal. Same length
 * as `text`.
 */
export function foldCase(text: string): string {
  // toUpperCase is Canonicalize on ASCII, and much faster than the table
  if (ASCII.test(text)) return text.toUpperCase();
  const table = foldTable();
  const parts: string[] = [];
  const codes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    codes.push(table[text.charCodeAt(i)]);
    if (codes.length === 4096) {
      parts.push(String.fromCharCode(...codes));
      codes.length = 0;
    }
  }
  parts.push(String.fromCharCode(...codes));
  return parts.join('');
}

// ---------------------------------------------------------------- column

interface Chunk {
  /** the documents placed in this chunk, in collection order (removed ones until the next rebuild) */
  entries: Entry[];
  /** set when a document of the chunk changed its value or left; the text is rebuilt on the next search */
  stale: boolean;
  /** removed documents still in `entries` */
  removed: number;
  /** the string values of `listed`, joined by SEPARATOR (null until built) */
  text: string | null;
  /** foldCase(text), made by the first case-insensitive search */
  folded: string | null;
  /** the documents whose values are in `text`, in order */
  listed: Entry[];
  /** where each listed document's value starts in `text` */
  starts: Int32Array;
  /** how often each ASCII code unit occurs in the folded text (upper case for letters) */
  counts: Uint32Array;
}

const IRREGULAR: unique symbol = Symbol('irregular');

/** The column's own kind of value for a document: a string, nothing a regex matches (null), or irregular. */
function cellOf(doc: Doc, steps: string[]): string | null | typeof IRREGULAR {
  const value = steps.length === 1 ? doc[steps[0]] : resolvePath(doc, steps);
  if (typeof value === 'string') return value;
  if (value === COMPLEX || (typeof value === 'object' && value !== null)) return IRREGULAR;
  return null;
}

export interface SearchStats {
  /** chunks rebuilt for this search */
  rebuilt: number;
}

/**
 * The values of one field for substring search (see the module comment).
 * `slot` is where each entry keeps its chunk (`entry.cells[slot]`), so a write
 * finds the chunk to mark without a search.
 */
export class SubstringColumn {
  private chunks: Chunk[] = [];
  /** the sum of the chunks' counts */
  private readonly counts = new Float64Array(128);
  /** documents whose value the column does not hold as a string and a regex might match */
  readonly irregular = new Set<Entry>();

  constructor(
    readonly slot: number,
    private readonly steps: string[],
    all: Iterable<Entry>,
  ) {
    for (const entry of all) this.added(entry);
  }

  added(entry: Entry): void {
    let last = this.chunks[this.chunks.length - 1];
    if (!last || last.entries.length >= CHUNK) {
      last = {
        entries: [],
        stale: true,
        removed: 0,
        text: null,
        folded: null,
        listed: [],
        starts: new Int32Array(0),
        counts: new Uint32Array(128),
      };
      this.chunks.push(last);
    }
    last.entries.push(entry);
    last.stale = true;
    (entry.cells ??= [])[this.slot] = last;
    if (cellOf(entry.doc, this.steps) === IRREGULAR) this.irregular.add(entry);
  }

  /** `entry.doc` replaced `before` */
  changed(entry: Entry, before: Doc): void {
    const was = cellOf(before, this.steps);
    const is = cellOf(entry.doc, this.steps);
    if (was === is) return;
    if (is === IRREGULAR) this.irregular.add(entry);
    else this.irregular.delete(entry);
    if (typeof was === 'string' || typeof is === 'string') (entry.cells![this.slot] as Chunk).stale = true;
  }

  /** after `entry.removed` was set */
  removed(entry: Entry): void {
    this.irregular.delete(entry);
    const chunk = entry.cells?.[this.slot] as Chunk | undefined;
    if (!chunk) return;
    chunk.stale = true;
    // drop removed documents at once when they are half the chunk, so they are not kept alive
    if (++chunk.removed > chunk.entries.length / 2) this.compact(chunk);
  }

  clear(): void {
    this.chunks = [];
    this.counts.fill(0);
    this.irregular.clear();
  }

  /**
   * The documents whose string value contains `literal` (after case folding
   * when `ignoreCase`), in collection order, followed by the irregular ones.
   */
  search(literal: Literal, stats?: SearchStats): Entry[] {
    const needle = literal.ignoreCase ? foldCase(literal.text) : literal.text;
    const found: Entry[] = [];
    let emptied = false;
    for (const chunk of this.chunks) {
      if (chunk.stale) {
        this.rebuild(chunk);
        if (stats) stats.rebuilt++;
        if (chunk.entries.length === 0) emptied = true;
      }
    }
    // indexOf looks for the needle's first code unit and compares from there: when that one is
    // common (the E of a staff id among e-mail addresses) it stops everywhere. So the search
    // runs from the needle's rarest code unit (`anchor`) and checks the whole needle at each stop.
    const anchor = this.rarest(needle);
    const tail = anchor === 0 ? needle : needle.slice(anchor);
    for (const chunk of this.chunks) {
      const text = literal.ignoreCase ? (chunk.folded ??= foldCase(chunk.text as string)) : (chunk.text as string);
      const { starts, listed } = chunk;
      let at = text.indexOf(tail, anchor);
      while (at !== -1) {
        const start = at - anchor;
        if (anchor > 0 && !text.startsWith(needle, start)) {
          at = text.indexOf(tail, at + 1);
          continue;
        }
        // the listed value holding offset `start`: the last start at or before it
        let lo = 0;
        let hi = starts.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >>> 1;
          if (starts[mid] <= start) lo = mid;
          else hi = mid - 1;
        }
        found.push(listed[lo]);
        // next search from the following value: one hit per document
        if (lo + 1 >= starts.length) break;
        at = text.indexOf(tail, starts[lo + 1] + anchor);
      }
    }
    if (emptied)
      this.chunks = this.chunks.filter(
        (chunk) => chunk.entries.length > 0 || chunk === this.chunks[this.chunks.length - 1],
      );
    for (const entry of this.irregular) found.push(entry);
    return found;
  }

  /** The position in `needle` of its least frequent code unit in the column (the first, on ties; non-ASCII counts as rare). */
  private rarest(needle: string): number {
    let best = 0;
    let fewest = Infinity;
    for (let i = 0; i < needle.length; i++) {
      const code = foldAscii(needle.charCodeAt(i));
      const count = code < 128 ? this.counts[code] : 0;
      if (count < fewest) {
        fewest = count;
        best = i;
      }
    }
    return best;
  }

  private compact(chunk: Chunk): void {
    chunk.entries = chunk.entries.filter((entry) => !entry.removed);
    chunk.removed = 0;
  }

  private rebuild(chunk: Chunk): void {
    if (chunk.removed > 0) this.compact(chunk);
    const listed: Entry[] = [];
    const values: string[] = [];
    const starts: number[] = [];
    let offset = 0;
    for (const entry of chunk.entries) {
      const value = cellOf(entry.doc, this.steps);
      if (typeof value !== 'string') continue;
      listed.push(entry);
      values.push(value);
      starts.push(offset);
      offset += value.length + 1;
    }
    chunk.listed = listed;
    chunk.starts = Int32Array.from(starts);
    chunk.text = values.join(SEPARATOR);
    const counts = new Uint32Array(128);
    const text = chunk.text;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      // the folded unit: ASCII letters count as upper case
      if (code < 128) counts[code >= 97 && code <= 122 ? code - 32 : code]++;
    }
    for (let c = 0; c < 128; c++) this.counts[c] += counts[c] - chunk.counts[c];
    chunk.counts = counts;
    chunk.folded = null;
    chunk.stale = false;
  }
}
