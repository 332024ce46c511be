/**
 * The one admin check of the operator routes (usage of other keys, the feedback list). Keys
 * gain roles with the knowledge-API issue (19); until its guard is here, an admin is a key
 * whose row says `role: "admin"`, and every other key gets 403 permission_denied.
 */
import { ApiError } from "../http/errors.ts";

export const isAdmin = (apiKey: object) => (apiKey as { role?: unknown }).role === "admin";

export function requireAdmin(apiKey: object, what: string): void {
  if (!isAdmin(apiKey)) throw new ApiError("permission_denied", `Only an admin key may ${what}.`);
}
