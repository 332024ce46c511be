/** Wire schemas of /keys (validation and OpenAPI), tied to src/contract/keys.ts. */
import { type Static, t } from "elysia";
import * as Wire from "../contract/keys.ts";
import { PLANS } from "../contract/plans.ts";
import { Pagination } from "../http/paging.ts";
import { literals, type Same } from "../http/schema-contract.ts";
import type { ApiKeyListing } from "./keys-admin.ts";
import { MAX_ORIGINS, USER_TOKEN_SECRET_CHARS, VISITOR_DEFAULTS } from "./public-key-input.ts";

const limit = (name: string) =>
  t.Integer({ minimum: 1, maximum: 2_147_483_647, error: `Invalid field '${name}': an integer from 1 to 2147483647.` });

const PublicKeySettings = t.Object(
  {
    allowed_origins: t.Array(t.String(), { description: "Exact origins whose pages may open visitor sessions." }),
    visitor_rpm: t.Integer({ description: "Each visitor's requests per minute." }),
    visitor_rpd: t.Integer({ description: "Each visitor's requests per UTC day." }),
    ip_rpm: t.Integer({ description: "Each client IP's requests per minute, over all visitors." }),
    ip_rpd: t.Integer({ description: "Each client IP's requests per UTC day, over all visitors." }),
    require_proof_of_work: t.Boolean({ description: "Sessions first need a solved proof-of-work challenge." }),
    user_tokens: t.Boolean({
      description: "Sessions need a user token the site signed (HS256 with the key's secret).",
    }),
  },
  { description: "What a public key lets its visitors do (docs/widget.md)." },
);

export const ApiKey = t.Object({
  id: t.String({ description: "key_… identifier" }),
  name: t.String(),
  prefix: t.String({ description: "The secret's first characters, to recognise it." }),
  role: literals(Wire.KEY_ROLES, {
    description:
      "`admin` manages everything; `chat` (default) chats and searches; `public` (`pk_…`, may sit in a page) opens visitor sessions only.",
  }),
  plan: literals(PLANS),
  rpm: t.Union([t.Integer(), t.Null()], { description: "Per-minute limit; null: the plan's." }),
  rpd: t.Union([t.Integer(), t.Null()], { description: "Per-day limit; null: the plan's." }),
  tpd: t.Union([t.Integer(), t.Null()], { description: "Daily token budget (input + output, UTC day); null: none." }),
  knowledge_base_ids: t.Array(t.String(), {
    description: "Knowledge bases a chat key may use (an admin key may use every one).",
  }),
  created_at: t.String({ format: "date-time" }),
  expires_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  last_used_at: t.Union([t.String({ format: "date-time" }), t.Null()], {
    description: "Updated at most once a minute.",
  }),
  revoked_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  widget: t.Union([PublicKeySettings, t.Null()], { description: "A public key's settings; null for the other roles." }),
});

export const CreatedApiKey = t.Composite([
  ApiKey,
  t.Object({
    secret: t.String({
      description: "prl_…: shown this once, never stored; pk_… for a public key (its `prefix` is all of it).",
    }),
  }),
]);

export const ApiKeyList = t.Object({ data: t.Array(ApiKey), pagination: Pagination });

const expiresAt = t.Union([t.String({ format: "date-time" }), t.Null()], {
  examples: [null],
  description: "When the key stops working (401 `key_expired`); null: never.",
  error: "Invalid field 'expires_at': an RFC 3339 date-time in the future, or null.",
});
const kbIds = t.Array(t.String(), {
  maxItems: 1000,
  examples: [["kb_01m85g5npgfzrtbs7dcm30btjf"]],
  description: "Knowledge bases the key may use (kb_… ids). Default: the one named `default`.",
  error: "Invalid field 'knowledge_base_ids': an array of knowledge base ids.",
});

const visitorLimit = (name: string, fallback: number, what: string) =>
  t.Optional(
    t.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      description: `Public keys: ${what} (default ${fallback}).`,
      error: `Invalid field '${name}': an integer from 1 to 2147483647.`,
    }),
  );
