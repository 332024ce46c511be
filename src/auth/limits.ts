/** Plans and limits: which values a key's limits may take, and which limits apply to a key. */
import { BOUNDS, checkBound } from "../config/options.ts";
import { PLANS, type Plan } from "../contract/plans.ts";

export interface KeyLimits {
  plan: Plan;
  rpm?: number | null;
  rpd?: number | null;
  /** Daily token budget; null: none. Not tied to the plan. */
  tpd?: number | null;
}

/** Largest per-minute or per-day limit: the columns are PostgreSQL integers. */
export const MAX_LIMIT = BOUNDS.planLimit.max;

/** Throws unless `v` is a usable limit (a whole number from 1 to MAX_LIMIT). */
export const checkLimit = (name: string, v: number): void => checkBound(name, v, BOUNDS.planLimit);

export function checkLimits({ plan, rpm, rpd, tpd }: KeyLimits): void {
  if (!PLANS.includes(plan)) throw new Error(`plan must be one of ${PLANS.join(", ")}`);
  if (rpm != null) checkLimit("rpm", rpm);
  if (rpd != null) checkLimit("rpd", rpd);
  if (tpd != null) checkLimit("tpd", tpd);
  if (plan === "enterprise" && (rpm == null || rpd == null)) {
    throw new Error("an enterprise key needs its own --rpm and --rpd");
  }
}

// Which limits apply to a key (its own, else its plan's) is resolved inside the gate's statement: ratelimit/admit.ts.
