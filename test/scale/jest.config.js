// The scale test (README.md#tests): compiled APIs and workers as child processes, a Redis Cluster and a
// PgBouncer of the test's own. test/scale/run.sh compiles the build and runs it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const base = require('../../jest.config.js');
const e2e = base.projects.find((p) => p.displayName === 'e2e');

module.exports = {
  rootDir: '../..',
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  projects: [{ ...e2e, displayName: 'scale', testMatch: ['<rootDir>/test/scale/**/*.scale-spec.ts'] }],
};
