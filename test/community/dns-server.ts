import dns2 from 'dns2';
import type { AddressInfo } from 'node:net';

const { Packet } = dns2;
/** RFC 1035 §4.1.1 response codes (dns2 has them at runtime, not in its types). */
const NXDOMAIN = 3;
const SERVFAIL = 2;

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for DNS_RESOLVER */
  address: string;
  /** Publishes TXT values at `name` (replacing what was there); no values removes the name. */
  setTxt: (name: string, ...values: string[]) => void;
  /** Names answered with SERVFAIL (the lookup itself fails). */
  failing: Set<string>;
  close: () => Promise<void>;
}

/**
 * A real DNS server on a spare UDP port of 127.0.0.1, answering TXT questions from an in-memory zone:
 * the service under test resolves through it (DNS_RESOLVER) exactly as it would through any other.
 * TTLs are 0 so the resolver caches nothing between a test's steps.
 */
export async function startDnsServer(): Promise<TestDnsServer> {
  const zone = new Map<string, string[]>();
  const failing = new Set<string>();
  const server = dns2.createUDPServer((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    const name = question.name.toLowerCase();
    const values = zone.get(name);
    if (failing.has(name)) response.header.rcode = SERVFAIL;
    else if (!values) response.header.rcode = NXDOMAIN;
    else if (question.type === Packet.TYPE.TXT) {
      for (const data of values) {
        response.answers.push(Packet.createResourceFromQuestion(question, { ttl: 0, data }));
      }
    }
    void send(response);
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    setTxt: (name, ...values) => {
      if (values.length === 0) zone.delete(name.toLowerCase());
      else zone.set(name.toLowerCase(), values);
    },
    failing,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
