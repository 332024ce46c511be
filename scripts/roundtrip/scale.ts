/**
 * A larger store, made by ingesting the corpus again and again under new knowledge bases until
 * it holds at least `target` passages (no conversations: passages are what makes a store large),
 * then exported from PGlite, imported into PostgreSQL and exported from there: sizes, times and
 * the process's peak RSS while each export runs.
 */
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { rowsOf } from "../../src/db/rows.ts";
import { createKnowledgeBase, ingestDocuments, type KnowledgeDoc, migrate, type Store } from "../../src/mod.ts";
import { type Exported, exportTo, importFrom, measured, type OwnStore, pgliteIn, postgresDb } from "./stores.ts";

export interface ScaleRun {
  copies: number;
  passages: number;
  documents: number;
  ingestMs: number;
  fromPglite: Exported;
  importPostgresMs: number;
  fromPostgres: Exported;
  sameRows: boolean;
}

export const passagesOf = async (store: Store) =>
  Number((await rowsOf<{ n: string }>(store.db, sql`select count(*) as n from chunks`))[0]!.n);

export async function scaleRun(
  docs: KnowledgeDoc[],
  target: number,
  pgAdmin: string,
  dbName: string,
  work: string,
  log: (line: string) => void,
): Promise<ScaleRun> {
  const owned: OwnStore[] = [];
  try {
    const big = await pgliteIn("scale");
    owned.push(big);
    await migrate(big.store);
    let copies = 0;
    let passages = 0;
    const { ms: ingestMs } = await measured(async () => {
      while (passages < target) {
        const kb = await createKnowledgeBase(big.store.db, { name: `copy ${++copies}` });
        await ingestDocuments(big.store.db, docs, { kbId: kb.id });
        passages = await passagesOf(big.store);
        if (copies % 20 === 0) log(`  scale: ${copies} copies, ${passages} passages`);
      }
    });
    log(`  scale: ${passages} passages in ${(ingestMs / 1000).toFixed(1)} s; exporting from PGlite`);
    const fromPglite = await exportTo(big.store, join(work, "scale-pglite.parley.gz"));
    await big.drop();
    owned.pop();
    const pg = await postgresDb(pgAdmin, dbName);
    owned.push(pg);
    log("  scale: importing into PostgreSQL");
    const { ms: importPostgresMs } = await importFrom(pg.store, fromPglite.file);
    log("  scale: exporting from PostgreSQL");
    const fromPostgres = await exportTo(pg.store, join(work, "scale-postgres.parley.gz"));
    return {
      copies,
      passages,
      documents: copies * docs.length,
      ingestMs,
      fromPglite,
      importPostgresMs,
      fromPostgres,
      sameRows: fromPglite.trailer.rows_sha256 === fromPostgres.trailer.rows_sha256,
    };
  } finally {
    for (const own of owned) await own.drop();
  }
}
