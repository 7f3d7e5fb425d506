// Two projects: unit specs beside the code, e2e specs under test/ that boot the real app.
// Both share one throw-away PostgreSQL database and Redis key prefix per run (test/setup/global-setup.ts).

// Node loads ESM-only dependencies through require(); jest's module runtime cannot, so the few
// ESM-only packages on the app's import path are transpiled to CommonJS for the tests.
const ESM_ONLY_PACKAGES = ['content-disposition'];

const common = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    '^.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, isolatedModules: true } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY_PACKAGES.join('|')})/)`],
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/setup/env.ts'],
};
module.exports = {
  // A global option (jest ignores it inside a project): e2e files boot the app and hash passwords
  // (argon2id is CPU-bound by design) on a 2-core machine that CI may share with other work.
  testTimeout: 30_000,
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  projects: [
    {
      ...common,
      displayName: 'unit',
      rootDir: '.',
      testMatch: [
        '<rootDir>/src/**/*.spec.ts',
        '<rootDir>/prisma/**/*.spec.ts',
        '<rootDir>/test/utils/**/*.spec.ts',
        // the portal's pure functions (portal/src runs in browsers; these need no DOM)
        '<rootDir>/portal/src/**/*.spec.ts',
      ],
    },
    { ...common, displayName: 'e2e', rootDir: '.', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
