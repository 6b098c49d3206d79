// The walls between the runtime, the shared platform code and the classes, checked on every import
// (eslint-plugin-boundaries). Part of eslint.config.mjs; test/architecture/boundaries.test.ts runs it alone.
//
//   runtime/                  imports only runtime/ (it knows no class)
//   classes/_platform/        imports runtime/index.ts (the runtime's public API), itself, schemas, workflow configs
//   classes/<Class>/          imports the same (schemas: its own), its own folder, and from another class only
//                             `import type` of that class's <Class>.class.ts (its handlers and published types)
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';

const type = (t) => ({ to: { element: { type: t } } });
const runtimeApi = { to: { element: { type: 'runtime' }, file: { categories: 'public-api' } } };
const sameClass = (t) => ({ to: { element: { type: t, captured: { classId: '{{from.captured.classId}}' } } } });
const classEntryTypes = {
  to: { element: { type: 'class' }, file: { categories: 'class-entry' } },
  dependency: { kind: 'type' },
};

export default [
  {
    files: ['runtime/**/*.ts', 'classes/**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { boundaries },
    settings: {
      'import/resolver': { node: { extensions: ['.ts', '.js', '.json'] } },
      'boundaries/include': ['runtime/**', 'classes/**', 'schemas/**', 'workflow-configs/**'],
      'boundaries/elements': [
        { type: 'runtime', pattern: 'runtime' },
        { type: 'platform', pattern: 'classes/_platform' },
        { type: 'class', pattern: 'classes/*', capture: ['classId'] },
        { type: 'schemas', pattern: 'schemas/*', capture: ['classId'] },
        { type: 'workflow-configs', pattern: 'workflow-configs' },
      ],
      'boundaries/files': [
        { category: 'public-api', pattern: 'runtime/index.ts' },
        { category: 'class-entry', pattern: 'classes/*/*.class.ts' },
      ],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          policies: [
            { from: { element: { type: 'runtime' } }, allow: [type('runtime')] },
            {
              from: { element: { type: 'platform' } },
              allow: [runtimeApi, type('platform'), type('schemas'), type('workflow-configs')],
            },
            {
              from: { element: { type: 'class' } },
              allow: [
                runtimeApi,
                type('platform'),
                sameClass('schemas'),
                type('workflow-configs'),
                sameClass('class'),
                classEntryTypes,
              ],
            },
          ],
        },
      ],
    },
  },
];
