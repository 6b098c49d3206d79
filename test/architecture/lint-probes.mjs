// Lints code snippets as if they were files at the given paths, with one ESLint config, in one process:
// stdin [{file, code}] -> stdout [[message, ...], ...] (the messages of `rule` for each snippet).
import { ESLint } from 'eslint';

const [configFile, rule] = process.argv.slice(2);
const probes = JSON.parse(
  await new Promise((resolve) => {
    let text = '';
    process.stdin.on('data', (c) => (text += c)).on('end', () => resolve(text));
  }),
);
const eslint = new ESLint({ overrideConfigFile: configFile, allowInlineConfig: false });
const out = [];
for (const { file, code } of probes) {
  const [result] = await eslint.lintText(code, { filePath: file });
  out.push(result.messages.filter((m) => m.ruleId === rule).map((m) => m.message));
}
process.stdout.write(JSON.stringify(out));
