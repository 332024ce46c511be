/** Wire schemas of /keys (validation and OpenAPI), tied to src/contract/keys.ts. */
import { type Static, t } from "elysia";
import * as Wire from "../contract/keys.ts";
import { PLANS } from "../contract/plans.ts";
import { Pagination } from "../http/paging.ts";
import { literals, type Same } from "../http/schema-contract.ts";
import type { ApiKeyListing } from "./keys-admin.ts";

const limit = (name: string) =>
  t.Integer({ minimum: 1, maximum: 2_147_483_647, error: `Invalid field '${name}': an integer from 1 to 2147483647.` });

export const ApiKey = t.Object({
  id: t.String({ description: "key_… identifier" }),
  name: t.String(),
  prefix: t.String({ description: "The secret's first characters, to recognise it." }),
  role: literals(Wire.KEY_ROLES, { description: "`admin` manages everything; `chat` (default) chats and searches." }),
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
});

export const CreatedApiKey = t.Composite([
  ApiKey,
  t.Object({ secret: t.String({ description: "prl_…: shown this once, never stored." }) }),
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

export const CreateKey = t.Object({
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
  role: t.Optional(literals(Wire.KEY_ROLES, { error: "Invalid field 'role': chat or admin." })),
  knowledge_base_ids: t.Optional(kbIds),
  expires_at: t.Optional(expiresAt),
});

export const UpdateKey = t.Object({
  name: t.Optional(CreateKey.properties.name),
  plan: t.Optional(CreateKey.properties.plan),
  rpm: t.Optional(t.Union([limit("rpm"), t.Null()], { description: "null: back to the plan's default." })),
  rpd: t.Optional(t.Union([limit("rpd"), t.Null()], { description: "null: back to the plan's default." })),
  tpd: t.Optional(t.Union([limit("tpd"), t.Null()], { description: "null: no token budget." })),
  role: CreateKey.properties.role,
  knowledge_base_ids: t.Optional(kbIds),
  expires_at: t.Optional(expiresAt),
});

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
});

true satisfies Same<Static<typeof ApiKey>, Wire.ApiKey>;
true satisfies Same<Static<typeof CreatedApiKey>, Wire.CreatedApiKey>;
true satisfies Same<Static<typeof ApiKeyList>, Wire.ApiKeyList>;
