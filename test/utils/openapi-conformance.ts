import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { OpenApiResponseValidator, type Violation } from './openapi-response-validator';

/**
 * The whole e2e suite as a proof of the OpenAPI document: every answer of every test app is checked
 * as it is sent (test/utils/app.ts registers the hook) against the document of dist/, written once
 * per run by test/setup/global-setup.ts; the run's global teardown reports how many answers matched
 * and fails the run on any violation. The files live in the run's temp directory.
 */
export const conformanceFiles = (runDir: string) => ({
  document: join(runDir, 'openapi.json'),
  violations: join(runDir, 'openapi-violations.jsonl'),
  validated: join(runDir, 'openapi-validated.txt'),
});

export interface RecordedViolation extends Violation {
  testFile?: string;
}

/** One validator per test file (jest gives each file its own modules): schemas compile on first use. */
let validator: OpenApiResponseValidator | undefined;

/** Checks each answer of `app` against the run's document (a no-op when the run has none). */
export function checkResponsesAgainstDocument(app: NestFastifyApplication): void {
  const runDir = process.env.TEST_RUN_DIR;
  if (!runDir) return;
  const files = conformanceFiles(runDir);
  if (!existsSync(files.document)) return;
  validator ??= new OpenApiResponseValidator(
    JSON.parse(readFileSync(files.document, 'utf8')) as OpenAPIObject,
  );
  const checker = validator;
  const testFile = expect.getState().testPath;
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onSend', (request, reply, payload, done) => {
      const verdict = checker.check({
        method: request.method,
        route: request.is404 ? undefined : request.routeOptions.url,
        status: reply.statusCode,
        contentType: String(reply.getHeader('content-type') ?? ''),
        payload,
      });
      if (verdict.kind === 'valid')
        appendFileSync(files.validated, `${verdict.operation} ${reply.statusCode}\n`);
      if (verdict.kind === 'violation') {
        const { kind: _kind, ...violation } = verdict;
        const recorded: RecordedViolation = { ...violation, testFile };
        appendFileSync(files.violations, JSON.stringify(recorded) + '\n');
      }
      done(null, payload);
    });
}

/**
 * The run's document, built from dist/ as the service serves it. The compiler plugin that documents
 * the DTOs (their fields, formats and limits) runs in `nest build` only: the document a test app
 * serves under ts-jest lacks all it adds, so a check of what the plugin writes reads this one.
 */
export function builtDocument(): OpenAPIObject {
  const runDir = process.env.TEST_RUN_DIR;
  const file = runDir ? conformanceFiles(runDir).document : undefined;
  if (!file || !existsSync(file)) {
    throw new Error('No OpenAPI document of dist/ for this run: `npm run build` first');
  }
  return JSON.parse(readFileSync(file, 'utf8')) as OpenAPIObject;
}
