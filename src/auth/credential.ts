/**
 * How a request names its key: its Bearer secret (`Authorization`), or — only without that header,
 * and only where a route accepts one — the route's own credential (the events route's resume
 * token, conversations/replies.ts). Either way the gate gets the key's stored hash and admits,
 * counts and limits the request as that key's.
 */
import type { Db } from "../db/client.ts";
import { urlOf } from "../http/core.ts";
import { ApiError } from "../http/errors.ts";
import { bearerSecret, hashSecret, keyHashOf } from "./keys.ts";

export const unauthorized = (message: string) =>
  new ApiError("unauthorized", message, { headers: { "www-authenticate": 'Bearer realm="parley"' } });

/**
 * A route's other way to name the request's key, used only when there is no Authorization header:
 * the key's id, or undefined when the request does not use it; throws its own 401 for a bad one.
 * (The events route's `?token=`, conversations/replies.ts.)
 */
export type Credential = (ctx: { request: Request; params: Record<string, string> }) => Promise<string | undefined>;

/** The stored hash of the request's key: its Bearer secret's, else the route's other credential's. */
export async function keyHash(db: Db, ctx: Parameters<Credential>[0], credential?: Credential): Promise<string> {
  const header = ctx.request.headers.get("authorization");
  if (!header) {
    const keyId = await credential?.(ctx);
    if (keyId !== undefined) return (await keyHashOf(db, keyId)) ?? "";
    if (urlOf(ctx.request).searchParams.has("token"))
      throw unauthorized(
        "A resume token is accepted only on the events route of its own reply; send 'Authorization: Bearer <API key>'.",
      );
    throw unauthorized("Missing Authorization header; send 'Authorization: Bearer <API key>'.");
  }
  const secret = bearerSecret(header);
  if (!secret) throw unauthorized("Malformed Authorization header; expected 'Bearer prl_…'.");
  return hashSecret(secret);
}
