/**
 * Topics by meaning, when hybrid search gives Parley an embedding model: a question joins the
 * topic whose summed embedding is nearest — if that topic stands out from the others. No fixed
 * similarity bar: models differ in how alike unrelated texts look (cosines of 0.1 for one, 0.5
 * for another), so the bar is read from the pool of topics itself: the nearest must lie more
 * than OUTLIER_SIGMAS standard deviations above the mean similarity to the rest (a statistical
 * convention, not a value fitted to questions). Below MIN_POOL topics there is no background to
 * read: the lexical rule (vectors.ts) decides, and the topic's embedding still grows.
 */

/** Topics of the model needed before the bar is read from their similarities. */
export const MIN_POOL = 20;
/** How far above the background the nearest topic must be to be the same subject. */
export const OUTLIER_SIGMAS = 3;
/** Topics read into the pool: the largest ones, where most questions go (and those lexically near). */
export const POOL_TOPICS = 200;

export interface MeaningTopic {
  id: string;
  /** The sum of its questions' unit embeddings. */
  sum: number[];
}

export function unitVector(v: number[]): number[] {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  return n > 0 ? v.map((x) => x / n) : v.map(() => 0);
}

const dot = (a: number[], b: number[]) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * (b[i] ?? 0);
  return s;
};

/**
 * The topic `embedding` (a unit vector) belongs to: `{ id }` to join, `null` for a new topic, or
 * `undefined` when the pool is too small to say (the lexical rule decides).
 */
export function nearestByMeaning(embedding: number[], pool: MeaningTopic[]): { id: string } | null | undefined {
  if (pool.length < MIN_POOL) return undefined;
  const sims = pool.map((t) => dot(embedding, unitVector(t.sum)));
  let best = 0;
  for (let i = 1; i < sims.length; i++) if (sims[i]! > sims[best]!) best = i;
  const rest = sims.filter((_, i) => i !== best);
  const mean = rest.reduce((a, b) => a + b, 0) / rest.length;
  const sd = Math.sqrt(rest.reduce((a, b) => a + (b - mean) ** 2, 0) / rest.length);
  return sims[best]! > mean + OUTLIER_SIGMAS * sd ? { id: pool[best]!.id } : null;
}

/** `sum` with one more question's unit embedding in it. */
export const withEmbedding = (sum: number[] | null, embedding: number[]): number[] =>
  sum && sum.length === embedding.length ? sum.map((x, i) => x + embedding[i]!) : [...embedding];
