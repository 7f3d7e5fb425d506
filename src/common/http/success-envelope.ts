/**
 * The success body (docs/product-decisions.md#1-responses-and-errors) around a handler's result; a handler
 * that returns nothing sends data: null.
 */
export function successEnvelope<T>(data: T): { success: true; data: T | null } {
  return { success: true, data: data ?? null };
}
