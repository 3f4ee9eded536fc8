/**
 * dependency-cruiser (`npm run lint:cycles`): no import cycles anywhere in the server, the CLI, the
 * benchmarks and the tests, whether value or type imports close them (docs/architecture.md "What may
 * import what"). A cycle means two modules cannot be read, tested or moved apart; where two need
 * each other, what both need moves into a third (src/flow/flow-base.ts, cli/context.ts `Registrar`,
 * src/sandbox/configured.ts). The walls between folders are ESLint's (eslint.config.mjs); this
 * file holds only what ESLint cannot see: cycles across several files.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-import-cycles',
      severity: 'error',
      comment:
        'A module must not reach itself through its imports: move what both sides need into a module both import.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules|\\.lint-build)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.json'],
    },
  },
};
