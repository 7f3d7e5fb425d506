/**
 * Delivery tests raise events whose content does not matter (only that they arrive, in order,
 * once): this opts their `data` out of the catalog's payload types (OutboxService.record).
 */
export function syntheticData(data: Record<string, unknown> = {}): never {
  return data as never;
}
