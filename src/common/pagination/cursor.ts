/**
 * Opaque cursors for keyset-paged lists (docs/api.md#community-wide-messages): the sort key of a page's last
 * item, which the next page starts after. A page read after a cursor never repeats nor skips an item that
 * already existed, whatever is written meanwhile, which an offset cannot promise on a list that grows at
 * its head. The text is base64url of a JSON array of strings behind a version letter: clients pass it back
 * as they got it, and a route may change what it holds by changing the letter.
 */
const VERSION = 'a';

export function encodeCursor(key: readonly string[]): string {
  return VERSION + Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** The key a cursor holds, or null when the text is not a cursor of `arity` strings made by encodeCursor. */
export function decodeCursor(text: string, arity: number): string[] | null {
  if (!text.startsWith(VERSION) || !/^[A-Za-z0-9_-]+$/.test(text.slice(1))) return null;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(text.slice(1), 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  return Array.isArray(key) && key.length === arity && key.every((part) => typeof part === 'string')
    ? key
    : null;
}
