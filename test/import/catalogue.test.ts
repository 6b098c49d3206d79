/**
 * Importing the benefit catalogue's migration sheets (spec 2.9) over
 * a real runtime seeded with examples/seed.json: the shipped samples import
 * cleanly, a second run changes nothing, a dry run writes nothing and refuses
 * the same rows as the real run, and a refused row is in the error file with
 * its row, column, value and reason.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import { refusalProblems, runImport } from '../../classes/_platform/import/run';
import { SHEETS } from '../../classes/_platform/import/sheets';
import { projectRoot } from '../../runtime/config';
import { testEnv, type TestRuntime } from '../support/harness';
import { startSeededRuntime } from './support';

const root = projectRoot();
const sample = (name: string) => path.join(root, 'examples/import', name);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'import-test-'));

/** the error file's lines after its header */
const errorLines = (file: string) =>
  fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').slice(1) : [];

describe('importing the catalogue sheets', () => {
  let t: TestRuntime;
  const call = (classId: string, method: string, instanceId: string | undefined, body: unknown) =>
    t.rt.call(classId, method, instanceId, body);
  const run = (sheet: string, file: string, opts: { dryRun?: boolean; errorsFile?: string } = {}) =>
    runImport(SHEETS[sheet]!, file, call, {
      errorsFile: opts.errorsFile ?? path.join(tmp, `${sheet}-${Date.now()}.errors.csv`),
      ...opts,
    });

  beforeAll(async () => {
    t = await startSeededRuntime();
  });
  afterAll(() => t.stop());

  test('a dry run of the samples writes nothing and says what the import would create', async () => {
    const dry = await run('offer-categories', sample('offer-categories.csv'), { dryRun: true });
    expect(dry).toMatchObject({
      sheet: 'offer-categories',
      rows: 2,
      created: 2,
      updated: 0,
      unchanged: 0,
      failed: 0,
      dryRun: true,
    });
    await expect(call('BenefitCategory', 'getCategory', 'cat-dining', {})).rejects.toMatchObject({
      code: 'UNKNOWN_INSTANCE',
    });
  });

  test('the samples import cleanly on top of the example seed, and a second run changes nothing', async () => {
    const errorsFile = path.join(tmp, 'categories.errors.csv');
    const categories = await run('offer-categories', sample('offer-categories.csv'), { errorsFile });
    expect(categories).toMatchObject({ rows: 2, created: 2, updated: 0, unchanged: 0, failed: 0 });
    // a run without a failure leaves no error file
    expect(fs.existsSync(errorsFile)).toBe(false);
    const category = (await call('BenefitCategory', 'getCategory', 'cat-dining', {})).body as {
      category: Record<string, unknown>;
    };
    expect(category.category).toMatchObject({
      name: 'Dining',
      subcategories: ['Restaurants', 'Cafes'],
      keywords: ['food', 'dinner', 'lunch'],
      status: 'active',
    });

    const offers = await run('offers', sample('offers.csv'));
    expect(offers).toMatchObject({ rows: 2, created: 2, failed: 0 });
    const offer = (await call('Offer', 'getOffer', 'offer-sunrise-spa', {})).body as { offer: Record<string, unknown> };
    expect(offer.offer).toMatchObject({
      partnerId: 'partner-sunrise',
      status: 'unpublished',
      startDate: '2026-02-01T00:00:00.000Z',
      categoryIds: ['cat-wellness', 'cat-dining'],
      images: [],
    });
    const brunch = (await call('Offer', 'getOffer', 'offer-sunrise-brunch', {})).body as {
      offer: Record<string, unknown>;
    };
    expect(brunch.offer).toMatchObject({ status: 'published', images: ['https://sunrise.example/img/brunch.jpg'] });

    expect(await run('offer-categories', sample('offer-categories.csv'))).toMatchObject({
      rows: 2,
      created: 0,
      updated: 0,
      unchanged: 2,
      failed: 0,
    });
    expect(await run('offers', sample('offers.csv'))).toMatchObject({
      rows: 2,
      created: 0,
      updated: 0,
      unchanged: 2,
      failed: 0,
    });
  });

  test('a changed row updates its record through the class, status included', async () => {
    const file = path.join(tmp, 'offers-changed.csv');
    const lines = fs.readFileSync(sample('offers.csv'), 'utf8').trim().split('\n');
    fs.writeFileSync(
      file,
      `${[lines[0], lines[1]!.replace('Sunrise Friday brunch', 'Sunrise brunch every Friday').replace(',published,', ',unpublished,')].join('\n')}\n`,
    );
    expect(await run('offers', file, { dryRun: true })).toMatchObject({ rows: 1, updated: 1, failed: 0 });
    expect(
      ((await call('Offer', 'getOffer', 'offer-sunrise-brunch', {})).body as { offer: { title: string } }).offer.title,
    ).toBe('Sunrise Friday brunch');
    expect(await run('offers', file)).toMatchObject({ rows: 1, updated: 1, failed: 0 });
    const offer = (await call('Offer', 'getOffer', 'offer-sunrise-brunch', {})).body as {
      offer: Record<string, unknown>;
    };
    expect(offer.offer).toMatchObject({ title: 'Sunrise brunch every Friday', status: 'unpublished' });
  });

  test('bad rows land in the error file with row, column, value and reason; the dry run refuses the same rows and writes nothing', async () => {
    const file = path.join(tmp, 'offers-bad.csv');
    fs.writeFileSync(
      file,
      [
        'id,partnerId,status,offerType,startDate,endDate,title,categoryIds',
        'offer-ok,partner-sunrise,published,discount,2026-01-01,2026-06-30,Fine,cat-dining',
        'offer-bad-date,partner-sunrise,published,discount,31/01/2026,2026-06-30,Bad date,',
        'offer-no-partner,partner-nowhere,published,discount,2026-01-01,2026-06-30,No partner,',
        'offer-bad-status,partner-sunrise,live,discount,2026-01-01,2026-06-30,Bad status,',
        'offer-no-category,partner-sunrise,published,discount,2026-01-01,2026-06-30,No category,"cat-dining, cat-nowhere"',
        'offer-ok,partner-sunrise,published,discount,2026-01-01,2026-06-30,Twice,',
        'offer-backwards,partner-sunrise,published,discount,2026-06-30,2026-01-01,Ends before it starts,',
        ',partner-sunrise,published,discount,2026-01-01,2026-06-30,No id,',
      ].join('\n') + '\n',
    );
    const dryErrors = path.join(tmp, 'bad-dry.errors.csv');
    const dry = await run('offers', file, { dryRun: true, errorsFile: dryErrors });
    expect(dry).toMatchObject({ rows: 8, created: 2, failed: 6 });
    await expect(call('Offer', 'getOffer', 'offer-ok', {})).rejects.toMatchObject({ code: 'UNKNOWN_INSTANCE' });

    const realErrors = path.join(tmp, 'bad-real.errors.csv');
    const real = await run('offers', file, { errorsFile: realErrors });
    // the class itself refuses an offer that ends before it starts: the one refusal a dry run cannot see
    expect(real).toMatchObject({ rows: 8, created: 1, failed: 7 });
    const lines = errorLines(realErrors).sort();
    expect(lines).toEqual(
      expect.arrayContaining([
        '3,startDate,31/01/2026,not an ISO 8601 date',
        '4,partnerId,partner-nowhere,no partner with this id',
        '5,status,live,"not one of published, unpublished, expired"',
        '6,categoryIds,"cat-dining,cat-nowhere",no offer category cat-nowhere',
        '7,id,offer-ok,duplicate of row 2',
        '9,id,,required',
      ]),
    );
    expect(errorLines(dryErrors).sort()).toEqual(lines.filter((l) => !l.startsWith('8,')));
    expect(lines.find((l) => l.startsWith('8,'))).toBeDefined();
    await expect(call('Offer', 'getOffer', 'offer-backwards', {})).rejects.toMatchObject({ code: 'UNKNOWN_INSTANCE' });
  });

  test('a sheet without a required column is refused before any row is written', async () => {
    const file = path.join(tmp, 'categories-no-name.csv');
    fs.writeFileSync(file, 'id,keywords\ncat-nameless,x\n');
    await expect(run('offer-categories', file)).rejects.toThrow('the offer-categories sheet has no column name');
    await expect(call('BenefitCategory', 'getCategory', 'cat-nameless', {})).rejects.toMatchObject({
      code: 'UNKNOWN_INSTANCE',
    });
  });

  test('an XLSX sheet is read like a CSV one, date cells included', async () => {
    const file = path.join(tmp, 'categories.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Offer categories');
    ws.addRow(['id', 'name', 'subcategories', 'keywords', 'createdAt', 'updatedAt']);
    ws.addRow(['cat-travel', 'Travel', 'Flights, Hotels', 'trip', new Date('2025-03-01T00:00:00Z'), '2025-03-02']);
    ws.addRow(['cat-travel-2', 'Travel again', '', '', 'yesterday', '']);
    await wb.xlsx.writeFile(file);
    const errorsFile = path.join(tmp, 'xlsx.errors.csv');
    expect(await run('offer-categories', file, { errorsFile })).toMatchObject({ rows: 2, created: 1, failed: 1 });
    expect(errorLines(errorsFile)).toEqual(['3,createdAt,yesterday,not an ISO 8601 date']);
    const category = (await call('BenefitCategory', 'getCategory', 'cat-travel', {})).body as {
      category: Record<string, unknown>;
    };
    expect(category.category).toMatchObject({
      name: 'Travel',
      subcategories: ['Flights', 'Hotels'],
      keywords: ['trip'],
    });
  });

  test('the CLI command ends with the JSON summary as its last stdout line', async () => {
    const errorsFile = path.join(tmp, 'cli.errors.csv');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(root, 'runtime/cli.ts'),
        'import',
        'offer-categories',
        sample('offer-categories.csv'),
        '--dry-run',
        '--errors',
        errorsFile,
        '--mapping',
        sample('mapping.json'),
      ],
      {
        cwd: root,
        env: { ...process.env, ...testEnv(t.projectId, { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas' }) },
      },
    );
    const last = stdout.trim().split('\n').pop()!;
    expect(JSON.parse(last)).toMatchObject({
      sheet: 'offer-categories',
      rows: 2,
      created: 0,
      updated: 0,
      unchanged: 2,
      failed: 0,
      dryRun: true,
    });
    expect(Object.keys(JSON.parse(last))).toEqual(
      expect.arrayContaining(['sheet', 'rows', 'created', 'updated', 'unchanged', 'failed', 'seconds']),
    );
    expect(errorLines(errorsFile)).toEqual([]);
  });

  test("a row the class refuses names the class's fields as columns, with their values, one line each", async () => {
    // the offers sheet's categories and partner are imported by the test above
    const file = path.join(tmp, 'offers-bad-dates.csv');
    const [header] = fs.readFileSync(sample('offers.csv'), 'utf8').trim().split('\n');
    fs.writeFileSync(
      file,
      `${header}\noffer-backwards,partner-sunrise,unpublished,,discount,2026-06-01,2026-05-01,,Backwards,Backwards offer,,cat-dining,,\n`,
    );
    const errorsFile = path.join(tmp, 'offers-bad-dates.errors.csv');
    expect(await run('offers', file, { errorsFile })).toMatchObject({ rows: 1, created: 0, failed: 1 });
    expect(errorLines(errorsFile)).toEqual(['2,endDate,2026-05-01,must be after startDate']);
  });
});

describe('refusalProblems: the error-file lines of a refusal', () => {
  const row = { id: 'o1', startDate: '2026-06-01', endDate: '2026-05-01' };
  it('one line per listed field, with the cell as written when the sheet has that column', () => {
    const err = {
      status: 400,
      message: 'Invalid dates: ...',
      details: {
        errors: [
          { field: 'endDate', reason: 'must be after startDate' },
          { field: 'notAColumn', reason: 'bad' },
        ],
      },
    };
    expect(refusalProblems(err, row)).toEqual([
      { column: 'endDate', value: '2026-05-01', reason: 'must be after startDate' },
      { column: 'notAColumn', value: '', reason: 'bad' },
    ]);
  });
  it('one line on the named field, or none, when the refusal lists no fields', () => {
    expect(refusalProblems({ message: 'nope', details: { field: 'id' } }, row)).toEqual([
      { column: 'id', value: 'o1', reason: 'nope' },
    ]);
    expect(refusalProblems(new Error('boom'), row)).toEqual([{ column: '', value: '', reason: 'boom' }]);
    // a field named like an Object.prototype member is not read from the prototype
    expect(refusalProblems({ message: 'x', details: { field: 'constructor' } }, row)).toEqual([
      { column: 'constructor', value: '', reason: 'x' },
    ]);
  });
});
