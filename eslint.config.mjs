// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const OPENTELEMETRY_ONLY_IN_ITS_FILE = {
  group: ['@opentelemetry/*'],
  message: 'Only src/tracing/otel-tracing.ts imports OpenTelemetry; use src/tracing/tracer.ts.',
};

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'coverage/',
      'node_modules/',
      'src/generated/',
      'prisma/schema-engine-wasm.mjs',
      'clients/*/dist/',
      'clients/typescript/src/schema.ts',
      'portal/src/api/openapi.d.ts',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
        require: 'readonly',
        module: 'writable',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  // OpenTelemetry is loaded only when tracing is configured (src/tracing/start-tracing.ts requires the
  // one file that imports it); everything else goes through src/tracing/tracer.ts.
  {
    files: ['src/**'],
    ignores: ['src/tracing/otel-tracing.ts', 'src/common/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [OPENTELEMETRY_ONLY_IN_ITS_FILE] }] },
  },
  // The API requires BullMQ on its first resend and undici on its first test delivery, never at start
  // (docs/architecture.md#what-each-process-loads): only the worker's files import them; types are free.
  {
    files: ['src/**'],
    ignores: ['src/modules/webhooks/worker/**', 'src/**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['bullmq', '@nestjs/bullmq', 'undici'].map((name) => ({
            name,
            message:
              'The API loads this package on first use only: require it inside the function that needs it (see DeliveryQueue.openedOnFirstUse, httpClient).',
            allowTypeImports: true,
          })),
        },
      ],
    },
  },
  // src/common is the leaf every feature stands on: it may declare an interface a feature provides
  // (common/http/credential-check.ts), never import the feature.
  {
    files: ['src/common/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/modules/**'], message: 'src/common must not import src/modules.' },
            OPENTELEMETRY_ONLY_IN_ITS_FILE,
          ],
        },
      ],
    },
  },
  // The client libraries run in Node 20+ and in browsers, where these are globals.
  {
    files: ['clients/**'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'fetch',
          'Response',
          'Headers',
          'URLSearchParams',
          'TextEncoder',
          'TextDecoder',
          'AbortController',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  // The webhook portal runs in browsers only.
  {
    files: ['portal/**'],
    languageOptions: {
      globals: Object.fromEntries(
        ['window', 'document', 'navigator', 'history', 'fetch', 'Response', 'URLSearchParams'].map((name) => [
          name,
          'readonly',
        ]),
      ),
    },
  },
);
