import type { INestApplicationContext } from '@nestjs/common';
import { TenancyService } from '../modules/tenancy/tenancy.service';
import { headerNameForMessage } from '../modules/webhooks/core/secrets/endpoint-headers';
import {
  StoredHeadersAtFault,
  WebhookSecretsService,
} from '../modules/webhooks/core/secrets/webhook-secrets.service';

/** Endpoints read per statement: each page is one short read, never a lock. */
const PAGE = 500;

/** What `webhooks:check-headers` found; the lines were printed as they were found. */
export interface HeaderCheck {
  checked: number;
  atFault: number;
}

/**
 * Reads every endpoint's stored custom headers (of one community when given) and prints one line per
 * header that breaks today's rules (docs/api.md#webhooks, "Custom headers"): the endpoint, its community
 * and the header's name, never a value. Rows stored before a rule was added (a control character, text
 * outside ASCII, `Expect`) make every delivery of their endpoint fail; this finds them.
 */
export async function checkStoredHeaders(
  app: INestApplicationContext,
  community: { id: string } | null,
  print: (line: string) => void,
): Promise<HeaderCheck> {
  const secrets = app.get(WebhookSecretsService);
  const slugs = new Map<string, string>();
  const slugOf = async (communityId: string) => {
    let slug = slugs.get(communityId);
    if (slug === undefined) {
      slug = (await app.get(TenancyService).findCommunity(communityId))?.slug ?? '?';
      slugs.set(communityId, slug);
    }
    return slug;
  };
  const result: HeaderCheck = { checked: 0, atFault: 0 };
  let after: string | null = null;
  do {
    const page = await secrets.checkStoredHeaders(community?.id ?? null, after, PAGE);
    result.checked += page.checked;
    result.atFault += page.atFault.length;
    for (const fault of page.atFault) {
      const subject = `endpoint ${fault.endpointId} (community ${await slugOf(fault.communityId)}, ${fault.communityId})`;
      for (const line of faultLines(fault)) print(`${subject}: ${line}`);
    }
    after = page.next;
  } while (after !== null);
  return result;
}

/** One line per header at fault (a rule about the whole set gets one line of its own). */
function faultLines(fault: StoredHeadersAtFault): string[] {
  if (fault.undecryptable)
    return [
      'custom headers could not be decrypted: their key is not in WEBHOOK_SECRET_ENCRYPTION_KEY, or the row was ' +
        'altered (secrets:reencrypt --dry-run counts the values under each key)',
    ];
  return fault.problems.flatMap(({ names, message }) =>
    names.length === 0 ? [message] : names.map((name) => `header ${headerNameForMessage(name)}: ${message}`),
  );
}
