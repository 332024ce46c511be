/** API keys and knowledge bases as the admin routes show them (wire form; dates are ISO 8601). */

import type { Plan } from "./plans.ts";
import type { Pagination } from "./resources.ts";

/**
 * `chat` (the default) may chat and search its knowledge bases; `admin` also manages everything;
 * `public` (`pk_…`, may sit in a web page) only opens visitor sessions from its allowed origins.
 */
export const KEY_ROLES = ["chat", "admin", "public"] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

/** A key as listed: never its secret. */
export interface ApiKey {
  id: string;
  name: string;
  /** The first characters of the secret, to tell keys apart. */
  prefix: string;
  role: KeyRole;
  plan: Plan;
  /** Per-key limits; null: the plan's default. */
  rpm: number | null;
  rpd: number | null;
  /** Daily token budget (input + output tokens per UTC day); null: none. */
  tpd: number | null;
  /** The knowledge bases a chat key may use (an admin key may use every one). */
  knowledge_base_ids: string[];
  created_at: string;
  expires_at: string | null;
  /** Updated at most once a minute. */
  last_used_at: string | null;
  revoked_at: string | null;
  /** A public key's settings; null for the other roles. */
  widget: PublicKeySettings | null;
}

/** What a public key allows its visitors (docs/widget.md). */
export interface PublicKeySettings {
  /** Exact origins (scheme://host[:port]) whose pages may open sessions and chat. */
  allowed_origins: string[];
  /** Each visitor's limits (per minute, per UTC day). */
  visitor_rpm: number;
  visitor_rpd: number;
  /** Each client IP's limits over all the key's visitors. */
  ip_rpm: number;
  ip_rpd: number;
  /** Session creation first asks for a solved proof-of-work challenge. */
  require_proof_of_work: boolean;
  /** Sessions are opened only with a user token the site's server signed (HS256 with the key's secret). */
  user_tokens: boolean;
}

/** POST /v1/keys: the key and, this once, its secret. */
export interface CreatedApiKey extends ApiKey {
  secret: string;
}

export interface ApiKeyList {
  data: ApiKey[];
  pagination: Pagination;
}

/** Whether the first admin key can be made with a setup code: `open` (a code awaits), `no_code` (none live: restart a server), `done`. */
export const SETUP_STATES = ["open", "no_code", "done"] as const;
export type SetupState = (typeof SETUP_STATES)[number];

/** GET /v1/setup (no key). */
export interface SetupStatus {
  state: SetupState;
}

/** POST /v1/setup (no key): a live setup code, once, for the first admin key. */
export interface SetupRequest {
  code: string;
  /** The new key's name; default `admin`. */
  name?: string;
}
