const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A uuid of any version: ids in paths, headers and token claims are checked before they reach SQL. */
export function isUuid(value: unknown): boolean {
  return typeof value === 'string' && UUID.test(value);
}
