import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { AppConfig } from '../../config/app-config';

/** The label under the domain where its owner publishes the challenge: `_cp-challenge.<domain>`. */
export const CHALLENGE_LABEL = '_cp-challenge';
export const CHALLENGE_PREFIX = 'cp-verify=';

export interface TxtRecord {
  name: string;
  value: string;
}

/** The TXT record that proves control of `domain` for the holder of `token`. */
export function challengeRecord(domain: string, token: string): TxtRecord {
  return { name: `${CHALLENGE_LABEL}.${domain}`, value: `${CHALLENGE_PREFIX}${token}` };
}

/** 192 random bits, DNS-safe (base64url has no quotes, spaces or semicolons). */
export function newChallengeToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The lookup itself failed (timeout, SERVFAIL, refused): nothing is known about the record. */
export class DnsLookupError extends Error {
  constructor(readonly code: string) {
    super(`DNS lookup failed (${code})`);
  }
}

/** Answers that mean "there is no such record" rather than "the lookup failed". */
const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * TXT lookups for custom-domain verification, through DNS_RESOLVER when it is set (tests point it at
 * a DNS server they start) and the system's resolvers otherwise.
 */
@Injectable()
export class DnsTxtLookup {
  private readonly resolver: Resolver;

  constructor(config: AppConfig) {
    // Bounded so a verification call answers in seconds even when the domain's servers do not.
    this.resolver = new Resolver({ timeout: 3000, tries: 2 });
    const servers = config.dnsResolvers;
    if (servers) this.resolver.setServers(servers);
  }

  /** The TXT records at `name` (each record's strings joined), [] when there are none. */
  async txt(name: string): Promise<string[]> {
    try {
      const records = await this.resolver.resolveTxt(name);
      return records.map((chunks) => chunks.join(''));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      if (NO_RECORD.has(code)) return [];
      throw new DnsLookupError(code);
    }
  }
}
