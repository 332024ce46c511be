/**
 * A public key's widget settings as given (POST and PATCH /v1/keys, snake case), checked into what
 * is stored: exact origins only (a public key is bound to the pages it may sit in; no wildcard,
 * no path), limits within the plan bounds, and a user-token secret long enough for HS256.
 */
import type { StoredWidgetSettings } from "../db/schema.ts";
import { invalid } from "./key-input.ts";
import { checkLimit } from "./limits.ts";

/** The defaults the wire documents: each visitor 10/min and 200/day, each IP 30/min and 600/day. */
export const VISITOR_DEFAULTS = { visitor_rpm: 10, visitor_rpd: 200, ip_rpm: 30, ip_rpd: 600 } as const;
export const MAX_ORIGINS = 100;
/** HS256 wants a key at least as long as its hash (32 bytes); a secret is also bounded above. */
export const USER_TOKEN_SECRET_CHARS = { min: 32, max: 512 } as const;

/** The widget fields of a key body; undefined: not given (create: default; patch: unchanged). */
export interface WidgetFields {
  allowed_origins?: string[];
  visitor_rpm?: number;
  visitor_rpd?: number;
  ip_rpm?: number;
  ip_rpd?: number;
  require_proof_of_work?: boolean;
  /** null (patch): remove it, back to anonymous visitors. */
  user_token_secret?: string | null;
}

export const WIDGET_FIELDS = [
  "allowed_origins",
  "visitor_rpm",
  "visitor_rpd",
  "ip_rpm",
  "ip_rpd",
  "require_proof_of_work",
  "user_token_secret",
] as const satisfies readonly (keyof WidgetFields)[];

/** The widget fields given, by name: a key of another role may not take any. */
export const givenWidgetFields = (body: WidgetFields) => WIDGET_FIELDS.filter((f) => body[f] !== undefined);

/** One origin as browsers send it: scheme://host[:port], lower case, no path, no wildcard. */
export function checkOrigin(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {}
  const exact = raw.replace(/\/$/, "");
  if (!url || !/^https?:$/.test(url.protocol) || url.origin !== exact.toLowerCase() || raw.includes("*"))
    throw invalid(
      "allowed_origins",
      `allowed_origins: '${raw.slice(0, 200)}' is not an exact origin (scheme://host[:port], http or https, no path or wildcard), e.g. https://docs.example.com.`,
    );
  return url.origin;
}

export function checkOrigins(origins: string[]): string[] {
  if (origins.length === 0)
    throw invalid("allowed_origins", "allowed_origins must list at least one origin (e.g. https://docs.example.com).");
  if (origins.length > MAX_ORIGINS)
    throw invalid("allowed_origins", `allowed_origins may list at most ${MAX_ORIGINS} origins.`);
  return [...new Set(origins.map(checkOrigin))];
}

function limitOk(name: keyof typeof VISITOR_DEFAULTS, value: number): number {
  try {
    checkLimit(name, value);
  } catch (error) {
    throw invalid(name, (error as Error).message);
  }
  return value;
}

export function checkUserTokenSecret(secret: string | null): string | null {
  if (secret === null) return null;
  const { min, max } = USER_TOKEN_SECRET_CHARS;
  if (secret.length < min || secret.length > max || /\s/.test(secret))
    throw invalid("user_token_secret", `user_token_secret must be ${min}–${max} characters without spaces.`);
  return secret;
}

/** The given settings, checked: all of them for a new key (the defaults fill in), else only those given. */
export function widgetSettings(body: WidgetFields, creating: boolean): Partial<StoredWidgetSettings> {
  if (creating && body.allowed_origins === undefined)
    throw invalid("allowed_origins", "A public key needs allowed_origins: the exact origins of the pages it sits in.");
  const limit = (name: keyof typeof VISITOR_DEFAULTS) =>
    body[name] === undefined
      ? creating
        ? { [name]: VISITOR_DEFAULTS[name] }
        : {}
      : { [name]: limitOk(name, body[name]) };
  return {
    ...(body.allowed_origins ? { allowed_origins: checkOrigins(body.allowed_origins) } : {}),
    ...limit("visitor_rpm"),
    ...limit("visitor_rpd"),
    ...limit("ip_rpm"),
    ...limit("ip_rpd"),
    ...(body.require_proof_of_work !== undefined || creating
      ? { require_proof_of_work: body.require_proof_of_work ?? false }
      : {}),
  };
}

/**
 * The widget columns of a key being created (`current` undefined) or changed: for a public key,
 * its settings (whole when created; the fields given, merged into the stored ones in the UPDATE
 * itself, when changed) and user-token secret; nothing for the other roles, which take no widget
 * field. A key's role never changes to or from `public` (its secret's form and its visitors depend on it).
 */
export function widgetColumns(
  role: { next: string; current?: string },
  body: WidgetFields,
): { widget?: Partial<StoredWidgetSettings>; userTokenSecret?: string | null } {
  if (role.current !== undefined && (role.current === "public") !== (role.next === "public"))
    throw invalid("role", "A key's role cannot change to or from 'public': create a public key instead.");
  const given = givenWidgetFields(body);
  if (role.next !== "public") {
    if (given.length > 0) throw invalid(given[0]!, `${given[0]} applies to public keys only (role: "public").`);
    return {};
  }
  return {
    widget: widgetSettings(body, role.current === undefined),
    ...(body.user_token_secret !== undefined ? { userTokenSecret: checkUserTokenSecret(body.user_token_secret) } : {}),
  };
}
