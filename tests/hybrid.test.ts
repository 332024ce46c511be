/**
 * Hybrid search against a loopback server speaking OpenAI's /v1/embeddings (checked with the
 * official `openai` SDK): batching and bounded retries, the vector store and its backfill, the
 * RRF fusion (asserted against ranks computed independently: BM25F's own list and cosine over
 * the fake's hashing vectors), one embedding per search, and the fallback to BM25F when the
 * model fails. On PostgreSQL without pgvector: start is refused naming the extension, and the
 * vector tests skip.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { vector } from "@electric-sql/pglite-pgvector";
import { sql } from "drizzle-orm";
import OpenAI from "openai";
import { retrievalAgent } from "../src/agent/retrieval.ts";
import { openPglite, openPostgres, type Store } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import {
  backfillEmbeddings,
  createEmbedder,
  createSemanticSearch,
  EmbeddingsError,
  embeddingInput,
  MissingVectorExtension,
  nearestPassages,
  prepareVectorStore,
  RRF_K,
} from "../src/knowledge/embeddings/index.ts";
import { createKnowledgeBase, DEFAULT_KB_ID } from "../src/knowledge/index.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { parseJsonl } from "../src/knowledge/parse.ts";
import { searchPassages } from "../src/knowledge/retrieve.ts";
import { SAMPLE_DOCS } from "../src/knowledge/sample.ts";
import { rankPassages } from "../src/knowledge/search.ts";
import { type FakeEmbeddings, hashingVector, startFakeEmbeddings } from "./helpers/fake-embeddings.ts";
import { CORPUS, onPostgres, pgliteImage } from "./helpers/store.ts";

setDefaultTimeout(120_000);

const DIMS = 64;
const MODEL = "fake-hash-64";
let fake: FakeEmbeddings;

beforeAll(() => {
  fake = startFakeEmbeddings({ dimensions: DIMS, apiKey: "sk-test" });
});
afterAll(() => fake.stop());

describe("the loopback embeddings server speaks OpenAI's protocol", () => {
  test("the official openai SDK's embeddings.create reads its vectors (base64 by default, and float)", async () => {
    const client = new OpenAI({ baseURL: fake.url, apiKey: "sk-test", maxRetries: 0 });
    const res = await client.embeddings.create({ model: MODEL, input: ["streaming replies", "rate limits"] });
    expect(res.object).toBe("list");
    expect(res.model).toBe(MODEL);
    expect(res.data.map((d) => d.index)).toEqual([0, 1]);
    expect(res.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
    const want = hashingVector("streaming replies", DIMS);
    for (const [i, x] of res.data[0]!.embedding.entries()) expect(x).toBeCloseTo(want[i]!, 6);
    const floats = await client.embeddings.create({ model: MODEL, input: "rate limits", encoding_format: "float" });
    expect(floats.data[0]!.embedding).toEqual(hashingVector("rate limits", DIMS));
    expect(fake.requests.slice(-2).map((r) => r.encoding)).toEqual(["base64", "float"]);
  });

  test("a wrong key gets OpenAI's 401 error body", async () => {
    const client = new OpenAI({ baseURL: fake.url, apiKey: "sk-wrong", maxRetries: 0 });
    const error = await client.embeddings.create({ model: MODEL, input: "x" }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.code).toBe("invalid_api_key");
  });
});

describe("embeddings client", () => {
  const embedder = (o: { batchSize?: number; maxAttempts?: number; retryBaseMs?: number; dimensions?: number } = {}) =>
    createEmbedder({ baseUrl: fake.url, model: MODEL, apiKey: "sk-test", dimensions: DIMS, ...o });

  test("texts go in batches, vectors come back in order", async () => {
    const before = fake.requests.length;
    const texts = ["one", "two", "three", "four", "five"];
    const vectors = await embedder({ batchSize: 2 }).embed(texts);
    expect(fake.requests.slice(before).map((r) => r.inputs)).toEqual([2, 2, 1]);
    expect(vectors).toEqual(texts.map((t) => hashingVector(t, DIMS)));
  });

  test("a failing batch is retried a bounded number of times", async () => {
    fake.failNext(2, 500);
    const before = fake.requests.length;
    // Retries 5 ms apart (production: 250 ms, 500 ms…): what is tested is how many there are.
    expect(await embedder({ maxAttempts: 3, retryBaseMs: 5 }).embed(["retry me"])).toEqual([
      hashingVector("retry me", DIMS),
    ]);
    expect(fake.requests.length - before).toBe(3);

    fake.failNext(10, 429);
    const start = fake.requests.length;
    const error = await embedder({ maxAttempts: 2, retryBaseMs: 5 })
      .embed(["give up"])
      .catch((e) => e);
    fake.failNext(0);
    expect(error).toBeInstanceOf(EmbeddingsError);
    expect(error.message).toContain("429");
    expect(error.message).not.toContain("give up"); // never the text
    expect(fake.requests.length - start).toBe(2);
  });

  test("vectors of another length than EMBEDDINGS_DIMENSIONS are refused", async () => {
    const error = await embedder({ dimensions: 32 })
      .embed(["x"])
      .catch((e) => e);
    expect(error).toBeInstanceOf(EmbeddingsError);
    expect(error.message).toContain("EMBEDDINGS_DIMENSIONS is 32");
  });
});

describe.skipIf(!onPostgres)("PostgreSQL without pgvector", () => {
  test("preparing the vector store refuses with a message naming the `vector` extension", async () => {
    const store = openPostgres(process.env.DATABASE_URL!, { max: 2 });
    try {
      const available = await store.db.execute(sql`select 1 from pg_available_extensions where name = 'vector'`);
      const rows = Array.isArray(available) ? available : (available as { rows: unknown[] }).rows;
      if (rows.length > 0) return; // this server has pgvector: nothing to refuse
      const error = await prepareVectorStore(store.db, DIMS).catch((e) => e);
      expect(error).toBeInstanceOf(MissingVectorExtension);
      expect(error.message).toContain("`vector` extension (pgvector)");
      expect(error.message).toContain("EMBEDDINGS_PROVIDER");
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(onPostgres)("hybrid search on PGlite (pgvector)", () => {
  let store: Store;
  const embedder = () => createEmbedder({ baseUrl: fake.url, model: MODEL, apiKey: "sk-test", dimensions: DIMS });

  beforeAll(async () => {
    // From the run's initdb'd image (initdb itself takes seconds), as every test's own PGlite.
    store = await openPglite(undefined, { loadDataDir: await pgliteImage(), extensions: { vector } });
    await migrate(store);
    const { docs } = parseJsonl(readFileSync(CORPUS, "utf8"), CORPUS);
    await ingestDocuments(store.db, [...SAMPLE_DOCS, ...docs]);
    await prepareVectorStore(store.db, DIMS);
  }, 300_000);
  afterAll(() => store?.close());

  test("backfill embeds every passage once, in pages, reporting progress", async () => {
    const progress: string[] = [];
    const n = await backfillEmbeddings(store.db, embedder(), {
      pageSize: 20,
      onProgress: (p) => progress.push(`${p.done}/${p.total}`),
    });
    const total = Number(
      ((await store.db.execute(sql`select count(*)::int as n from chunks`)) as { rows: { n: number }[] }).rows[0]!.n,
    );
    expect(n).toBe(total);
    expect(progress[0]).toBe(`0/${total}`);
    expect(progress.at(-1)).toBe(`${total}/${total}`);
    expect(progress.length).toBe(1 + Math.ceil(total / 20));
    // Nothing is missing any more: a second run embeds nothing.
    expect(await backfillEmbeddings(store.db, embedder())).toBe(0);
  });

  test("results are BM25F's and the vector ranks fused by RRF (k = 60), one embedding per search", async () => {
    const semantic = createSemanticSearch({ embedder: embedder() });
    const question = "How do I stream a reply token by token?";
    const before = fake.requests.length;
    const hits = await searchPassages(store.db, question, [], {}, semantic);
    expect(fake.requests.length - before).toBe(1);

    // The expected order, computed independently: BM25F's own ranking and exact cosine ranks.
    const lexical = (await rankPassages(store.db, question, { limit: 40, perPage: 40 })).map((h) => h.id);
    const rows = (
      (await store.db.execute(
        sql`select c.id, d.title, c.heading, c.content from chunks c join documents d on d.id = c.document_id`,
      )) as { rows: { id: string; title: string; heading: string; content: string }[] }
    ).rows;
    const q = hashingVector(question, DIMS);
    const cos = (v: number[]) => v.reduce((s, x, i) => s + x * q[i]!, 0);
    const near = rows
      .map((r) => ({ id: r.id, sim: cos(hashingVector(embeddingInput(r.title, r.heading, r.content), DIMS)) }))
      .sort((a, b) => b.sim - a.sim || (a.id < b.id ? -1 : 1))
      .slice(0, 40)
      .map((r) => r.id);
    const fused = new Map<string, number>();
    for (const list of [lexical, near])
      for (const [i, id] of list.entries()) fused.set(id, (fused.get(id) ?? 0) + 1 / (RRF_K + i + 1));
    const best = [...fused.entries()].sort((a, b) => b[1] - a[1])[0]!;
    expect(hits[0]!.id).toBe(best[0]);
    expect(hits[0]!.score).toBeCloseTo(best[1], 12);
    // Every returned passage carries its fused score, and pages are ordered by them.
    for (const h of hits) expect(h.score).toBeCloseTo(fused.get(h.id)!, 12);
    const pageOrder = hits.map((h) => h.pageScore);
    expect([...pageOrder].sort((a, b) => b - a)).toEqual(pageOrder);
    expect(hits[0]!.url).toBe("https://parley.example/docs/chat");
  });

  test("the vector ranking is scoped to the knowledge base, like BM25F's candidates", async () => {
    const other = await createKnowledgeBase(store.db, { name: "hybrid-other" });
    const url = "https://other.example/streaming";
    const question = "How do I stream a reply token by token?";
    // The other knowledge base's one passage is the question itself: the nearest vector of the store.
    await ingestDocuments(store.db, [{ url, title: "Streaming", content: question }], { kbId: other.id });
    await backfillEmbeddings(store.db, embedder());
    const semantic = createSemanticSearch({ embedder: embedder() });
    const [v] = await embedder().embed([question]);
    const everywhere = await nearestPassages(store.db, MODEL, v!, 5);
    expect(everywhere[0]!.url).toBe(url);
    const inDefault = await nearestPassages(store.db, MODEL, v!, 5, DEFAULT_KB_ID);
    expect(inDefault).toHaveLength(5);
    expect(inDefault.map((n) => n.url)).not.toContain(url);
    // The other knowledge base holds one passage of hundreds: the HNSW scan still finds it.
    const inOther = await nearestPassages(store.db, MODEL, v!, 5, other.id);
    expect(inOther.map((n) => n.url)).toEqual([url]);
    const hits = await searchPassages(store.db, question, [], { kbId: DEFAULT_KB_ID }, semantic);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.map((h) => h.url)).not.toContain(url);
    expect((await searchPassages(store.db, question, [], { kbId: other.id }, semantic)).map((h) => h.url)).toEqual([
      url,
    ]);
    await store.db.execute(sql`delete from knowledge_bases where id = ${other.id}`);
  });

  test("a follow-up that refers back embeds once: the question with its topic", async () => {
    const semantic = createSemanticSearch({ embedder: embedder() });
    const before = fake.requests.length;
    const hits = await searchPassages(
      store.db,
      "how do I revoke it?",
      [{ role: "user", content: "How do I create an API key?" }],
      {},
      semantic,
    );
    expect(fake.requests.length - before).toBe(1);
    expect(fake.requests.at(-1)!.texts).toEqual(["how do I revoke it? How do I create an API key?"]);
    expect(hits.length).toBeGreaterThan(0);
  });

  test("off-topic questions are still refused (BM25F's abstention)", async () => {
    const semantic = createSemanticSearch({ embedder: embedder() });
    expect(await searchPassages(store.db, "What is the capital of Australia?", [], {}, semantic)).toEqual([]);
  });

  test("when the model fails, the search is BM25F alone: logged once, counted, and the chat answers", async () => {
    const warnings: string[] = [];
    const seen: Error[] = [];
    const semantic = createSemanticSearch({
      embedder: embedder(),
      warn: (_f, m) => warnings.push(m),
      onFallback: (e) => seen.push(e),
    });
    fake.down(true);
    try {
      const question = "How do I stream a reply token by token?";
      const hybrid = await searchPassages(store.db, question, [], {}, semantic);
      expect(hybrid.map((h) => h.id)).toEqual((await rankPassages(store.db, question)).map((h) => h.id));
      expect(semantic.stats.fallbacks).toBe(1);
      expect(warnings).toHaveLength(1);
      expect(seen[0]!.message).toContain("503");

      const agent = retrievalAgent(store.db, { semantic });
      let text = "";
      let sources: string[] = [];
      for await (const c of agent.respond({
        history: [],
        message: question,
        signal: new AbortController().signal,
        knowledgeBaseId: DEFAULT_KB_ID,
      })) {
        if (c.type === "token") text += c.content;
        if (c.type === "sources") sources = c.sources;
      }
      expect(text).toContain("Server-Sent Events");
      expect(sources[0]).toBe("https://parley.example/docs/chat");
      expect(semantic.stats.fallbacks).toBe(2);
    } finally {
      fake.down(false);
    }
  });

  test("a new vector length (another model) recreates the table; backfill fills it again", async () => {
    const other = createEmbedder({
      baseUrl: fake.url,
      model: "fake-hash-32",
      apiKey: "sk-test",
      dimensions: 32,
      sendDimensions: true,
    });
    expect(await prepareVectorStore(store.db, 32)).toEqual({ recreated: true });
    expect(await backfillEmbeddings(store.db, other)).toBeGreaterThan(0);
    expect(await prepareVectorStore(store.db, 32)).toEqual({ recreated: false });
  });
});
