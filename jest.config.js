// One jest config for the whole workspace: TypeScript through SWC (type-checking is
// `pnpm typecheck`), native ESM, `.js` import specifiers mapped back to `.ts` sources.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  // A workspace package that publishes a build (@hallmark/client: dist/) is tested from its
  // sources: its `hallmark-source` export condition (tsconfig customConditions likewise).
  testEnvironmentOptions: { customExportConditions: ['hallmark-source', 'node', 'node-addons'] },
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
        module: { type: 'es6' },
      },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/{packages,services,test}/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  // Data and build output (production trees from `pnpm prod-tree`, bundles in dist/).
  modulePathIgnorePatterns: ['<rootDir>/\\.hallmark/', '<rootDir>/services/[^/]+/dist(-stack)?/'],
  // Also the hooks' timeout: a whole stack's afterAll close (a dozen processes drained, their
  // databases dropped) passed 30 s on a loaded 2-core machine.
  testTimeout: 60000,
};
