/** A harness whose clock the test moves (rate limits, days, expiry). */
import { harness } from "./app.ts";

/** Noon UTC on a fixed day: far from midnight, so a test's minutes never cross a day. */
export const NOON = Date.UTC(2026, 5, 1, 12, 0, 0);

export async function clocked(start = NOON) {
  const clock = { t: start };
  const h = await harness({ now: () => clock.t });
  return { h, clock };
}
