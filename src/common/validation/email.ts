/**
 * The one spelling of an e-mail address that is stored and compared: trimmed and lower-case.
 * (The login limiter adds NFKC on top for its bucket key, see login-attempt-limiter.ts.)
 */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
