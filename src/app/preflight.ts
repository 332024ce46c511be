/**
 * Which origins a CORS preflight is answered for: `CORS_ORIGINS`' when they allow the page,
 * else the page's own origin when a live public key allows it and the path is one a widget
 * calls. A preflight carries no key, so this is all it can be answered on; the request itself is
 * then checked against its own key's origins (auth/visitors.ts).
 */
import { publicKeyAllows } from "../auth/index.ts";
import { type CorsOrigins, originAllowed } from "../config/cors-origins.ts";
import type { Db } from "../db/client.ts";
import { urlOf } from "../http/core.ts";

/** What a public key's page calls: its sessions, then its visitors' routes. */
const VISITOR_PATHS = /^\/v1\/(widget|chat|conversations)(\/|$)/;

export const preflightOriginsOf =
  (cors: CorsOrigins | undefined, db: Db) =>
  async (request: Request): Promise<CorsOrigins | undefined> => {
    const origin = request.headers.get("origin")!;
    if (cors && originAllowed(cors, origin)) return cors;
    if (!VISITOR_PATHS.test(urlOf(request).pathname)) return cors;
    // A store that does not answer allows nothing: the browser then refuses, as for any origin.
    return (await publicKeyAllows(db, origin).catch(() => false)) ? [origin] : cors;
  };
