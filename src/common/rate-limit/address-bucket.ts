import ipaddr from 'ipaddr.js';

/**
 * The client address a bucket is kept for. IPv6 counts per /64: one subscriber usually holds a
 * whole /64, and a bucket per address would hand them 2^64 buckets. IPv4-mapped IPv6 is IPv4.
 */
export function addressBucket(ip: string): string {
  try {
    const address = ipaddr.process(ip);
    if (address.kind() === 'ipv4') return address.toString();
    const parts = (address as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4);
    return `${parts.join(':')}::/64`;
  } catch {
    return ip;
  }
}
