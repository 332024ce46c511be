/**
 * /v1/analytics: questions, topics, gaps and pages over stored turns (a question and its reply,
 * with the reply's certainty, sources and rating), as a docs team reads them. Admin keys only.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { forgetOldQuestions, ingestPending } from "../src/analytics/index.ts";
import type { AnalyticsQuestion, AnalyticsTopic, Certainty, PagesReport } from "../src/contract/index.ts";
import { messageFeedback } from "../src/db/schema.ts";
import { createKnowledgeBase, ingestDocuments } from "../src/knowledge/index.ts";
import { expectError, expectStatus, type Harness, harness, keyIdOf } from "./helpers/app.ts";
import { addMessage, createConversation } from "./helpers/conversations.ts";
import { ownStore } from "./helpers/store.ts";

setDefaultTimeout(30_000);

let h: Harness;
/** The test's own knowledge base, in a store of its own: analytics count every reply of a store. */
let kb: string;
let drop: () => Promise<void>;
let admin: string;
let chatKey: string;
const DAY = 86_400_000;
const T0 = Date.parse("2026-03-02T10:00:00Z");

/** A question and its reply, `daysAgo` before T0 + 30 days; returns the reply's id. */
async function turn(
  question: string,
  reply: { sources: string[]; certainty: Certainty; rating?: "up" | "down"; at: number },
): Promise<string> {
  const keyId = await keyIdOf(h.store, chatKey);
  const conv = await createConversation(h.store.db, keyId, question.slice(0, 40), new Date(reply.at), kb);
  await addMessage(h.store.db, {
    conversationId: conv.id,
    role: "user",
    content: question,
    status: "completed",
    createdAt: new Date(reply.at),
  });
  const m = await addMessage(h.store.db, {
    conversationId: conv.id,
    role: "assistant",
    content: "…",
    sources: reply.sources,
    certainty: reply.certainty,
    status: "completed",
    createdAt: new Date(reply.at + 1),
  });
  if (reply.rating) {
    const at = new Date(reply.at + 2);
    await h.store.db
      .insert(messageFeedback)
      .values({ messageId: m.id, keyId, rating: reply.rating, comment: null, updatedAt: at });
  }
  return m.id;
}

const VALIDATION = "https://wren.example/docs/validation";
const COOKIES = "https://wren.example/docs/cookies";

beforeAll(async () => {
  const own = await ownStore();
  drop = own.drop;
  h = await harness({ store: own.store, now: () => T0 + 30 * DAY });
  kb = (await createKnowledgeBase(h.store.db, { name: `analytics-${crypto.randomUUID().slice(0, 8)}` })).id;
  const fixture = await Bun.file(new URL("./fixtures/kb.jsonl", import.meta.url)).text();
  const docs = fixture
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { url: string; title: string; content: string });
  await ingestDocuments(h.store.db, docs, { kbId: kb });
  admin = await h.admin();
  chatKey = await h.key();
  const at = (i: number) => T0 + i * 3_600_000;
  const validation = [
    "How do I validate a request body?",
    "validate the request body against a schema",
    "request body validation with schemas",
    "What happens when request body validation fails?",
  ];
  for (const [i, q] of validation.entries()) await turn(q, { sources: [VALIDATION], certainty: "answered", at: at(i) });
  // Answered, but people disliked the answers: a gap by rating.
  for (const [i, q] of ["How do I sign cookies?", "signing cookies with a secret", "signed cookie secret"].entries())
    await turn(q, { sources: [COOKIES], certainty: "uncertain", rating: i < 2 ? "down" : "up", at: at(10 + i) });
  // Nothing in the documents: a gap by certainty.
  for (const [i, q] of [
    "ratatouille recipe",
    "best ratatouille recipe",
    "recipe for ratatouille with aubergine",
  ].entries())
    await turn(q, { sources: [], certainty: "no_sources", at: at(20 + i) });
  await ingestPending(h.store.db, T0 + 30 * DAY, 1_000, true);
});

afterAll(async () => {
  await h.app.parley.close();
  await drop();
});

/** An analytics route of the test's knowledge base. */
const get = (path: string) =>
  h.call("GET", `/v1/analytics/${path}${path.includes("?") ? "&" : "?"}knowledge_base_id=${kb}`, { key: admin });

type List<T> = { data: T[]; pagination: { has_more: boolean; next_cursor: string | null } };

