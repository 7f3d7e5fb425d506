// Two projects: unit specs beside the code, e2e specs under test/ that boot the real app.
// Both share one throw-away PostgreSQL database and Redis key prefix per run (test/setup/global-setup.ts).
const tsJest = { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] };
const common = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  transform: tsJest,
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/setup/env.ts'],
};
module.exports = {
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  projects: [
    { ...common, displayName: 'unit', rootDir: '.', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    { ...common, displayName: 'e2e', rootDir: '.', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
