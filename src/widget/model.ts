/** Wire schemas of /widget (validation and OpenAPI), tied to src/contract/widget.ts. */
import { type Static, t } from "elysia";
import type * as Wire from "../contract/widget.ts";
import type { Same } from "../http/schema-contract.ts";

export const WidgetSessionRequest = t.Object(
  {
    proof: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 4096,
        description:
          "A solved challenge (base64 of its JSON: algorithm, challenge, number, salt, signature), for a key that requires proof of work.",
        error: "Invalid field 'proof': the base64 JSON of a solved challenge.",
      }),
    ),
    user_token: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 8192,
        description:
          "An HS256 JWT the site's server signed with the key's user_token_secret (`sub`: the visitor id; `exp` ≤ 24 h).",
        error: "Invalid field 'user_token': a JWT string.",
      }),
    ),
  },
  {
    // An anonymous visitor's first session: no proof, no user token.
    examples: [{}],
  },
);

export const WidgetSession = t.Object({
  token: t.String({ description: "pvt_…: the visitor's Bearer credential, from the page's origin, until expires_at." }),
  visitor_id: t.String({ description: "vis_… (anonymous) or the user token's `sub`; kept across refreshes." }),
  expires_at: t.String({ format: "date-time" }),
});

export const WidgetChallenge = t.Object({
  algorithm: t.Literal("SHA-256"),
  challenge: t.String(),
  maxnumber: t.Integer(),
  salt: t.String(),
  signature: t.String(),
});

true satisfies Same<Static<typeof WidgetSessionRequest>, Wire.WidgetSessionRequest>;
true satisfies Same<Static<typeof WidgetSession>, Wire.WidgetSession>;
true satisfies Same<Static<typeof WidgetChallenge>, Wire.WidgetChallenge>;
