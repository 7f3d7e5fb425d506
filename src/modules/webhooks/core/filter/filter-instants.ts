/**
 * The ISO-8601 forms a filter compares as instants: a date (midnight UTC) or a date-time with its
 * offset (`Z` or `±hh:mm`), seconds and fractions optional. A date-time without an offset is not an
 * instant (its zone would be the worker's), and a calendar date that does not exist (02-30) is none.
 */
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/** Milliseconds since the epoch of an ISO-8601 instant, or null when `text` is not one. */
export function parseInstant(text: string): number | null {
  const parts = ISO_INSTANT.exec(text);
  if (!parts) return null;
  const [, year, month, day, hour = '0', minute = '0', second = '0', offsetHours = '0', offsetMinutes = '0'] =
    parts;
  const lastOfMonth = new Date(0);
  // setUTCFullYear, not Date.UTC: the latter reads years 0–99 as 1900–1999
  lastOfMonth.setUTCFullYear(Number(year), Number(month), 0);
  const daysInMonth = lastOfMonth.getUTCDate();
  if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(day) > daysInMonth) return null;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  if (Number(offsetHours) > 23 || Number(offsetMinutes) > 59) return null;
  const at = Date.parse(text);
  return Number.isFinite(at) ? at : null;
}
