import { fetch } from 'undici';
import autocannon from 'autocannon';
import { BENCH_URL, startApi } from './lib/read-bench.mjs';
const communityId = '846aa84c-219f-4bde-986e-4011621eeeaf', endpointId = 'ce52cad2-a642-4967-b473-d61fd5ab2737';
const api = await startApi();
const login = await fetch(`${BENCH_URL}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@bench.test', password: 'bench password of the owner', communityId }) });
const token = (await login.json()).data.accessToken;
const url = `${BENCH_URL}/api/communities/${communityId}/webhooks/${endpointId}/deliveries?status=FAILED&limit=50`;
for (let i = 0; i < 3; i++) { const t = performance.now(); const r = await fetch(url, { headers: { authorization: `Bearer ${token}` } }); const b = await r.text(); console.log(r.status, b.length, (performance.now() - t).toFixed(1), 'ms'); }
const r = await new Promise((res) => autocannon({ url, connections: 16, duration: 5, headers: { authorization: `Bearer ${token}` } }, (e, x) => res(x)));
console.log(r.requests.average, r.latency.p50, r.latency.p99, r.non2xx);
api.kill('SIGTERM'); await new Promise((r) => api.on('exit', r));
