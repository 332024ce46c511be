/**
 * The lockout rule: there is always an active admin key. Revoking, demoting or expiring a key
 * is conditional on this SQL, inside the UPDATE itself (never check-then-write).
 */
import { type SQL, sql } from "drizzle-orm";
import { apiKeys } from "../db/schema.ts";

/**
 * True for the row being changed unless it is the last active admin key. The subquery locks
 * every active admin key (FOR UPDATE, always in the same order), so two concurrent requests that
 * each remove one of the last two admins are serialised: the second sees one admin left, refuses.
 */
export const lastAdminGuard = (now: Date): SQL => sql`(${apiKeys.role} <> 'admin' or (
  select count(*) from (
    select 1 from ${apiKeys} o
    where o.role = 'admin' and o.revoked_at is null
      and (o.expires_at is null or o.expires_at > ${now.toISOString()}::timestamptz)
    order by o.id for update
  ) admins
) > 1)`;
