/** Which limits apply to a key: its own (enterprise, or overrides) or its plan's defaults. */
import type { ApiKeyInfo } from "../auth/service.ts";
import type { ParleyOptions, PlanLimits } from "../config/options.ts";

export function limitsFor(key: Pick<ApiKeyInfo, "plan" | "rpm" | "rpd">, plans: ParleyOptions["plans"]): PlanLimits {
  const base = key.plan === "enterprise" ? undefined : plans[key.plan];
  // An enterprise key without limits is refused at creation; the fallback only guards old rows.
  return { rpm: key.rpm ?? base?.rpm ?? plans.pro.rpm, rpd: key.rpd ?? base?.rpd ?? plans.pro.rpd };
}
