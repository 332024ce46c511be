/**
 * Applies the embedded drizzle-kit migrations with drizzle's own migrator logic, under an
 * advisory lock so that instances starting together apply each migration once.
 */
import type { Store } from "./client.ts";
import { migrations } from "./migrations.gen.ts";

const MIGRATION_LOCK = 0x5041524c; // "PARL"

/** Brings the store's schema up to date; safe to call from many instances at once. */
export async function migrate(store: Store): Promise<void> {
  await store.withLock(MIGRATION_LOCK, async (db) => {
    // `dialect.migrate` is what drizzle-orm's file-based migrators call after reading the
    // folder; we hand it the same records, read from the bundle instead of the disk.
    const internal = db as unknown as {
      dialect: { migrate(m: unknown, session: unknown, config: object): Promise<void> };
      session: unknown;
    };
    await internal.dialect.migrate(migrations, internal.session, {});
  });
}
