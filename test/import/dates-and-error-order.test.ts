/**
 * Date cells of the migration import (acceptance findings): an impossible
 * calendar date or time is refused as 'not a calendar date' instead of being
 * rolled over to the next month by Date.parse (2026-02-30 had become
 * 2026-03-02), in a dry run and a real run, CSV and XLSX alike; and the error
 * file is in row order (a row refused by a reference check, answered later,
 * used to come after the bad cells of rows below it) and ends with a newline.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import ExcelJS from 'exceljs';
import { parseCell, runImport } from '../../classes/_platform/import/run';
import { SHEETS } from '../../classes/_platform/import/sheets';
import { projectRoot } from '../../runtime/config';
import { type TestRuntime } from '../support/harness';
import { startSeededRuntime } from './support';

const root = projectRoot();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'import-dates-'));
const DATE = { name: 'startDate', type: 'date' } as const;
const OFFERS_HEADER = 'id,partnerId,status,offerType,startDate,endDate,title';

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('a date cell', () => {
  test.each([
    ['2026-02-30', 'February has no 30th'],
    ['2026-04-31', 'April has 30 days'],
    ['2026-02-29', '2026 is not a leap year'],
    ['2026-02-29T10:00:00Z', 'a date-time on a day that does not exist'],
    ['1900-02-29', 'a century not divisible by 400 is not a leap year'],
    ['2026-06-31T08:00:00+04:00', 'June has 30 days, whatever the offset'],
    ['2026-01-01T24:00:00Z', 'hours run 0-23 (Date.parse took 24:00 as the next midnight)'],
  ])('%s is not a calendar date (%s)', (text) => {
    expect(parseCell(DATE, text)).toEqual({ reason: 'not a calendar date' });
  });

  test.each([
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-01-32',
    '2026-01-01T10:60:00Z',
    '2026-01-01T10:00:60Z',
    '2026-03-01T01:30:00+02:60',
    '31/01/2026',
    'yesterday',
  ])('%s, which Date.parse cannot read at all, is still not an ISO 8601 date', (text) => {
    expect(parseCell(DATE, text)).toEqual({ reason: 'not an ISO 8601 date' });
  });

  test.each([
    ['2028-02-29', '2028-02-29T00:00:00.000Z'],
    ['2000-02-29', '2000-02-29T00:00:00.000Z'],
    ['2026-04-30', '2026-04-30T00:00:00.000Z'],
    ['2026-12-31T23:59:59Z', '2026-12-31T23:59:59.000Z'],
    // the calendar date is checked as written; the offset then moves the instant to the day before
    ['2026-03-01T01:30:00+02:00', '2026-02-28T23:30:00.000Z'],
    ['2028-02-29T23:30:00-01:00', '2028-03-01T00:30:00.000Z'],
    ['2026-03-01T01:30:00.250+0200', '2026-02-28T23:30:00.250Z'],
  ])('%s is read as %s', (text, iso) => {
    expect(parseCell(DATE, text)).toEqual({ value: iso });
  });
});

describe('importing dates and the error file', () => {
  let t: TestRuntime;
  const call = (classId: string, method: string, instanceId: string | undefined, body: unknown) =>
    t.rt.call(classId, method, instanceId, body);
  const offer = async (id: string) =>
    ((await call('Offer', 'getOffer', id, {})).body as { offer: Record<string, unknown> }).offer;

  beforeAll(async () => {
    t = await startSeededRuntime();
  });
  afterAll(() => t.stop());

  test('impossible dates are refused in the dry run and the real run; leap days and offsets import', async () => {
    const file = path.join(tmp, 'offers-dates.csv');
    fs.writeFileSync(
      file,
      [
        OFFERS_HEADER,
        'offer-feb-30,partner-sunrise,published,discount,2026-02-30,2026-06-30,Feb 30',
        'offer-apr-31,partner-sunrise,published,discount,2026-01-01,2026-04-31,Apr 31',
        'offer-feb-29,partner-sunrise,published,discount,2026-02-29,2026-06-30,Feb 29 2026',
        'offer-feb-29-time,partner-sunrise,published,discount,2026-02-29T10:00:00Z,2026-06-30,Feb 29 2026 10:00',
        'offer-leap,partner-sunrise,published,discount,2028-02-29,2028-06-30,Feb 29 2028',
        'offer-offset,partner-sunrise,published,discount,2026-03-01T01:30:00+02:00,2026-06-30,Offset',
      ].join('\n') + '\n',
    );
    const expected =
      [
        'row,column,value,reason',
        '2,startDate,2026-02-30,not a calendar date',
        '3,endDate,2026-04-31,not a calendar date',
        '4,startDate,2026-02-29,not a calendar date',
        '5,startDate,2026-02-29T10:00:00Z,not a calendar date',
      ].join('\n') + '\n';

    const dryErrors = path.join(tmp, 'dates-dry.errors.csv');
    expect(await runImport(SHEETS.offers!, file, call, { dryRun: true, errorsFile: dryErrors })).toMatchObject({
      rows: 6,
      created: 2,
      failed: 4,
      dryRun: true,
    });
    expect(fs.readFileSync(dryErrors, 'utf8')).toBe(expected);

    const errorsFile = path.join(tmp, 'dates.errors.csv');
    expect(await runImport(SHEETS.offers!, file, call, { errorsFile })).toMatchObject({
      rows: 6,
      created: 2,
      failed: 4,
    });
    expect(fs.readFileSync(errorsFile, 'utf8')).toBe(expected);
    for (const id of ['offer-feb-30', 'offer-apr-31', 'offer-feb-29', 'offer-feb-29-time']) {
      await expect(call('Offer', 'getOffer', id, {})).rejects.toMatchObject({ code: 'UNKNOWN_INSTANCE' });
    }
    expect(await offer('offer-leap')).toMatchObject({ startDate: '2028-02-29T00:00:00.000Z' });
    expect(await offer('offer-offset')).toMatchObject({ startDate: '2026-02-28T23:30:00.000Z' });
  });

  test('an XLSX date cell imports; an impossible date typed as text in one is refused', async () => {
    const file = path.join(tmp, 'offers-dates.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Offers');
    ws.addRow(OFFERS_HEADER.split(','));
    ws.addRow([
      'offer-xlsx-leap',
      'partner-sunrise',
      'published',
      'discount',
      new Date('2028-02-29T00:00:00Z'),
      new Date('2028-06-30T00:00:00Z'),
      'XLSX leap day',
    ]);
    ws.addRow([
      'offer-xlsx-feb-30',
      'partner-sunrise',
      'published',
      'discount',
      '2026-02-30',
      new Date('2026-06-30T00:00:00Z'),
      'XLSX Feb 30',
    ]);
    await wb.xlsx.writeFile(file);
    const errorsFile = path.join(tmp, 'xlsx-dates.errors.csv');
    expect(await runImport(SHEETS.offers!, file, call, { errorsFile })).toMatchObject({
      rows: 2,
      created: 1,
      failed: 1,
    });
    expect(fs.readFileSync(errorsFile, 'utf8')).toBe(
      'row,column,value,reason\n3,startDate,2026-02-30,not a calendar date\n',
    );
    expect(await offer('offer-xlsx-leap')).toMatchObject({
      startDate: '2028-02-29T00:00:00.000Z',
      endDate: '2028-06-30T00:00:00.000Z',
    });
  });

  test("a partner's contract dates must be calendar dates too", async () => {
    const file = path.join(tmp, 'partners-contract.csv');
    const header = fs.readFileSync(path.join(root, 'examples/import/partners.csv'), 'utf8').split('\n')[0];
    fs.writeFileSync(
      file,
      `${header}\npartner-feb-30,Feb LLC,Feb,,,,,1 Road,,,AE,Dubai,,,feb@feb.example,+971500000997,"CON-30, 2026-02-30, 2027-02-28"\n`,
    );
    const errorsFile = path.join(tmp, 'partners-contract.errors.csv');
    expect(await runImport(SHEETS.partners!, file, call, { dryRun: true, errorsFile })).toMatchObject({
      rows: 1,
      failed: 1,
    });
    expect(fs.readFileSync(errorsFile, 'utf8')).toBe(
      'row,column,value,reason\n2,contracts,"CON-30,2026-02-30,2027-02-28","not ""contract id, start date, end date"" (ISO 8601 dates)"\n',
    );
  });

  test('the error file lists refused rows in row order, a reference refusal before the bad cells of later rows, and ends with a newline', async () => {
    const file = path.join(tmp, 'offers-order.csv');
    fs.writeFileSync(
      file,
      [
        OFFERS_HEADER,
        'offer-order-1,partner-nowhere-1,published,discount,2026-01-01,2026-06-30,No partner',
        'offer-order-2,partner-sunrise,published,discount,31/01/2026,2026-06-30,Bad date',
        'offer-order-3,partner-nowhere-3,published,discount,2026-01-01,2026-06-30,No partner either',
        'offer-order-4,partner-sunrise,live,discount,2026-01-01,2026-04-31,Bad status and end',
        'offer-order-5,partner-sunrise,published,discount,2026-01-01,2026-06-30,Fine',
        'offer-order-6,partner-nowhere-6,published,discount,2026-01-01,2026-06-30,No partner again',
        'offer-order-7,partner-sunrise,published,discount,2026-02-30,2026-06-30,Feb 30',
      ].join('\n') + '\n',
    );
    const expected =
      [
        'row,column,value,reason',
        '2,partnerId,partner-nowhere-1,no partner with this id',
        '3,startDate,31/01/2026,not an ISO 8601 date',
        '4,partnerId,partner-nowhere-3,no partner with this id',
        '5,status,live,"not one of published, unpublished, expired"',
        '5,endDate,2026-04-31,not a calendar date',
        '7,partnerId,partner-nowhere-6,no partner with this id',
        '8,startDate,2026-02-30,not a calendar date',
      ].join('\n') + '\n';
    for (const dryRun of [true, false]) {
      const errorsFile = path.join(tmp, `order-${dryRun ? 'dry' : 'real'}.errors.csv`);
      expect(await runImport(SHEETS.offers!, file, call, { dryRun, errorsFile })).toMatchObject({
        rows: 7,
        created: 1,
        failed: 6,
      });
      expect(fs.readFileSync(errorsFile, 'utf8')).toBe(expected);
    }
  });
});
