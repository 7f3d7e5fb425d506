/**
 * The import rules of src/ (`npm run check:imports`, run by CI): no circles, type-only imports
 * included, and no import that runs back up the layers
 *
 *   config  <  redis, prisma, logging, metrics, tracing  <  common  <  modules  <  bootstrap, cli, entry points
 *
 * A lower layer never imports a higher one. See README.md#architecture.
 */

/** A path under src/, as dependency-cruiser sees it. */
const src = (...folders) => `^src/(${folders.join('|')})(/|\\.ts$)`;

const INFRASTRUCTURE = ['redis', 'prisma', 'logging', 'metrics', 'tracing'];
const ENTRY_POINTS = ['bootstrap', 'cli', 'main', 'worker', 'app\\.module', 'worker\\.module'];

/** `from` may import nothing in `to`. */
const layer = (name, from, to) => ({
  name,
  severity: 'error',
  comment: `${from.join(', ')} sits below ${to.join(', ')}: the import runs back up the layers`,
  from: { path: src(...from) },
  to: { path: src(...to) },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle of imports (type-only ones included) makes the modules one lump',
      from: { path: '^src/' },
      to: { circular: true },
    },
    layer('config-is-the-bottom', ['config'], [...INFRASTRUCTURE, 'common', 'modules', ...ENTRY_POINTS]),
    layer('infrastructure-below-common', INFRASTRUCTURE, ['common', 'modules', ...ENTRY_POINTS]),
    layer('common-below-modules', ['common'], ['modules', ...ENTRY_POINTS]),
    layer('modules-below-entry-points', ['modules'], ENTRY_POINTS),
    // The webhooks folder holds two processes (src/modules/webhooks/worker/README.md): the API's
    // files at its top, the worker's in worker/, and what both use in core/.
    {
      name: 'api-never-imports-the-worker',
      severity: 'error',
      comment: 'Only the worker process (src/worker*.ts) runs the relay, the processor and the sweep',
      from: { path: '^src/', pathNot: ['^src/modules/webhooks/worker/', '^src/worker'] },
      to: { path: '^src/modules/webhooks/worker/' },
    },
    {
      name: 'worker-never-imports-the-api',
      severity: 'error',
      comment: 'What the worker shares with the API lives in webhooks/core/',
      from: { path: '^src/modules/webhooks/worker/' },
      to: { path: '^src/modules/webhooks/', pathNot: '^src/modules/webhooks/(worker|core)/' },
    },
    {
      name: 'webhooks-core-serves-both',
      severity: 'error',
      comment: 'webhooks/core/ is used by the API and the worker, so it depends on neither',
      from: { path: '^src/modules/webhooks/core/' },
      to: { path: '^src/modules/webhooks/', pathNot: '^src/modules/webhooks/core/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    includeOnly: '^src/',
    // type-only imports count: a circle through types still ties the modules together
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
