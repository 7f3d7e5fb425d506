/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are untyped JSON that each test reads as it expects */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

export interface CallOptions {
  token?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number>;
  /** an object is sent as JSON; a string is sent as-is (for malformed bodies) */
  body?: unknown;
}

export interface CallResult<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
}

/** Calls the app in-process (Fastify inject: the whole HTTP stack, no socket). */
export async function call<T = any>(
  app: NestFastifyApplication,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  options: CallOptions = {},
): Promise<CallResult<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  let payload: string | undefined;
  if (options.body !== undefined) {
    payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await app.inject({
    method,
    url,
    headers,
    payload,
    query: options.query
      ? Object.fromEntries(Object.entries(options.query).map(([k, v]) => [k, String(v)]))
      : undefined,
  });
  let body: unknown = response.body;
  try {
    body = response.body ? JSON.parse(response.body) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.statusCode, body: body as T, headers: response.headers };
}
