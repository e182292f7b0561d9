// @ts-check
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      '.dev/',
      'ui/src/api/schema.d.ts',
      'ui/src/api/schema-v1.d.ts',
      'ui/src/generated/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // `const { omitted, ...rest } = x` is the idiom for dropping fields.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      complexity: ['error', 15],
      'max-depth': ['error', 4],
      // Every line counts, blank and comment lines too: Prettier lays the code out, so the limit
      // measures a file's size as a reader meets it (issue 27).
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'max-params': ['error', 5],
      eqeqeq: ['error', 'always'],
      // @kubernetes/client-node models are classes, but the client takes and returns plain
      // objects of their shape; these two rules would forbid its ordinary use.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      '@typescript-eslint/no-misused-spread': 'off',
    },
  },
  // The operator and the API server are deployed apart and never import each other; what both
  // need lives in core/ (DESIGN.md).
  {
    files: ['operator/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/apiserver/**'], message: 'operator/ must not import apiserver/; move shared code to core/.' },
          ],
        },
      ],
    },
  },
  {
    files: ['apiserver/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/operator/**'], message: 'apiserver/ must not import operator/; move shared code to core/.' },
          ],
        },
      ],
    },
  },
  // The web UI: React's hooks rules on top. Query option factories (api/queries.ts, and a page's
  // own queries.ts or *-queries.ts) keep their inferred types, which carry each query's key and data through
  // useQuery; spelled out they would restate TanStack Query's generics.
  {
    files: ['ui/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
  {
    files: ['ui/src/**/queries.ts', 'ui/src/**/*-queries.ts'],
    rules: { '@typescript-eslint/explicit-module-boundary-types': 'off' },
  },
  // A test's describe callback and a benchmark's or script's main read top to bottom as one
  // story, so the function limit is for product code; the file limit holds everywhere. A
  // *.suite.ts module holds describes a test file registers in order over one shared setup.
  {
    files: ['**/*.test.ts', 'test/**/*.suite.ts', 'bench/**', 'scripts/**'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
