/**
 * Where a question goes: the topic it joins, or a new one. Lexically (vectors.ts: the topics that
 * share its heaviest terms, joined at JOIN_SIMILARITY), and by meaning when hybrid search gives
 * an embedding model (meaning.ts: the pool of the knowledge base's largest topics of that model,
 * read once per batch and kept current as the batch places its questions).
 */
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { parsePgArray } from "../db/pg-arrays.ts";
import { rowsOf } from "../db/rows.ts";
import type { TermWeights } from "../db/schema-analytics.ts";
import type { Embedder } from "../knowledge/index.ts";
import { newId } from "../primitives.ts";
import { type MeaningTopic, nearestByMeaning, POOL_TOPICS, unitVector, withEmbedding } from "./meaning.ts";
import { INDEX_TERMS, nearest, topTerms, withMember } from "./vectors.ts";

const CANDIDATES = 50;
/** How long a batch's questions may take to embed; past it (or on failure) they are placed lexically. */
const EMBED_TIMEOUT_MS = 10_000;

/** `column` names knowledge base `kbId` (or none): plain equality when there is one, so its index answers. */
export const sameKb = (column: SQL, kbId: string | null): SQL =>
  kbId === null ? sql`${column} is null` : sql`${column} = ${kbId}`;

/** The terms as a text[] of parameters. */
export const textArray = (terms: string[]): SQL =>
  terms.length
    ? sql`array[${sql.join(
        terms.map((t) => sql`${t}`),
        sql`, `,
      )}]::text[]`
    : sql`'{}'::text[]`;

/** A question's embedding (unit), its model, and the pool of its knowledge base's topics (shared by the batch). */
export interface Meaning {
  embedding: number[];
  model: string;
  pool: MeaningTopic[];
}

export interface Placement {
  id: string;
  /** The topic's centroid with this question in it; null for the topic of questions without terms. */
  centroid: TermWeights | null;
  /** The topic's summed embedding of the question's model before it (null: none yet). */
  sum?: number[] | null;
}

const parseReals = (text: string | null): number[] | null => (text ? (parsePgArray(text, Number) as number[]) : null);

/** The batch's questions embedded in one call, with their pools; all undefined when the model fails. */
export async function embedQuestions(
  db: Db,
  embedder: Embedder,
  batch: { question: string | null; kb_id: string | null }[],
): Promise<(Meaning | undefined)[]> {
  const asked = batch.map((r, i) => ({ i, text: r.question?.trim() ?? "" })).filter((q) => q.text);
  if (!asked.length) return batch.map(() => undefined);
  let vectors: number[][];
  try {
    vectors = await embedder.embed(
      asked.map((q) => q.text),
      { attempts: 1, signal: AbortSignal.timeout(EMBED_TIMEOUT_MS) },
    );
  } catch {
    return batch.map(() => undefined); // placed lexically; the next batch tries the model again
  }
  const pools = new Map<string | null, MeaningTopic[]>();
  const out: (Meaning | undefined)[] = batch.map(() => undefined);
  for (const [n, { i }] of asked.entries()) {
    const kb = batch[i]!.kb_id;
    if (!pools.has(kb)) {
      const rows = await rowsOf<{ id: string; e: string }>(
        db,
        sql`select id, embedding::text as e from analytics_topics
          where ${sameKb(sql`kb_id`, kb)} and embedding_model = ${embedder.model}
          order by members desc, id limit ${POOL_TOPICS}`,
      );
      pools.set(
        kb,
        rows.map((r) => ({ id: r.id, sum: parseReals(r.e)! })),
      );
    }
    out[i] = { embedding: unitVector(vectors[n]!), model: embedder.model, pool: pools.get(kb)! };
  }
  return out;
}

