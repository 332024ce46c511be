/** The sample documents go into the `default` knowledge base of a new store, once. */
import { eq } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { claimMark } from "../db/instance-values.ts";
import { DEFAULT_KB_ID, knowledgeBases } from "../db/schema.ts";
import { countDocuments, ingestDocuments } from "./ingest.ts";
import { SAMPLE_DOCS } from "./sample.ts";

/**
 * Seeds the sample into `default` when the store has no documents and was never seeded: the
 * first caller records `sample_seeded` (insert … on conflict do nothing, so of several instances
 * starting together one seeds), and a store whose sample was deleted stays without it. Returns
 * how many documents were stored.
 */
export async function seedSampleOnce(db: Db): Promise<number> {
  if ((await countDocuments(db)) > 0) return 0;
  const [kb] = await db
    .select({ id: knowledgeBases.id })
    .from(knowledgeBases)
    .where(eq(knowledgeBases.id, DEFAULT_KB_ID));
  if (!kb) return 0;
  if (!(await claimMark(db, "sample_seeded"))) return 0;
  return ingestDocuments(db, SAMPLE_DOCS, { kbId: DEFAULT_KB_ID });
}
