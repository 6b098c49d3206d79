/**
 * Reading an import sheet row by row: CSV (csv-parse) or XLSX (exceljs, its
 * streaming reader), chosen by the file's extension. The first row holds the
 * column names; each further row is answered as {row, values}, `row` being
 * the sheet's row number (the header is row 1) and `values` the cells as
 * text (an XLSX date cell as its ISO 8601 instant, a number or boolean as its
 * text), empty cells left out.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'csv-parse';
import type ExcelJS from 'exceljs';

export interface SheetRow {
  row: number;
  values: Record<string, string>;
}

export function sheetFormat(file: string): 'csv' | 'xlsx' {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.xlsx') return 'xlsx';
  throw new Error(`${file}: the sheet must be a .csv or .xlsx file`);
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') {
    const o = v as { text?: unknown; result?: unknown; richText?: { text: string }[]; hyperlink?: string };
    if (Array.isArray(o.richText)) return o.richText.map((r) => r.text).join('');
    if (o.text !== undefined) return cellText(o.text);
    if (o.result !== undefined) return cellText(o.result);
    if (o.hyperlink !== undefined) return o.hyperlink;
    return '';
  }
  // what is left is a primitive: a cell holds no function
  const primitive = v as string | number | boolean | bigint | symbol;
  return String(primitive);
}

function toValues(header: string[], cells: unknown[]): Record<string, string> {
  const values: Record<string, string> = {};
  header.forEach((name, i) => {
    const text = cellText(cells[i]).trim();
    if (name && text !== '') values[name] = text;
  });
  return values;
}

async function* csvRows(file: string): AsyncGenerator<SheetRow | string[]> {
  const parser = fs.createReadStream(file).pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true }));
  let header: string[] | undefined;
  let row = 1;
  for await (const cells of parser as AsyncIterable<string[]>) {
    if (!header) {
      header = cells.map((c) => c.trim());
      yield header;
      continue;
    }
    row++;
    yield { row, values: toValues(header, cells) };
  }
}

async function* xlsxRows(file: string): AsyncGenerator<SheetRow | string[]> {
  // loaded only when a sheet is XLSX: exceljs and its zip libraries take about a second to load, which every
  // process that registers the import (each CLI command, each runtime start) paid before
  const { default: excel } = await import('exceljs');
  const reader = new excel.stream.xlsx.WorkbookReader(file, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
  });
  // exceljs looks the worksheet's name up in the workbook part's model, which it has only once it has read
  // xl/workbook.xml: a valid file that stores that part after the worksheet (and its shared strings before
  // it), or a read whose zip stream reached that part late, failed with "Cannot read properties of undefined
  // (reading 'sheets')" (exceljs/exceljs#962). Its name is not needed here; an empty model until then lets
  // the rows be read
  const parts = reader as unknown as { model?: object };
  parts.model ??= {};
  for await (const sheet of reader) {
    let header: string[] | undefined;
    for await (const r of sheet as AsyncIterable<ExcelJS.Row>) {
      // row.values is 1-based: index 0 is empty
      const cells = (Array.isArray(r.values) ? r.values : []).slice(1);
      if (!header) {
        header = cells.map((c) => cellText(c).trim());
        yield header;
        continue;
      }
      const values = toValues(header, cells);
      if (Object.keys(values).length) yield { row: r.number, values };
    }
    return; // the first worksheet only
  }
}

/** The header (first item) and then every row of the sheet, streamed. */
export function readSheet(file: string): AsyncGenerator<SheetRow | string[]> {
  return sheetFormat(file) === 'csv' ? csvRows(file) : xlsxRows(file);
}