/** The topic the question joins (its centroid moved), or a new one; questions without terms ("hi", "?") share one per knowledge base. */
export async function placeInTopic(
  db: Db,
  kbId: string | null,
  vector: TermWeights,
  now: Date,
  meaning?: Meaning,
): Promise<Placement> {
  const at = now.toISOString();
  const look = topTerms(vector, INDEX_TERMS);
  if (look.length === 0) {
    const [none] = await rowsOf<{ id: string }>(
      db,
      sql`select id from analytics_topics where ${sameKb(sql`kb_id`, kbId)} and cardinality(terms) = 0
        order by id limit 1`,
    );
    return { id: none?.id ?? (await newTopic(db, kbId, {}, at)), centroid: null };
  }
  const candidates = await rowsOf<{ id: string; centroid: TermWeights; model: string | null; e: string | null }>(
    db,
    sql`select id, centroid, embedding_model as model, embedding::text as e from analytics_topics
      where ${sameKb(sql`kb_id`, kbId)} and terms && ${textArray(look)}
      order by members desc, id limit ${CANDIDATES}`,
  );
  const sumOf = (c: (typeof candidates)[number]) => (meaning && c.model === meaning.model ? parseReals(c.e) : null);
  if (meaning) {
    const pool = [...meaning.pool];
    for (const c of candidates) {
      const sum = sumOf(c);
      if (sum && !pool.some((t) => t.id === c.id)) pool.push({ id: c.id, sum });
    }
    const decided = nearestByMeaning(meaning.embedding, pool);
    if (decided) {
      const centroid =
        candidates.find((c) => c.id === decided.id)?.centroid ??
        (
          await rowsOf<{ centroid: TermWeights }>(
            db,
            sql`select centroid from analytics_topics where id = ${decided.id}`,
          )
        )[0]?.centroid ??
        {};
      return {
        id: decided.id,
        centroid: withMember(centroid, vector),
        sum: pool.find((t) => t.id === decided.id)!.sum,
      };
    }
    if (decided === null) {
      const centroid = withMember({}, vector);
      return { id: await newTopic(db, kbId, centroid, at), centroid, sum: null };
    }
  }
  const best = nearest(vector, candidates);
  if (best) return { id: best.topic.id, centroid: withMember(best.topic.centroid, vector), sum: sumOf(best.topic) };
  const centroid = withMember({}, vector);
  return { id: await newTopic(db, kbId, centroid, at), centroid, sum: null };
}

async function newTopic(db: Db, kbId: string | null, centroid: TermWeights, at: string): Promise<string> {
  const id = newId("topic");
  await db.execute(sql`
    insert into analytics_topics (id, kb_id, centroid, terms, members, created_at, updated_at)
    values (${id}, ${kbId}, ${JSON.stringify(centroid)}::jsonb, ${textArray(topTerms(centroid, INDEX_TERMS))},
      0, ${at}::timestamptz, ${at}::timestamptz)`);
  return id;
}

/** The question counted in its topic: centroid and terms moved, and with a model its summed embedding. */
export async function joinTopic(db: Db, topic: Placement, now: Date, meaning: Meaning | undefined): Promise<void> {
  const { centroid } = topic;
  const sum = meaning ? withEmbedding(topic.sum ?? null, meaning.embedding) : null;
  await db.execute(sql`
    update analytics_topics set members = members + 1, updated_at = ${now.toISOString()}::timestamptz
      ${centroid ? sql`, centroid = ${JSON.stringify(centroid)}::jsonb, terms = ${textArray(topTerms(centroid, INDEX_TERMS))}` : sql``}
      ${sum ? sql`, embedding = ${`{${sum.join(",")}}`}::real[], embedding_model = ${meaning!.model}` : sql``}
    where id = ${topic.id} ${sum ? sql`and (embedding_model is null or embedding_model = ${meaning!.model})` : sql``}`);
  if (!sum) return;
  const pooled = meaning!.pool.find((t) => t.id === topic.id);
  if (pooled) pooled.sum = sum;
  else meaning!.pool.push({ id: topic.id, sum });
}
