// Lint: typescript-eslint's recommended rules, floating promises as errors (a forgotten await on
// an activity or workflow API is a bug), and the workflow sandbox's import restrictions.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// The walls between the top-level folders (docs/architecture.md "What may import what"). Each
// program folder gets one block; a later block replaces an earlier one's rule for its files.
const ioPackages = [
  'typeorm',
  'mysql2',
  'mysql2/*',
  'better-sqlite3',
  'undici',
  'pino',
  'koa',
  '@koa/*',
  'isolated-vm',
  'esbuild',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
];

// src/ is the library: it imports nothing from the programs above it, at any depth.
const srcImportsNothingAbove = {
  regex: '^(\\.\\./)+(api|activities|workflows|bin|cli|console)(/|$)',
  message:
    'src/ is the library: it may not import api/, activities/, workflows/, bin/, cli/ or console/ (the processes are wired in bin/).',
};

/** `@typescript-eslint/no-restricted-imports` with these patterns. */
const restrict = (...patterns) => ({ '@typescript-eslint/no-restricted-imports': ['error', { patterns }] });

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
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // The console runs in the browser: from the server's code it may take types (the result shapes
    // in src/), values only from the pure modules the designer shares with the server (the node
    // types' constants, the flow tree walk, the flow schemas, the curl reader: no Node built-ins, no I/O; never
    // src/validation/flow.ts, which runs node:vm and ajv), and nothing from the layers above src/.
    files: ['console/**/*.ts', 'console/**/*.tsx'],
    rules: restrict(
      {
        regex:
          '^(\\.\\./)+src/(?!domain/types$|flow/tree$|validation/flow-schemas$|importers/curl$|importers/node-id$)',
        allowTypeImports: true,
        message:
          'The console may import only types from src/, and values from src/domain/types, src/flow/tree, src/validation/flow-schemas, src/importers/curl and src/importers/node-id (pure modules shared with the server).',
      },
      {
        group: ['**/api/*', '**/activities/*', '**/workflows/*', '**/bin/*', '**/cli/*', '!./**'],
        message: 'The console imports nothing from the server layers or the CLI.',
      },
    ),
  },
  {
    files: ['src/**/*.ts'],
    rules: restrict(srcImportsNothingAbove),
  },
  {
    // Code the workflow sandbox runs (src/domain, the flow engine in src/flow): deterministic, so no
    // Node built-ins and no I/O packages; from the rest of src/ types only, and from the script
    // sandbox not even types (what a script gives back is declared in src/domain/node-io.ts).
    files: ['src/domain/**/*.ts', 'src/flow/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code may not use Node built-ins.' })) },
      ],
      ...restrict(
        { group: ioPackages, message: 'No I/O packages in workflow code (src/domain, src/flow).' },
        {
          regex: '^\\.\\./sandbox(/|$)',
          message:
            'src/domain and src/flow take nothing from src/sandbox, not even types: script results are declared in src/domain/node-io.ts.',
        },
        {
          regex: '^\\.\\./(?!domain/|flow/|flow$|sandbox/)',
          allowTypeImports: true,
          message:
            'src/domain and src/flow import only each other (and pure packages); other modules of src/ as `import type`.',
        },
        srcImportsNothingAbove,
      ),
    },
  },
  {
    // workflows/ as an allow-list: Temporal's workflow API and its pure common types, other workflow
    // modules (siblings), the pure modules of src/domain and the flow engine (src/flow); anything
    // else only as a type (a type import pulls no code into the workflow bundle).
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code may not use Node built-ins.' })) },
      ],
      ...restrict({
        regex:
          '^(?!@temporalio/workflow$|@temporalio/common$|\\./[\\w-]+$|\\.\\./src/domain/[\\w-]+$|\\.\\./src/flow(/[\\w-]+)?$)',
        allowTypeImports: true,
        message:
          'Workflow code may import only @temporalio/workflow, @temporalio/common, ./<workflow module>, ../src/domain/<module> and ../src/flow; anything else as `import type`.',
      }),
    },
  },
  {
    // The REST API: the library, and types only from workflows/ (it starts and queries them through
    // src/temporal/); never activities/, bin/ or the CLI.
    files: ['api/**/*.ts'],
    rules: restrict(
      {
        group: ['**/workflows', '**/workflows/**'],
        allowTypeImports: true,
        message: 'api/ takes only types from workflows/.',
      },
      {
        group: ['**/activities', '**/activities/**', '**/bin/**', '**/cli/**'],
        message: 'api/ imports nothing from activities/, bin/ or cli/.',
      },
    ),
  },
  {
    // The activities: the library, and types only from workflows/; never api/, bin/ or the CLI.
    files: ['activities/**/*.ts'],
    rules: restrict(
      {
        group: ['**/workflows', '**/workflows/**'],
        allowTypeImports: true,
        message: 'activities/ takes only types from workflows/.',
      },
      {
        group: ['**/api/**', '**/bin/**', '**/cli/**'],
        message: 'activities/ imports nothing from api/, bin/ or cli/.',
      },
    ),
  },
  {
    // The command line is a REST client (docs/cli.md): the library except the store, Temporal and
    // the sandbox; nothing of the server's programs.
    files: ['cli/**/*.ts'],
    rules: restrict(
      {
        regex: '^(\\.\\./)+(api|activities|workflows|bin|console)(/|$)',
        message:
          'The CLI talks to Assay over the REST API only: nothing from api/, activities/, workflows/, bin/ or console/.',
      },
      {
        regex: '^(\\.\\./)+src/(store|temporal|sandbox)(/|$)',
        message: 'The CLI talks to Assay over the REST API only: not the store, Temporal or the sandbox.',
      },
    ),
  },
  {
    // API answers in tests are arbitrary JSON documents read field by field.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // CommonJS configuration files (.dependency-cruiser.cjs).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // The sandbox runtime runs inside an isolate, where these are the globals it installs itself.
    files: ['src/sandbox/runtime/**/*.js'],
    languageOptions: { globals: { TextEncoder: 'readonly', TextDecoder: 'readonly', globalThis: 'readonly' } },
  },
);
