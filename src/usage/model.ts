/** Wire schemas of GET /v1/usage (validation and OpenAPI from one source). */
import { type Static, t } from "elysia";
import type * as Wire from "../contract/operate.ts";
import type { Same } from "../http/schema-contract.ts";

const counts = {
  requests: t.Integer({ description: "Requests the limiter admitted (any route)." }),
  chat_turns: t.Integer({ description: "Replies that ended (completed, failed or stopped), on the day they started." }),
  input_tokens: t.Integer({ description: "Model input tokens of those replies, as the provider reported them." }),
  output_tokens: t.Integer({ description: "Model output tokens of those replies." }),
  refusals: t.Integer({ description: "Requests refused with 429 (minute, day or token budget)." }),
};

export const UsageDay = t.Object({ date: t.String({ format: "date", description: "UTC day" }), ...counts });
export const UsageTotals = t.Object(counts);
export const KeyUsage = t.Object({
  key_id: t.String(),
  key_name: t.String(),
  days: t.Array(UsageDay),
  totals: UsageTotals,
});
export const UsageReport = t.Object({
  object: t.Literal("usage"),
  from: t.String({ format: "date" }),
  to: t.String({ format: "date" }),
  data: t.Array(KeyUsage, { description: "One entry per key; one for the caller unless an admin asked for more." }),
});

const DATE = "a UTC date as YYYY-MM-DD";
export const UsageQuery = t.Object({
  from: t.Optional(t.String({ description: `First day, ${DATE}; default 29 days before \`to\`.` })),
  to: t.Optional(t.String({ description: `Last day (inclusive), ${DATE}; default today.` })),
  key_id: t.Optional(
    t.String({ description: "Admins only: another key's id, or `all` for every key with usage in the range." }),
  ),
});

true satisfies Same<Static<typeof UsageDay>, Wire.UsageDay>;
true satisfies Same<Static<typeof UsageReport>, Wire.UsageReport>;
