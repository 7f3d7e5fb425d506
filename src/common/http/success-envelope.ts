import { JsonText } from './json-text';

/**
 * The success body (docs/product-decisions.md#1-responses-and-errors) around a handler's result; a handler
 * that returns nothing sends data: null.
 */
export function successEnvelope<T>(data: T): { success: true; data: T | null } {
  return { success: true, data: data ?? null };
}

/** The same body around a result already written as JSON text, as the text to send. */
export function successEnvelopeText(data: JsonText): string {
  return `{"success":true,"data":${data.json}}`;
}
