// Resilience scenarios: a real worker process killed with SIGKILL, a Redis server of the test's own
// stopped and restarted. They need the worker compiled (run.sh does it) and run one at a time.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const base = require('../../jest.config.js');
const e2e = base.projects.find((p) => p.displayName === 'e2e');

module.exports = {
  rootDir: '../..',
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  projects: [
    { ...e2e, displayName: 'resilience', testMatch: ['<rootDir>/test/resilience/**/*.resilience-spec.ts'] },
  ],
};
