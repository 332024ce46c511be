/**
 * A realistic store: the corpus in a knowledge base, keys (a pro key, an admin key, a team key),
 * then conversations through the HTTP app in process — JSON and streamed replies, follow-ups,
 * replies stopped mid-stream or resumed after a dropped connection, idempotent retries,
 * feedback — so every table a live store fills has rows. Questions come from the corpus's own
 * titles and `##` headings, in a fixed order.
 */
import { retrievalAgent } from "../../src/agent/index.ts";
import { ingestPending } from "../../src/analytics/index.ts";
import { createKey, createKnowledgeBase, ingestDocuments, type KnowledgeDoc, type Store } from "../../src/mod.ts";
import { type App, appOn, json, readEvents, request, type SseEvent, tokensOf } from "./http.ts";

export interface Built {
  kbId: string;
  pro: string;
  admin: string;
  /** A conversation of the pro key with follow-ups and feedback: its transcript is compared. */
  conversationId: string;
  made: Record<string, number>;
  /** What went wrong while building (a resumed text that differs from the stored one…). */
  problems: string[];
}

/** Questions from the pages: each heading of each page, and its title, in a few phrasings. */
export function questionsOf(docs: KnowledgeDoc[]): string[] {
  const forms = [(h: string, t: string) => `How do I use ${h} in ${t}?`, (h: string) => `What is ${h}?`];
  const out: string[] = [];
  for (const doc of docs) {
    const title = doc.title ?? doc.url;
    out.push(`What does the ${title} page explain?`);
    const headings = doc.content.split("\n").filter((l) => l.startsWith("## "));
    for (const [i, line] of headings.entries()) out.push(forms[i % forms.length]!(line.slice(3).trim(), title));
  }
  return out;
}

const OFF_TOPIC = ["What is the weather in Lisbon today?", "Recommend a good pasta recipe", "hi"];

export async function buildStore(store: Store, docs: KnowledgeDoc[], conversations: number): Promise<Built> {
  const kb = await createKnowledgeBase(store.db, { name: "docs", description: "the corpus" });
  await ingestDocuments(store.db, docs, { kbId: kb.id });
  const limits = { rpm: 100_000, rpd: 1_000_000 };
  const kbs = { knowledgeBaseIds: [kb.id] };
  const { secret: pro } = await createKey(store.db, { name: "pro", plan: "pro", ...limits, ...kbs });
  const { secret: team } = await createKey(store.db, { name: "team", plan: "enterprise", ...limits, ...kbs });
  const { secret: admin } = await createKey(store.db, { name: "admin", plan: "enterprise", ...limits, role: "admin" });
  // Stopped and resumed replies need time between tokens; the others come at full speed.
  const slow = new Set<string>();
  const [fast, slowAgent] = [retrievalAgent(store.db), retrievalAgent(store.db, { tokenDelayMs: 5 })];
  const app = appOn(store, { respond: (input) => (slow.has(input.message) ? slowAgent : fast).respond(input) });
  const questions = questionsOf(docs);
  const made: Record<string, number> = { json: 0, streamed: 0, stopped: 0, resumed: 0, follow_ups: 0, feedback: 0 };
  const problems: string[] = [];
  let conversationId = "";
  try {
    for (let i = 0; i < conversations; i++) {
      const key = i % 5 === 3 ? admin : i % 3 === 1 ? team : pro;
      const ask = (n: number) =>
        i % 17 === 16 ? OFF_TOPIC[i % OFF_TOPIC.length]! : questions[(i * 7 + n) % questions.length]!;
      const first = ask(0);
      const mode = i % 10 < 5 ? "json" : i % 10 < 8 ? "streamed" : i % 10 === 8 ? "stopped" : "resumed";
      if (mode === "stopped" || mode === "resumed") slow.add(first);
      const headers: Record<string, string> = i % 6 === 0 ? { "idempotency-key": `turn-${i}` } : {};
      const turn = await chat(app, key, first, null, mode, headers);
      made[mode]!++;
      if (turn.problem) problems.push(`conversation ${i}: ${turn.problem}`);
      const replies = [turn.messageId];
      for (let n = 1; n <= (i % 4 === 0 ? 2 : i % 4 === 1 ? 1 : 0); n++) {
        const next = await chat(app, key, ask(n), turn.conversationId, n === 2 ? "streamed" : "json", {});
        replies.push(next.messageId);
        made.follow_ups!++;
      }
      for (const [n, id] of replies.entries()) {
        const rating = (i + n) % 3 === 0 ? "up" : (i + n) % 7 === 0 ? "down" : null;
        if (!rating) continue;
        const path = `/v1/conversations/${turn.conversationId}/messages/${id}/feedback`;
        const comment = rating === "down" ? `Not what I needed (turn ${n + 1})` : undefined;
        await json(app, "PUT", path, key, { json: { rating, comment } });
        made.feedback!++;
      }
      if (key === pro && replies.length === 3 && !conversationId) conversationId = turn.conversationId;
    }
    await app.parley.replies.drain(30_000);
  } finally {
    await app.parley.close();
  }
  // Every ended reply copied into analytics (what the sweep and the reports would do in time).
  await ingestPending(store.db, Date.now(), 1_000_000, true);
  return { kbId: kb.id, pro, admin, conversationId, made, problems };
}

interface Turn {
  conversationId: string;
  messageId: string;
  problem?: string;
}

/** One turn: a JSON reply, a stream read to its end, stopped after a few events, or resumed. */
async function chat(
  app: App,
  key: string,
  message: string,
  conversationId: string | null,
  mode: "json" | "streamed" | "stopped" | "resumed",
  headers: Record<string, string>,
): Promise<Turn> {
  const body = { message, conversation_id: conversationId, stream: mode !== "json" };
  if (mode === "json") {
    const reply = await json(app, "POST", "/v1/chat", key, { json: body, headers });
    return { conversationId: reply.conversation_id, messageId: reply.id };
  }
  const res = await request(app, "POST", "/v1/chat", key, { json: body, headers });
  const stream = await readEvents(res, mode === "streamed" ? undefined : (events) => events.length >= 4);
  const start = stream.events[0]?.data;
  if (start?.type !== "start") throw new Error(`a stream without start: ${JSON.stringify(stream.events[0])}`);
  const turn = { conversationId: start.conversation_id as string, messageId: start.message_id as string };
  const replyPath = `/v1/conversations/${turn.conversationId}/messages/${turn.messageId}`;
  let events: SseEvent[] = stream.events;
  if (mode === "stopped") {
    await json(app, "POST", `${replyPath}/stop`, key);
    events = await stream.rest();
  } else if (mode === "resumed") {
    await stream.cancel();
    const lastId = String(events.at(-1)!.id);
    const resumed = await readEvents(
      await request(app, "GET", `${replyPath}/events`, key, { headers: { "last-event-id": lastId } }),
    );
    events = [...events, ...resumed.events];
  } else {
    events = await stream.rest();
  }
  const ids = events.map((e) => e.id);
  const stored = (await json(app, "GET", `/v1/conversations/${turn.conversationId}/messages?limit=1`, key)).data[0];
  const end = events.at(-1)!.data;
  if (ids.some((id, n) => id !== n + 1)) return { ...turn, problem: `event ids ${ids.join(",")} have a gap` };
  if (end.type !== "end" || end.status !== stored.status) return { ...turn, problem: `ended ${JSON.stringify(end)}` };
  if (tokensOf(events) !== stored.content) return { ...turn, problem: "streamed text differs from the stored reply" };
  return turn;
}
