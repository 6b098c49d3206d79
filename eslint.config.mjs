// Lint for the whole tree, run by `npm test` (pretest: `npm run lint`).
// Source (runtime, classes, scripts, bench, examples, clients) is linted with type information:
// that is where unsafe `any`, floating promises and needless casts cost most. Tests are linted
// without it: their bodies are untyped JSON by nature, and the type-aware pass over them would
// double the time of every run.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import walls from './eslint.boundaries.mjs';

const SOURCE = [
  'runtime/**/*.ts',
  'classes/**/*.ts',
  'scripts/**/*.ts',
  'bench/**/*.ts',
  'examples/**/*.ts',
  'clients/**/*.ts',
];

export default tseslint.config(
  { ignores: ['dist/', 'data/', '.data/', 'coverage/', 'node_modules/', 'clients/api.d.ts', '*.tmp.mjs'] },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // tests read answers as the untyped JSON they are, load modules late on purpose (a process that must
    // not have them yet), and look for terminal escape codes in what a command printed
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      'no-control-regex': 'off',
    },
  },
  {
    files: SOURCE,
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  ...walls,
);
