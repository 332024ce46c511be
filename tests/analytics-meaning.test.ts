/**
 * Topics by meaning: with an embedding model, questions that share no word but mean the same
 * join one topic, unrelated ones do not, and a model that fails leaves the lexical rule to place
 * them. The model is a stand-in that gives each subject its own direction (no network: the HTTP
 * embeddings client has its own tests); the rule under test is analytics/meaning.ts.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { ingestPending } from "../src/analytics/index.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import type { Store } from "../src/db/client.ts";
import { rowsOf } from "../src/db/rows.ts";
import type { Embedder } from "../src/knowledge/index.ts";
import { addMessage, createConversation } from "./helpers/conversations.ts";
import { ownStore } from "./helpers/store.ts";

setDefaultTimeout(60_000);

const DIMS = 64;
/** A fixed pseudo-random direction per subject (a seeded generator: the same on every run). */
function direction(seed: number): number[] {
  let x = seed * 2654435761;
  return Array.from({ length: DIMS }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 30 - 1;
  });
}
/** Subjects the stand-in model knows, by a word each of its phrasings holds. */
const SUBJECTS: Record<string, number> = { account: 1, profile: 1, refund: 2, money: 2 };
const embedder = (fail = false): Embedder => ({
  model: "stand-in",
  dimensions: DIMS,
  async embed(texts) {
    if (fail) throw new Error("model down");
    return texts.map((t) => {
      const subject = Object.entries(SUBJECTS).find(([w]) => t.toLowerCase().includes(w))?.[1];
      // Known subjects: their direction plus a little of the text's own; others: the text's own.
      const own = direction(100 + [...t].reduce((a, c) => a + c.charCodeAt(0), 0));
      const base = subject ? direction(subject) : own;
      return base.map((v, i) => v + (subject ? 0.05 * own[i]! : 0));
    });
  },
});

let store: Store;
let drop: () => Promise<void>;
let keyId: string;
let at = Date.parse("2026-05-01T10:00:00Z");

async function ask(question: string): Promise<string> {
  at += 60_000;
  const conv = await createConversation(store.db, keyId, question.slice(0, 40), new Date(at), null);
  await addMessage(store.db, {
    conversationId: conv.id,
    role: "user",
    content: question,
    status: "completed",
    createdAt: new Date(at),
  });
  const m = await addMessage(store.db, {
    conversationId: conv.id,
    role: "assistant",
    content: "…",
    sources: [],
    certainty: "answered",
    status: "completed",
    createdAt: new Date(at + 1),
  });
  return m.id;
}
const topicOf = async (id: string) =>
  (
    await rowsOf<{ t: string }>(store.db, sql`select topic_id as t from analytics_questions where message_id = ${id}`)
  )[0]?.t;

beforeAll(async () => {
  ({ store, drop } = await ownStore());
  keyId = (await createKey(store.db, { name: "meaning", plan: "pro" })).id;
  // A background of 30 unrelated subjects, so the bar can be read from the pool.
  for (let i = 0; i < 30; i++) await ask(`subject ${i}: question number ${i} about topic${i}`);
  await ingestPending(store.db, at, 1_000, true, Infinity, embedder());
});
afterAll(() => drop());

describe("topics by meaning", () => {
  test("two questions with no word in common that mean the same share a topic; an unrelated one does not", async () => {
    const first = await ask("How do I close my account?");
    const second = await ask("Deleting a user profile: possible?");
    const other = await ask("Where is my refund?");
    await ingestPending(store.db, at, 1_000, true, Infinity, embedder());
    expect(await topicOf(second)).toBe((await topicOf(first))!);
    expect(await topicOf(other)).not.toBe((await topicOf(first))!);
    const [topic] = await rowsOf<{ model: string; n: number }>(
      store.db,
      sql`select embedding_model as model, cardinality(embedding) as n from analytics_topics where id = ${(await topicOf(first))!}`,
    );
    expect(topic).toEqual({ model: "stand-in", n: DIMS });
  });

  test("a model that fails leaves the lexical rule to place the batch", async () => {
    const a = await ask("Where can I see my money back status?");
    const b = await ask("Where can I see my money back status today?");
    await ingestPending(store.db, at, 1_000, true, Infinity, embedder(true));
    expect(await topicOf(a)).toBeString();
    expect(await topicOf(b)).toBe((await topicOf(a))!);
  });
});