/** The widget fields of a public key's create or change body. */
const widgetFields = {
  allowed_origins: t.Optional(
    t.Array(t.String({ maxLength: 300 }), {
      maxItems: MAX_ORIGINS,
      examples: [["https://docs.example.com"]],
      description: "Public keys (required): the exact origins (scheme://host[:port]) of the pages the key sits in.",
      error: "Invalid field 'allowed_origins': an array of origins such as https://docs.example.com.",
    }),
  ),
  visitor_rpm: visitorLimit("visitor_rpm", VISITOR_DEFAULTS.visitor_rpm, "each visitor's requests per minute"),
  visitor_rpd: visitorLimit("visitor_rpd", VISITOR_DEFAULTS.visitor_rpd, "each visitor's requests per UTC day"),
  ip_rpm: visitorLimit("ip_rpm", VISITOR_DEFAULTS.ip_rpm, "each client IP's requests per minute"),
  ip_rpd: visitorLimit("ip_rpd", VISITOR_DEFAULTS.ip_rpd, "each client IP's requests per UTC day"),
  require_proof_of_work: t.Optional(
    t.Boolean({
      description: "Public keys: sessions first need a solved proof-of-work challenge (default false).",
      error: "Invalid field 'require_proof_of_work': true or false.",
    }),
  ),
};
const userTokenSecret = t.String({
  minLength: USER_TOKEN_SECRET_CHARS.min,
  maxLength: USER_TOKEN_SECRET_CHARS.max,
  description:
    "Public keys: sessions then need a `user_token` the site's server signs with this secret (HS256); never shown again.",
  error: `Invalid field 'user_token_secret': ${USER_TOKEN_SECRET_CHARS.min}–${USER_TOKEN_SECRET_CHARS.max} characters.`,
});

export const CreateKey = t.Object(
  {
    name: t.String({
      minLength: 1,
      maxLength: 200,
      examples: ["my-app"],
      error: "Invalid field 'name': 1–200 characters.",
    }),
    plan: literals(PLANS, { error: `Invalid field 'plan': one of ${PLANS.join(", ")}.` }),
    rpm: t.Optional(limit("rpm")),
    rpd: t.Optional(limit("rpd")),
    tpd: t.Optional(limit("tpd")),
    role: t.Optional(literals(Wire.KEY_ROLES, { error: "Invalid field 'role': chat, admin or public." })),
    knowledge_base_ids: t.Optional(kbIds),
    expires_at: t.Optional(expiresAt),
    ...widgetFields,
    user_token_secret: t.Optional(userTokenSecret),
  },
  {
    // One whole example: a chat key (the widget fields apply to public keys only).
    examples: [{ name: "my-app", plan: "pro", role: "chat", knowledge_base_ids: ["kb_01m85g5npgfzrtbs7dcm30btjf"] }],
  },
);

export const UpdateKey = t.Object(
  {
    name: t.Optional(CreateKey.properties.name),
    plan: t.Optional(CreateKey.properties.plan),
    rpm: t.Optional(t.Union([limit("rpm"), t.Null()], { description: "null: back to the plan's default." })),
    rpd: t.Optional(t.Union([limit("rpd"), t.Null()], { description: "null: back to the plan's default." })),
    tpd: t.Optional(t.Union([limit("tpd"), t.Null()], { description: "null: no token budget." })),
    role: CreateKey.properties.role,
    knowledge_base_ids: t.Optional(kbIds),
    expires_at: t.Optional(expiresAt),
    ...widgetFields,
    user_token_secret: t.Optional(
      t.Union([userTokenSecret, t.Null()], { description: "null: anonymous visitors again." }),
    ),
  },
  {
    examples: [{ name: "my-app", plan: "pro" }],
  },
);

export const KeyParams = t.Object({
  id: t.String({ description: "key_… identifier", examples: ["key_01jd5x8r7mf6sb1b2k3n4p5q6r"] }),
});

/** A listing in wire form. */
export const toApiKey = (k: ApiKeyListing): Wire.ApiKey => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  role: k.role,
  plan: k.plan,
  rpm: k.rpm,
  rpd: k.rpd,
  tpd: k.tpd,
  knowledge_base_ids: k.knowledgeBaseIds ?? [],
  created_at: k.createdAt.toISOString(),
  expires_at: k.expiresAt?.toISOString() ?? null,
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  revoked_at: k.revokedAt?.toISOString() ?? null,
  widget: k.widget ? { ...k.widget, user_tokens: k.userTokens } : null,
});

true satisfies Same<Static<typeof ApiKey>, Wire.ApiKey>;
true satisfies Same<Static<typeof CreatedApiKey>, Wire.CreatedApiKey>;
true satisfies Same<Static<typeof ApiKeyList>, Wire.ApiKeyList>;
