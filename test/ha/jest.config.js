// The failover test (docs/operations.md#testing-a-failover): compiled APIs and workers against a
// pg_auto_failover formation of the test's own behind HAProxy. test/ha/run.sh starts the formation,
// compiles the build and runs it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const base = require('../../jest.config.js');
const e2e = base.projects.find((p) => p.displayName === 'e2e');

module.exports = {
  rootDir: '../..',
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  projects: [{ ...e2e, displayName: 'ha', testMatch: ['<rootDir>/test/ha/**/*.ha-spec.ts'] }],
};
