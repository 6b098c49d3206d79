/**
 * What an import sheet is: its columns with their types, the key a row is
 * found by (for duplicates inside the file), the references a row needs, and
 * how a checked row is written through the classes' own operations.
 */
import type { SystemCall } from '../seed';
import type { ImportMapping } from './mapping';

export type ColumnType = 'string' | 'date' | 'boolean' | 'list' | 'number';

export interface Column {
  name: string;
  type: ColumnType;
  required?: boolean;
  /** the values allowed (compared as given) */
  values?: readonly string[];
}

/** a parsed row: dates as ISO 8601 instants, lists as string[], numbers and booleans as such */
export type Row = Record<string, string | string[] | number | boolean | undefined>;

export interface RowProblem {
  column: string;
  value: string;
  reason: string;
}

export type RowResult = 'created' | 'updated' | 'unchanged';

export interface ImportContext {
  call: SystemCall;
  mapping: ImportMapping;
  /** whether a record exists (answers are remembered for the run) */
  exists(classId: string, method: string, instanceId: string, body?: unknown): Promise<boolean>;
}

export interface SheetDefinition {
  sheet: string;
  columns: Column[];
  /** the record a row stands for; two rows with the same key are duplicates */
  key(row: Row): string;
  /** references and rules that can be checked without writing (dry run and real run alike) */
  check(row: Row, ctx: ImportContext): Promise<RowProblem[]>;
  /** what the row does to its record; with `write`, does it through the classes' operations */
  apply(row: Row, ctx: ImportContext, write: boolean): Promise<RowResult>;
  /** read the file this many times (default 1), each pass after the one before is done */
  passes?: number;
  /** the pass (1..passes) a row belongs to, from its cells as text (default 1) */
  passOf?(values: Record<string, string>): number;
}
