/**
 * Strict RFC 3339 date-times (section 5.6) for the fields that take one. `new Date()` (and the
 * schema's `format: "date-time"`) also take a date alone, roll 2030-02-30 over to March 2 and
 * reach years PostgreSQL cannot store (+275760: a 500); here each of those is refused.
 */

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** The instant `value` names, or null unless it is a full RFC 3339 date-time (date, time and offset) of a real day, years 1–9999. */
export function parseDateTime(value: string): Date | null {
  const m = DATE_TIME.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [offHours, offMinutes] = [Number(m[9] ?? 0), Number(m[10] ?? 0)];
  // Leap seconds (:60) are refused too: a JavaScript Date cannot hold one.
  if (year < 1 || hour > 23 || minute > 59 || second > 59 || offHours > 23 || offMinutes > 59) return null;
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day); // not Date.UTC: it maps years 0–99 to 1900–1999
  // A day the month does not have (02-30, 04-31, 00) comes back as another day: refused.
  if (utc.getUTCFullYear() !== year || utc.getUTCMonth() !== month - 1 || utc.getUTCDate() !== day) return null;
  const ms = Number((m[7] ?? ".").slice(1).padEnd(3, "0").slice(0, 3)); // to the millisecond, as stored
  const offset = (m[8] === "-" ? -1 : 1) * (offHours * 60 + offMinutes);
  utc.setUTCHours(hour, minute - offset, second, ms);
  return utc;
}
