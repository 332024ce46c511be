/**
 * Where passage vectors live: `chunk_embeddings`, one row per passage (removed with it), in a
 * pgvector column whose length is the configured model's, with an HNSW index (cosine).
 *
 * Not a migration: the column's length comes from EMBEDDINGS_DIMENSIONS and the `vector`
 * extension may be missing, while migrations must run on every PostgreSQL. `prepareVectorStore`
 * runs at start when embeddings are configured: it creates the extension (refusing to start,
 * naming it, when the database has none — never a silent fallback to BM25F alone), then the
 * table and index. A different length than the table's (a new model) drops the table: vectors
 * of another model are useless, and `backfillEmbeddings` rebuilds them.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";

export class MissingVectorExtension extends Error {
  constructor(cause: unknown) {
    super(
      "EMBEDDINGS_PROVIDER is set, but the database has no `vector` extension (pgvector): install pgvector on this PostgreSQL server (e.g. the postgresql-NN-pgvector package) and start again, or unset EMBEDDINGS_PROVIDER to search with BM25F alone",
      { cause },
    );
    this.name = "MissingVectorExtension";
  }
}

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Record<string, unknown>[];

export async function prepareVectorStore(db: Db, dimensions: number): Promise<{ recreated: boolean }> {
  if (!Number.isSafeInteger(dimensions) || dimensions < 1 || dimensions > 2000)
    throw new Error(`EMBEDDINGS_DIMENSIONS must be an integer from 1 to 2000 (HNSW's limit), got ${dimensions}`);
  try {
    await db.execute(sql`create extension if not exists vector`);
  } catch (error) {
    throw new MissingVectorExtension(error);
  }
  const [current] = rowsOf(
    await db.execute(sql`select a.atttypmod as dims from pg_attribute a
      where a.attrelid = to_regclass('chunk_embeddings') and a.attname = 'embedding'`),
  );
  let recreated = false;
  if (current && Number(current.dims) !== dimensions) {
    await db.execute(sql`drop table chunk_embeddings`);
    recreated = true;
  }
  await db.execute(
    sql.raw(`create table if not exists chunk_embeddings (
      chunk_id text primary key references chunks(id) on delete cascade,
      model text not null,
      embedding vector(${dimensions}) not null
    )`),
  );
  await db.execute(
    sql`create index if not exists chunk_embeddings_hnsw on chunk_embeddings using hnsw (embedding vector_cosine_ops)`,
  );
  // Nearest passages of one knowledge base. The HNSW index yields its nearest vectors and the
  // knowledge base filters them; pgvector 0.8+ keeps scanning the index until `lim` passages
  // pass the filter (iterative scan), where an older one would stop after ef_search vectors and
  // return too few for a knowledge base that holds a small share of the store.
  const [ext] = rowsOf(await db.execute(sql`select extversion from pg_extension where extname = 'vector'`));
  const [major = 0, minor = 0] = String(ext?.extversion ?? "0")
    .split(".")
    .map(Number);
  const iterative = major > 0 || minor >= 8 ? "set hnsw.iterative_scan = relaxed_order" : "";
  await db.execute(
    sql.raw(`create or replace function knowledge_nearest_in(v vector, m text, kb text, lim integer)
      returns table (chunk_id text, distance float8) language sql stable ${iterative}
      as $$ select e.chunk_id, e.embedding <=> v from chunk_embeddings e join chunks c on c.id = e.chunk_id
        where e.model = m and c.kb_id = kb order by e.embedding <=> v limit lim $$`),
  );
  return { recreated };
}

/** pgvector's text form of a vector. */
export const vectorLiteral = (v: number[]) => `[${v.join(",")}]`;

/** Stores vectors for passages (replacing another model's). */
export async function saveEmbeddings(db: Db, model: string, rows: { chunkId: string; vector: number[] }[]) {
  if (rows.length === 0) return;
  const values = sql.join(
    rows.map((r) => sql`(${r.chunkId}, ${model}, ${vectorLiteral(r.vector)}::vector)`),
    sql`, `,
  );
  // A passage deleted since it was read is skipped (the join), not an error.
  await db.execute(sql`insert into chunk_embeddings (chunk_id, model, embedding)
    select v.chunk_id, v.model, v.embedding from (values ${values}) as v(chunk_id, model, embedding)
    join chunks c on c.id = v.chunk_id
    on conflict (chunk_id) do update set model = excluded.model, embedding = excluded.embedding`);
}
