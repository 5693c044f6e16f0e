/** Jest runs TypeScript and the ESM-only NestJS 12 packages through SWC (ESM -> CommonJS). */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};
const transform = { '^.+\\.(t|j|mj)s$': ['@swc/jest', swc] };
const shared = {
  rootDir: '.',
  testEnvironment: 'node',
  transform,
  transformIgnorePatterns: [],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
};

/**
 * Two tiers: `unit` (test/unit: pure modules, no database, seconds: `npm run test:unit`) and `e2e` (test/e2e: HTTP
 * against real PostgreSQL, which the e2e project's global setup starts). `npm test` runs both.
 */
module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.spec.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.mjs',
      globalTeardown: '<rootDir>/test/setup/global-teardown.mjs',
    },
  ],
  testTimeout: 60000,
  maxWorkers: 2,
};
