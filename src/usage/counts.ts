/**
 * usage/ owns `usage_daily`. Most of its counting happens in the database, inside statements
 * requests already run, through triggers (drizzle/0017, 0018):
 * - `rate_limits_count_request` (AFTER INSERT OR UPDATE ON rate_limits): an admitted request
 *   adds 1 to `requests`; `rate_limits_close_day` closes the day a key's minute log rolls over;
 * - `messages_count_turn` (AFTER UPDATE OF status ON messages): a reply that ends adds 1 to
 *   `turns` and its input and output tokens.
 * Each connection adds to its own shard (`usageShard`), so concurrent requests of one key do
 * not queue on one row lock. The one count no trigger sees is a refused request (it writes
 * nothing else): the gate's statement takes `refusalCount` below as its part (ratelimit/admit.ts).
 */
import { and, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { apiKeys, usageDaily, usageShard } from "../db/schema.ts";
import type { RefusalCount } from "../ratelimit/index.ts";

const onDay = { target: [usageDaily.keyId, usageDaily.day, usageDaily.shard] };

export const refusalCount: RefusalCount = {
  /** One refusal for the key `keyFilter` selects, as a data-modifying CTE of the gate's read. */
  inStatement: (db: Db, keyFilter: SQL, day: SQL) =>
    db.$with("refusal").as(
      db
        .insert(usageDaily)
        .select(sql`select ${apiKeys.id}, ${day}, 0, 0, 0, 0, 1, ${usageShard} from ${apiKeys} where ${and(keyFilter)}`)
        .onConflictDoUpdate({ ...onDay, set: { refusals: sql`${usageDaily.refusals} + 1` } })
        .returning({ keyId: usageDaily.keyId }),
    ),
  /** One refusal of `keyId` on `day`, decided without the gate's statement (the limiter off). */
  async one(db: Db, keyId: string, day: string): Promise<void> {
    await db
      .insert(usageDaily)
      .values({ keyId, day, refusals: 1, shard: usageShard })
      .onConflictDoUpdate({ ...onDay, set: { refusals: sql`${usageDaily.refusals} + 1` } });
  },
};
