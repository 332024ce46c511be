/**
 * The lockout rule: there is always an active admin key, and while one of them never expires,
 * one that never expires stays (else the expiring ones would lock everyone out once they lapse).
 * Revoking, demoting or expiring a key is conditional on this SQL, inside the UPDATE itself
 * (never check-then-write).
 */
import { type SQL, sql } from "drizzle-orm";
import { apiKeys } from "../db/schema.ts";

/**
 * True for the row being changed unless removing it breaks the rule: an admin key without an
 * expiry needs another active one without an expiry; an admin key with a future expiry needs
 * another active admin key; an admin key already expired is no admin any more and may go. The
 * subquery locks every active admin key (FOR UPDATE, always in the same order), so two
 * concurrent requests that each remove one of the last two are serialised: the second sees the
 * first's change and refuses.
 */
export const lastAdminGuard = (now: Date): SQL => {
  const at = sql`${now.toISOString()}::timestamptz`;
  return sql`(${apiKeys.role} <> 'admin' or ${apiKeys.expiresAt} <= ${at} or (
  select count(*) filter (where a.id <> ${apiKeys.id} and (a.expires_at is null or ${apiKeys.expiresAt} is not null))
  from (
    select o.id, o.expires_at from ${apiKeys} o
    where o.role = 'admin' and o.revoked_at is null and (o.expires_at is null or o.expires_at > ${at})
    order by o.id for update
  ) a
) > 0)`;
};
