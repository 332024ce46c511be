/** The plans an API key can have; enterprise keys carry their own limits. */
export const PLANS = ["free", "pro", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];
