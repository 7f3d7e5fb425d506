import type { ServerResponse } from 'node:http';

/**
 * The error code of a response (docs/product-decisions.md#1-responses-and-errors), kept on the raw
 * response so that its request line
 * (src/logging/request-log.ts, written when the response has gone) can carry it. The exception filter
 * and Fastify's error handler, the two places that know the code, set it.
 */
const ERROR_CODE = Symbol('cp.errorCode');

type WithCode = ServerResponse & { [ERROR_CODE]?: string };

export function setResponseErrorCode(res: ServerResponse, code: string | undefined): void {
  (res as WithCode)[ERROR_CODE] = code;
}

export function responseErrorCode(res: ServerResponse): string | undefined {
  return (res as WithCode)[ERROR_CODE];
}