describe("analytics", () => {
  test("questions: every turn, newest first, filterable; the text to admins only", async () => {
    const all = await get("questions?limit=100");
    expectStatus(all, 200);
    const { data } = all.json as List<AnalyticsQuestion>;
    expect(data).toHaveLength(10);
    expect(data[0]!.question).toBe("recipe for ratatouille with aubergine");
    expect(data[0]).toMatchObject({
      certainty: "no_sources",
      rating: null,
      sources: [],
      knowledge_base_id: kb,
    });

    const down = await get("questions?rating=down");
    expect((down.json as List<AnalyticsQuestion>).data.map((q) => q.question).sort()).toEqual([
      "How do I sign cookies?",
      "signing cookies with a secret",
    ]);
    const none = await get("questions?certainty=no_sources&limit=2");
    const page = none.json as List<AnalyticsQuestion>;
    expect(page.data).toHaveLength(2);
    expect(page.pagination.has_more).toBe(true);
    const next = await h.call(
      "GET",
      `/v1/analytics/questions?certainty=no_sources&limit=2&cursor=${page.pagination.next_cursor}`,
      {
        key: admin,
      },
    );
    expect((next.json as List<AnalyticsQuestion>).data.map((q) => q.question)).toEqual(["ratatouille recipe"]);

    expectError(await h.call("GET", "/v1/analytics/questions", { key: chatKey }), 403, "permission_denied");
  });

  test("topics: similar questions together, in their own words; shares and cited pages", async () => {
    const r = await get("topics");
    expectStatus(r, 200);
    const topics = (r.json as List<AnalyticsTopic>).data;
    const of = (q: string) => topics.find((t) => t.question !== null && topicHas(t, q));
    const questions = await get("questions?limit=100");
    const byText = new Map((questions.json as List<AnalyticsQuestion>).data.map((q) => [q.question, q.topic_id]));
    const topicHas = (t: AnalyticsTopic, q: string) => byText.get(q) === t.id;
    // Each group's questions share one topic; the groups do not.
    const v = byText.get("How do I validate a request body?");
    expect(byText.get("request body validation with schemas")).toBe(v);
    const c = byText.get("How do I sign cookies?");
    expect(byText.get("signing cookies with a secret")).toBe(c);
    const rat = byText.get("ratatouille recipe");
    expect(byText.get("best ratatouille recipe")).toBe(rat);
    expect(new Set([v, c, rat]).size).toBe(3);

    const validation = topics.find((t) => t.id === v)!;
    expect(validation.size).toBeGreaterThanOrEqual(3);
    expect(validation.answered_share).toBe(1);
    expect(validation.pages[0]).toMatchObject({ url: VALIDATION, title: "Validation" });
    expect(topics[0]!.size).toBeGreaterThanOrEqual(topics.at(-1)!.size);
    const cookies = topics.find((t) => t.id === c)!;
    expect(cookies.down_share).toBeCloseTo(2 / 3);
    expect(of("ratatouille recipe")?.no_sources_share).toBe(1);

    // Page by page: every topic once.
    const seen: string[] = [];
    let cursor = "";
    do {
      const page = await get(`topics?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expectStatus(page, 200);
      const body = page.json as List<AnalyticsTopic>;
      seen.push(...body.data.map((t) => t.id));
      cursor = body.pagination.next_cursor ?? "";
    } while (cursor);
    expect(seen.sort()).toEqual(topics.map((t) => t.id).sort());

    // A question's topic filters the questions.
    const members = await get(`questions?topic_id=${v}`);
    expect((members.json as List<AnalyticsQuestion>).data.every((q) => q.topic_id === v)).toBe(true);
  });

  test("gaps: the topics the docs do not answer or people rated down, not the answered ones", async () => {
    const r = await get("gaps");
    expectStatus(r, 200);
    const gaps = (r.json as List<AnalyticsTopic>).data;
    const questions = gaps.map((g) => g.question ?? "");
    expect(questions.some((q) => q.includes("ratatouille"))).toBe(true);
    expect(questions.some((q) => q.includes("cookie"))).toBe(true);
    expect(questions.some((q) => q.includes("validat"))).toBe(false);
  });

  test("pages: cited most, cited in down-rated replies, never cited", async () => {
    const r = await get("pages?limit=100");
    expectStatus(r, 200);
    const report = r.json as PagesReport;
    expect(report.cited.map((p) => p.url)).toEqual([VALIDATION, COOKIES]);
    expect(report.cited[0]).toMatchObject({ citations: 4, down_citations: 0, title: "Validation" });
    expect(report.down_rated).toEqual([expect.objectContaining({ url: COOKIES, down_citations: 2 })]);
    const never = report.never_cited.map((p) => p.url);
    expect(never).toContain("https://wren.example/docs/routing");
    expect(never).not.toContain(VALIDATION);
    expect(report.never_cited_total).toBe(report.never_cited.length);
  });

  test("the period and the knowledge base scope every report", async () => {
    const from = new Date(T0 + 20 * 3_600_000).toISOString();
    const r = await get(`questions?from=${from}`);
    expect((r.json as List<AnalyticsQuestion>).data.every((q) => q.certainty === "no_sources")).toBe(true);
    const before = await get("topics?to=2026-03-01");
    expect((before.json as List<AnalyticsTopic>).data).toEqual([]);
  });

  test("bad input: a clear 400 or 404, never a 500", async () => {
    for (const [path, code, status] of [
      ["/v1/analytics/questions?from=yesterday", "invalid_request", 400],
      ["/v1/analytics/topics?to=2026-02-30", "invalid_request", 400],
      ["/v1/analytics/questions?certainty=sure", "invalid_request", 400],
      ["/v1/analytics/gaps?limit=0", "invalid_request", 400],
      ["/v1/analytics/topics?cursor=abc", "invalid_cursor", 400],
      ["/v1/analytics/pages?knowledge_base_id=kb_nope", "not_found", 404],
    ] as const)
      expectError(await h.call("GET", path, { key: admin }), status, code);
  });

  test("retention drops question text and keeps the counts", async () => {
    await ingestPending(h.store.db, T0 + 30 * DAY);
    await forgetOldQuestions(h.store.db, T0 + 30 * DAY, 10);
    const r = await get("questions?limit=100");
    const data = (r.json as List<AnalyticsQuestion>).data;
    expect(data).toHaveLength(10);
    expect(data.every((q) => q.question === null)).toBe(true);
    const topics = await get("topics");
    expect((topics.json as List<AnalyticsTopic>).data.reduce((n, t) => n + t.size, 0)).toBe(10);
  });
});
