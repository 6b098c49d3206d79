/**
 * An XLSX file is a zip whose parts may come in any order. exceljs' streaming
 * reader failed on a valid file that stores its shared strings before the
 * worksheet and the workbook part after it ("Cannot read properties of
 * undefined (reading 'sheets')", exceljs/exceljs#962), and so did any read
 * whose zip stream happened to reach the workbook part late. The
 * import's reader (classes/_platform/import/rows.ts) reads such a file like
 * any other. The file is written by exceljs and its parts reordered with
 * JSZip: a real XLSX, not a stand-in.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { readSheet } from '../../classes/_platform/import/rows';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xlsx-parts-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function workbookFile(name: string, partsFirst: string[]): Promise<string> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('offer-categories');
  ws.addRow(['id', 'name', 'subcategories']);
  ws.addRow(['cat-1', 'Dining', 'Cafes, Fine dining']);
  ws.addRow(['cat-2', 'Travel', 'Hotels']);
  const written = await JSZip.loadAsync(Buffer.from(await wb.xlsx.writeBuffer()));
  const names = Object.keys(written.files).filter((n) => !written.files[n]!.dir);
  const reordered = new JSZip();
  for (const n of [...partsFirst, ...names.filter((n) => !partsFirst.includes(n))])
    reordered.file(n, await written.file(n)!.async('nodebuffer'));
  const file = path.join(tmp, name);
  fs.writeFileSync(file, await reordered.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
  return file;
}

async function read(file: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of readSheet(file)) out.push(item);
  return out;
}

const EXPECTED = [
  ['id', 'name', 'subcategories'],
  { row: 2, values: { id: 'cat-1', name: 'Dining', subcategories: 'Cafes, Fine dining' } },
  { row: 3, values: { id: 'cat-2', name: 'Travel', subcategories: 'Hotels' } },
];

test('a workbook whose worksheet comes after its shared strings and before its workbook part is read whole', async () => {
  const file = await workbookFile('strings-first.xlsx', ['xl/_rels/workbook.xml.rels', 'xl/sharedStrings.xml']);
  expect(await read(file)).toEqual(EXPECTED);
});

test('the parts in the order exceljs writes them, and the workbook part first, read the same', async () => {
  expect(await read(await workbookFile('as-written.xlsx', []))).toEqual(EXPECTED);
  expect(
    await read(
      await workbookFile('workbook-first.xlsx', [
        'xl/workbook.xml',
        'xl/_rels/workbook.xml.rels',
        'xl/sharedStrings.xml',
      ]),
    ),
  ).toEqual(EXPECTED);
});
