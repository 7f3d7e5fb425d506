/**
 * What a failed request's error says in the delivery log: the kind of failure in words, the limit
 * that was hit, never a credential (the egress proxy's errors name its host only).
 */
export function describeSendError(err: unknown, timeoutMs: number, connectTimeoutMs: number): string {
  const e = err as {
    name?: string;
    code?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  // the proxy and the address check word their own messages (egress-proxy.ts, delivery-agent.ts)
  for (const code of ['EEGRESSPROXY', 'EBLOCKEDADDRESS'])
    if (e?.code === code || e?.cause?.code === code)
      return e.code === code ? (e.message ?? '') : (e.cause?.message ?? '');
  // the connect has a limit of its own, which may be shorter than the send's
  if (e?.cause?.code === 'UND_ERR_CONNECT_TIMEOUT' || e?.code === 'UND_ERR_CONNECT_TIMEOUT')
    return `timeout after ${Math.min(timeoutMs, connectTimeoutMs)} ms (connect)`;
  if (e?.name === 'TimeoutError' || e?.code?.endsWith('_TIMEOUT')) {
    return `timeout after ${timeoutMs} ms`;
  }
  if (e?.code === 'ECONNREFUSED') return 'connection refused';
  if (e?.code === 'ENOTFOUND') return `host not found (${e.message})`;
  return e?.message ? `${e.code ? `${e.code}: ` : ''}${e.message}` : 'delivery failed';
}
