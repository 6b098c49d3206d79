/**
 * The embedded store's entry: what indexes, sorted views and substring columns
 * all hold. Apart from indexes.ts so that ordering.ts and substring.ts need not
 * import the module that imports them (no import cycle).
 */
import type { StoredDocument } from '../document-store';

/** A stored document and its position in the collection's insertion order. */
export interface Entry {
  doc: StoredDocument;
  seq: number;
  /** rank in each sorted view, by the view's slot (see SortedView) */
  ranks: number[];
  /** set when the document is deleted (views drop it at their next merge) */
  removed: boolean;
  /** its chunk in each substring column, by the column's slot (see SubstringColumn); made by the first column */
  cells?: unknown[];
}
