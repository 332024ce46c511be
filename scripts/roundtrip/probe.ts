/**
 * What a store answers, read through the HTTP app after its export (the export is the state the
 * next store starts from; the same requests in the same order on each store must get the same
 * answers): search rankings, a transcript, a listing page and the page after the first store's
 * cursor, the analytics topics, the feedback list, an answer asked anew, and the pro key's usage.
 */
import type { Store } from "../../src/mod.ts";
import { appOn, json, request } from "./http.ts";

export const QUERIES = [
  "How do I define a route with a path parameter?",
  "middleware that runs before the handler",
  "return JSON from a handler",
  "validate the request body",
  "deploy to Cloudflare Workers",
];

/** Asked on every store after its export: the answer's text and sources must not move. */
export const FRESH_QUESTION = "How do I read a query parameter?";

export interface Probe {
  /** Per query, the ordered hits: url, heading and score. */
  rankings: { query: string; hits: { url: string; heading: string; score: number }[] }[];
  transcript: any;
  listing: any;
  /** The page after the first store's listing cursor (signed by the first store). */
  nextPage: any;
  topics: any;
  feedback: any;
  fresh: { content: string; sources: unknown; certainty: unknown };
  usage: any;
  /** The first listing page's cursor (the first store's is used on every store). */
  cursor: string | null;
}

export interface ProbeInput {
  kbId: string;
  pro: string;
  admin: string;
  conversationId: string;
  /** The cursor the first store issued (undefined on the first store: its own). */
  cursor?: string | null;
}

export async function probe(store: Store, input: ProbeInput): Promise<Probe> {
  const app = appOn(store);
  const { kbId, pro, admin } = input;
  try {
    const rankings: Probe["rankings"] = [];
    for (const query of QUERIES) {
      const r = await json(app, "POST", `/v1/knowledge_bases/${kbId}/search`, pro, { json: { query, limit: 8 } });
      rankings.push({
        query,
        hits: r.data.map((h: any) => ({ url: h.url, heading: h.heading, score: h.score })),
      });
    }
    const transcript = await json(app, "GET", `/v1/conversations/${input.conversationId}`, pro);
    const listing = await json(app, "GET", "/v1/conversations?limit=5", pro);
    const cursor = input.cursor === undefined ? listing.pagination.next_cursor : input.cursor;
    const nextPage = await json(app, "GET", `/v1/conversations?limit=5&cursor=${cursor}`, pro);
    const scope = `knowledge_base_id=${kbId}&limit=10`;
    const topics = await json(app, "GET", `/v1/analytics/topics?${scope}`, admin);
    const feedback = await json(app, "GET", "/v1/feedback?limit=20", admin);
    const reply = await json(app, "POST", "/v1/chat", pro, { json: { message: FRESH_QUESTION } });
    const fresh = { content: reply.content, sources: reply.sources, certainty: reply.certainty };
    // Last: it counts every request above (the same ones on every store).
    const usage = await json(app, "GET", "/v1/usage", pro);
    const refused = await request(app, "GET", "/v1/usage", "prl_notakeyatallnotakeyatallnotakeyatallnota");
    if (refused.status !== 401) throw new Error(`an unknown key got ${refused.status}`);
    return { rankings, transcript, listing, nextPage, topics, feedback, fresh, usage, cursor };
  } finally {
    await app.parley.close();
  }
}

/** The fields of `probe` that differ from `first`'s (compared whole, as JSON values). */
export function differences(first: Probe, probe: Probe): string[] {
  const fields = ["rankings", "transcript", "listing", "nextPage", "topics", "feedback", "fresh", "usage"] as const;
  return fields.filter((f) => !Bun.deepEquals(first[f], probe[f], true));
}
