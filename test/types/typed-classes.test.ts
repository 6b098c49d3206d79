/**
 * `npm test` (jest, which transpiles without type-checking) compiles the
 * type-level test typed-classes.types.ts with the project's compiler options:
 * every line marked `@ts-expect-error` there must fail to compile (a write in
 * a READ, a wrongly typed client call, ...) and everything else must compile.
 */
import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');

it('typed-classes.types.ts compiles, and each of its refused lines is refused', () => {
  const configFile = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const config = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
  const program = ts.createProgram([path.join(__dirname, 'typed-classes.types.ts')], {
    ...config.options,
    noEmit: true,
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName.includes('test/types/'));
  const text = diagnostics.map((d) => {
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    return `${where ? `line ${where.line + 1}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
  expect(text).toEqual([]);
}, 120_000);
