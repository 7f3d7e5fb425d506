import { Prisma } from '../../../generated/prisma/client';
import type { FilterDocument } from './filter/event-filter';
import type { SealedHeaders } from './secrets/endpoint-headers';
import type { StoredAuth } from './http-transport/endpoint-auth';
import type { StoredTls } from './http-transport/endpoint-tls';
import type { StoredDestination } from './broker-transport/broker-destination';

// The values WebhookEndpointsStore writes into the endpoint's JSON columns, as Prisma takes them.

/** An endpoint's tls, auth and broker destination as a write sets them: undefined leaves each as it is. */
export interface TransportWrite {
  tls?: { stored: StoredTls; notAfter: Date } | null;
  auth?: StoredAuth | null;
  /** a broker endpoint's names and sealed credentials (docs/api.md#broker-destinations); never null once set */
  destination?: StoredDestination;
}

/** The columns a TransportWrite sets; a change of any is a new transport_version. */
export function transportData(write: TransportWrite) {
  const { tls, auth, destination } = write;
  if (tls === undefined && auth === undefined && destination === undefined) return {};
  return {
    ...(tls === undefined
      ? {}
      : {
          tls: jsonOrNull(tls?.stored ?? null),
          tlsNotAfter: tls?.notAfter ?? null,
          tlsExpiryAnnounced: false,
        }),
    ...(auth === undefined ? {} : { auth: jsonOrNull(auth) }),
    ...(destination === undefined ? {} : { destination: jsonOrNull(destination) }),
    transportVersion: { increment: 1 },
  };
}

export function jsonOrNull(
  value: SealedHeaders | FilterDocument | StoredTls | StoredAuth | StoredDestination | null,
): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === null ? Prisma.DbNull : (value as unknown as Prisma.InputJsonValue);
}
