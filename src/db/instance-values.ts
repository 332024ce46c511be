/**
 * `instance_secrets`: named values every instance of one store shares — the list cursor's
 * signing key, and marks of one-time work (the sample seeded, a re-index done). This module is
 * the table's one writer; the first instance to write a name wins and the others read it
 * (`INSERT … ON CONFLICT DO NOTHING`), so concurrent starts agree without a check-then-write.
 */
import { eq } from "drizzle-orm";
import type { Db } from "./client.ts";
import { instanceSecrets } from "./schema.ts";

/** The value under `name`: `fresh` if this call stored it first, else the one already stored. */
export async function sharedValue(db: Db, name: string, fresh: string): Promise<string> {
  await db.insert(instanceSecrets).values({ name, value: fresh }).onConflictDoNothing();
  const [row] = await db.select().from(instanceSecrets).where(eq(instanceSecrets.name, name));
  return row!.value;
}

/** Records the mark `name` (now); true for the one caller that recorded it first. */
export async function claimMark(db: Db, name: string): Promise<boolean> {
  const claimed = await db
    .insert(instanceSecrets)
    .values({ name, value: new Date().toISOString() })
    .onConflictDoNothing()
    .returning({ name: instanceSecrets.name });
  return claimed.length > 0;
}

/** Whether the mark `name` was recorded. */
export async function hasMark(db: Db, name: string): Promise<boolean> {
  const rows = await db
    .select({ name: instanceSecrets.name })
    .from(instanceSecrets)
    .where(eq(instanceSecrets.name, name));
  return rows.length > 0;
}
