/**
 * The sources and their syncs in the database: this folder is the one writer of `sources` and
 * `source_syncs` (source_pages: page-store.ts). Every statement names the source's knowledge
 * base or is conditional on the sync still running, so two instances never both act on one.
 *
 * The sync protocol: a sync is claimed by an INSERT that the partial unique index
 * `source_syncs_running_uq` lets succeed once per source (a second claim, from any instance,
 * finds the running one instead). Its instance renews `lease_until` while it runs and ends it
 * with a conditional UPDATE (`status = 'running'`); a sync whose lease passed is ended as failed
 * by whichever instance's scheduler sees it first (`expireSyncs`), and a renewal that finds it
 * no longer running stops the crawl.
 */
import { and, desc, eq, lte, sql } from "drizzle-orm";
import type { SyncPages, SyncStatus, SyncTrigger } from "../contract/sources.ts";
import type { Db } from "../db/client.ts";
import { SQLSTATE, sqlState } from "../db/errors.ts";
import { sourceSyncs, sources } from "../db/schema.ts";
import { newId } from "../primitives.ts";

export type SourceRow = typeof sources.$inferSelect;
export type SyncRow = typeof sourceSyncs.$inferSelect;
export type NewSource = Omit<SourceRow, "id" | "createdAt" | "nextSyncAt">;

export const NO_PAGES: SyncPages = {
  discovered: 0,
  fetched: 0,
  not_modified: 0,
  created: 0,
  updated: 0,
  unchanged: 0,
  deleted: 0,
  skipped: 0,
  failed: 0,
};

const HOUR_MS = 3_600_000;
const nextSync = (hours: number | null, now: Date) => (hours ? new Date(now.getTime() + hours * HOUR_MS) : null);

/** Inserts a source, or null when the knowledge base already has one with this URL. */
export async function insertSource(db: Db, input: NewSource, now: Date): Promise<SourceRow | null> {
  const [row] = await db
    .insert(sources)
    .values({ ...input, id: newId("src"), createdAt: now, nextSyncAt: nextSync(input.refreshIntervalHours, now) })
    .onConflictDoNothing({ target: [sources.kbId, sources.url] })
    .returning();
  return row ?? null;
}

export async function findSource(db: Db, kbId: string, id: string): Promise<SourceRow | undefined> {
  const [row] = await db
    .select()
    .from(sources)
    .where(and(eq(sources.kbId, kbId), eq(sources.id, id)));
  return row;
}

export async function sourcesOf(db: Db, kbId: string): Promise<SourceRow[]> {
  return db.select().from(sources).where(eq(sources.kbId, kbId)).orderBy(desc(sources.id));
}

/** Deletes the source (its syncs, pages and documents by foreign key); false when there was none. */
export async function removeSource(db: Db, kbId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(sources)
    .where(and(eq(sources.kbId, kbId), eq(sources.id, id)))
    .returning({ id: sources.id });
  return rows.length > 0;
}

/** The latest sync of each of these sources. */
export async function lastSyncs(db: Db, sourceIds: readonly string[]): Promise<Map<string, SyncRow>> {
  if (!sourceIds.length) return new Map();
  const rows = await db
    .selectDistinctOn([sourceSyncs.sourceId])
    .from(sourceSyncs)
    .where(sql`${sourceSyncs.sourceId} in ${sourceIds}`)
    .orderBy(sourceSyncs.sourceId, desc(sourceSyncs.id));
  return new Map(rows.map((r) => [r.sourceId, r]));
}

export async function findSync(db: Db, id: string): Promise<SyncRow | undefined> {
  const [row] = await db.select().from(sourceSyncs).where(eq(sourceSyncs.id, id));
  return row;
}

/**
 * Starts a sync of the source, or finds the one running (`started: false`). Undefined when the
 * source is gone. The running one may be another instance's: it is the same for the client.
 */
export async function claimSync(
  db: Db,
  sourceId: string,
  trigger: SyncTrigger,
  now: Date,
  leaseMs: number,
): Promise<{ sync: SyncRow; started: boolean } | undefined> {
  try {
    const [started] = await db
      .insert(sourceSyncs)
      .values({
        id: newId("sync"),
        sourceId,
        status: "running",
        trigger,
        startedAt: now,
        leaseUntil: new Date(now.getTime() + leaseMs),
        pages: NO_PAGES as unknown as Record<string, number>,
      })
      .onConflictDoNothing({ target: sourceSyncs.sourceId, where: sql`status = 'running'` })
      .returning();
    if (started) return { sync: started, started: true };
  } catch (error) {
    // The source was deleted between the request's read and this claim (a foreign-key violation).
    if (sqlState(error) === SQLSTATE.foreignKeyViolation) return undefined;
    throw error;
  }
  const [running] = await db
    .select()
    .from(sourceSyncs)
    .where(and(eq(sourceSyncs.sourceId, sourceId), eq(sourceSyncs.status, "running")));
  // It ended between the two statements: claim again (it is no longer running).
  return running ? { sync: running, started: false } : claimSync(db, sourceId, trigger, now, leaseMs);
}

/** Renews the lease and records progress; false when the sync is no longer running (stop). */
export async function renewSync(
  db: Db,
  p: { id: string; now: Date; leaseMs: number; pages: SyncPages; errors: { url: string; reason: string }[] },
): Promise<boolean> {
  const rows = await db
    .update(sourceSyncs)
    .set({
      leaseUntil: new Date(p.now.getTime() + p.leaseMs),
      pages: p.pages as unknown as Record<string, number>,
      errors: p.errors,
    })
    .where(and(eq(sourceSyncs.id, p.id), eq(sourceSyncs.status, "running")))
    .returning({ id: sourceSyncs.id });
  return rows.length > 0;
}

/** Ends a running sync; false when it had already ended (expired by another instance, say). */
export async function finishSync(
  db: Db,
  p: {
    id: string;
    status: Exclude<SyncStatus, "running">;
    now: Date;
    pages: SyncPages;
    errors: { url: string; reason: string }[];
    error: string | null;
  },
): Promise<boolean> {
  const rows = await db
    .update(sourceSyncs)
    .set({
      status: p.status,
      finishedAt: p.now,
      pages: p.pages as unknown as Record<string, number>,
      errors: p.errors,
      error: p.error,
    })
    .where(and(eq(sourceSyncs.id, p.id), eq(sourceSyncs.status, "running")))
    .returning({ id: sourceSyncs.id });
  return rows.length > 0;
}

/** Ends as failed every running sync whose lease passed (its instance died). */
export async function expireSyncs(db: Db, now: Date): Promise<string[]> {
  const rows = await db
    .update(sourceSyncs)
    .set({ status: "failed", finishedAt: now, error: "The instance running this sync stopped before it ended." })
    .where(and(eq(sourceSyncs.status, "running"), lte(sourceSyncs.leaseUntil, now)))
    .returning({ id: sourceSyncs.id });
  return rows.map((r) => r.id);
}

/**
 * Takes one source whose scheduled sync is due, moving its next sync a refresh interval ahead in
 * the same statement (SKIP LOCKED: instances looking at once take different sources).
 */
export async function takeDueSource(db: Db, now: Date): Promise<SourceRow | undefined> {
  const [row] = await db
    .update(sources)
    .set({
      nextSyncAt: sql`${now.toISOString()}::timestamptz + make_interval(hours => ${sources.refreshIntervalHours})`,
    })
    .where(
      sql`${sources.id} = (select id from sources where next_sync_at <= ${now.toISOString()}::timestamptz
        and refresh_interval_hours is not null order by next_sync_at limit 1 for update skip locked)`,
    )
    .returning();
  return row;
}
