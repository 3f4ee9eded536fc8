// Lint: typescript-eslint's recommended rules, floating promises as errors (a forgotten await on
// an activity or workflow API is a bug), and the workflow sandbox's import restrictions.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// src/ is the library (issue 11 item 3): it imports nothing from the layers above it (api/,
// activities/, workflows/, bin/), at any depth. The run workflow's contract (its name, input, query,
// search attribute) lives in src/domain/run-workflow.ts, so the API's Temporal client needs nothing above.
const srcImportsNothingAbove = {
  regex: '^(\\.\\./)+(api|activities|workflows|bin)(/|$)',
  message: 'src/ is the library: it may not import api/, activities/, workflows/ or bin/ (the processes are wired in bin/).',
};

export default tseslint.config(
  { ignores: ['dist/**', '.lint-build/**', 'node_modules/**', '.assay/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // console/ (the web console, .tsx) is type-checked with its own tsconfig (console/tsconfig.json).
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // The console runs in the browser: from the server's code it may take types only (the result
    // shapes in src/), never a value, and nothing from the layers above src/.
    files: ['console/**/*.ts', 'console/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['../../src/**', '../../../src/**'], allowTypeImports: true, message: 'The console may import only types from src/.' },
            { group: ['**/api/*', '**/activities/*', '**/workflows/*', '**/bin/*', '!./**'], message: 'The console imports nothing from the server layers.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [srcImportsNothingAbove] }] },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O libraries.
    // (This replaces the block above for src/domain, so it repeats src/'s own restriction.)
    files: ['workflows/**/*.ts', 'src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code may not use Node built-ins.' })),
          patterns: [
            { group: ['typeorm', 'mysql2', 'better-sqlite3', 'undici', 'pino', 'koa', '@koa/*', 'isolated-vm', 'esbuild'], message: 'No I/O libraries in workflow code.' },
            { group: ['**/store/**', '**/api/**', '**/activities/*', '!**/activities'], message: 'Workflow code imports only pure modules (types from activities are fine).' },
            srcImportsNothingAbove,
          ],
        },
      ],
    },
  },
  {
    // workflows/ as an allow-list (issue 11): Temporal's workflow API and its pure common types,
    // other workflow modules (siblings; a folder such as ./interpreter through its index) and the
    // pure modules of src/domain (from workflows/ or src/flow/); anything else only as a type.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/workflow$|@temporalio/common$|\\./[\\w-]+$|\\.\\./src/domain/[\\w-]+$|\\.\\./\\.\\./src/domain/[\\w-]+$)',
              allowTypeImports: true,
              message: 'Workflow code may import only @temporalio/workflow, @temporalio/common, ./<workflow module> and (../)../src/domain/<module>; anything else as `import type`.',
            },
          ],
        },
      ],
    },
  },
  {
    // API answers in tests are arbitrary JSON documents read field by field.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The sandbox runtime runs inside an isolate, where these are the globals it installs itself.
    files: ['src/sandbox/runtime/**/*.js'],
    languageOptions: { globals: { TextEncoder: 'readonly', TextDecoder: 'readonly', globalThis: 'readonly' } },
  },
);
