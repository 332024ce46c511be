/**
 * Two app instances on one database, each listening on a real port: on PostgreSQL with two
 * separate pools (so everything between them goes through the database: rows, LISTEN/NOTIFY);
 * on PGlite the same store in one process (the in-process notifier). Plus SSE helpers that
 * keep ids, for resume tests.
 */
export { type IdEvent, readEvents } from "./sse.ts";

import type { Agent } from "../../src/agent/types.ts";
import type { ParleyOptions } from "../../src/config/options.ts";
import { scriptedAgent } from "./agents.ts";
import { type Harness, harness, listen } from "./app.ts";
import type { IdEvent } from "./sse.ts";
import { sharedSecondStore } from "./store.ts";

/** One instance listening until the test run ends (or `stop()`). */
export interface Instance {
  h: Harness;
  base: string;
  stop(): void;
}

export async function twoInstances(
  agent: Agent,
  options: Partial<ParleyOptions> = {},
): Promise<{ a: Instance; b: Instance; key: string; stop(): void }> {
  // Followers poll every 50 ms, not production's second: on PGlite the two instances share no
  // notifications (one store, two in-process notifiers), so following the other one is polling.
  const fast = { replyPollMs: 50, ...options };
  const ha = await harness({ agent, options: fast });
  const hb = await harness({ agent, options: fast, store: await sharedSecondStore() });
  const instance = (h: Harness): Instance => {
    const { url, stop } = listen(h.app);
    return { h, base: url, stop };
  };
  const a = instance(ha);
  const b = instance(hb);
  return { a, b, key: await ha.key(), stop: () => (a.stop(), b.stop()) };
}

export const post = (
  base: string,
  key: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });

export const get = (base: string, key: string, path: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } });

export const eventsPath = (conversationId: string, messageId: string) =>
  `/v1/conversations/${conversationId}/messages/${messageId}/events`;

export const tokensOf = (events: IdEvent[]) =>
  events
    .filter((e) => e.data.type === "token")
    .map((e) => e.data.content)
    .join("");

/** Polls `fn` until it returns something other than undefined (fails after `ms`). */
export async function eventually<T>(fn: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** ` w0`, ` w1`, …: the tokens of the slow scripted agent. */
export const words = (n: number) => Array.from({ length: n }, (_, i) => ` w${i}`);

/** Two instances whose agent says `tokens` words, one every `delayMs` (they stop when the test run ends). */
export const twoSlow = (tokens: number, delayMs: number, yielded?: { count: number; ended?: () => void }) =>
  twoInstances(scriptedAgent(words(tokens), { delayMs, sources: ["https://example.com/s"], yielded }));

/** GET /v1/conversations/:id as JSON. */
export const conversation = async (base: string, key: string, id: string) =>
  (await (await get(base, key, `/v1/conversations/${id}`)).json()) as any;
