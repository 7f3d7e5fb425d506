// A scripted fetch: each call takes the next answer (a Response, or an Error to throw) and is recorded.
export function scriptedFetch(...answers) {
  const calls = [];
  const fetch = async (url, init = {}) => {
    calls.push({ url: String(url), method: init.method, headers: init.headers ?? {}, body: init.body });
    const next = answers.shift();
    if (next === undefined) throw new Error(`unexpected call ${init.method} ${url}`);
    const answer = typeof next === 'function' ? next(url, init) : next;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetch, calls, remaining: () => answers.length };
}

export function json(status, body, headers = {}) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export const ok = (data, status = 200) => json(status, { success: true, data });

/** Records the delays instead of waiting. */
export function recordingSleep() {
  const delays = [];
  return { delays, sleep: async (ms) => void delays.push(ms) };
}
