/** A harness whose clock the test moves (rate limits, days, expiry). */
import { harness } from "./app.ts";

/**
 * Noon UTC of a day after today: far from midnight, so a test's minutes never cross a day; and
 * ahead of the real clock, so the sweep of an app on the real clock (other files share the store)
 * never takes this clock's running replies for ones whose lease has passed.
 */
const DAY = 86_400_000;
export const NOON = (Math.floor(Date.now() / DAY) + 2) * DAY + DAY / 2;

export async function clocked(start = NOON) {
  const clock = { t: start };
  const h = await harness({ now: () => clock.t });
  return { h, clock };
}
