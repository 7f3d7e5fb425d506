import { appendFileSync } from 'node:fs';

/**
 * The scale test's measurements, one line each: appended to SCALE_REPORT (test/scale/run.sh prints
 * the file after jest, apart from jest's own output) or, without it, logged.
 */
export function report(line: string): void {
  const file = process.env.SCALE_REPORT;
  if (file) appendFileSync(file, `${line}\n`);
  else console.log(line);
}
