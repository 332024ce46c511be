/**
 * User tokens: a site that signs its users in gives each a JWT its own server signs with the
 * public key's secret (HS256), so the visitor id is the site's user id (`sub`) and a user keeps
 * their conversations across devices. Verified with jose (only HS256; `exp` required and at most
 * a day ahead, so a leaked token does not live on).
 */
import { errors, jwtVerify } from "jose";
import { ApiError } from "../http/errors.ts";

export const USER_TOKEN_MAX_LIFETIME_S = 86_400;
/** A visitor id is stored with each conversation and counted under: bounded and printable. */
const SUBJECT = /^[\x21-\x7e]{1,200}$/;

const refused = (why: string) =>
  new ApiError("unauthorized", `Invalid user_token: ${why}`, {
    param: "user_token",
    headers: { "www-authenticate": 'Bearer realm="parley"' },
  });

/** The user token's subject and expiry (ms), or a 401 saying what is wrong with it. */
export async function verifyUserToken(
  secret: string,
  token: string,
  now: number,
): Promise<{ subject: string; expiresAt: number }> {
  let payload: { sub?: unknown; exp?: unknown };
  try {
    ({ payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      algorithms: ["HS256"],
      requiredClaims: ["sub", "exp"],
      currentDate: new Date(now),
    }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw refused("it has expired.");
    if (error instanceof errors.JWSSignatureVerificationFailed)
      throw refused("its signature does not verify with this key's secret.");
    if (error instanceof errors.JOSEAlgNotAllowed) throw refused("only HS256 is accepted.");
    throw refused("it is not an HS256 JWT with `sub` and `exp`.");
  }
  if (typeof payload.sub !== "string" || !SUBJECT.test(payload.sub))
    throw refused("`sub` must be 1–200 printable ASCII characters.");
  const exp = payload.exp as number;
  if (exp - now / 1000 > USER_TOKEN_MAX_LIFETIME_S) throw refused("`exp` may be at most 24 h ahead.");
  return { subject: payload.sub, expiresAt: exp * 1000 };
}
