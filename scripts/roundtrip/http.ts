/** Requests to an app in process (`app.handle`), and Server-Sent Events read with eventsource-parser. */
import { createParser } from "eventsource-parser";
import type { Agent } from "../../src/agent/index.ts";
import { createApp } from "../../src/app/app.ts";
import { createLogger } from "../../src/config/logger.ts";
import type { Store } from "../../src/mod.ts";

export type App = ReturnType<typeof createApp>;

/** The app on `store`, quiet (its sweeper runs until `app.parley.close()`). */
export const appOn = (store: Store, agent?: Agent): App => createApp({ store, agent, logger: createLogger("silent") });

export function request(
  app: App,
  method: string,
  path: string,
  key: string,
  init: { json?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, ...init.headers };
  if (init.json !== undefined) headers["content-type"] = "application/json";
  const body = init.json === undefined ? undefined : JSON.stringify(init.json);
  return app.handle(new Request(`http://parley.local${path}`, { method, headers, body }));
}

/** The JSON answer; any status but 2xx throws with the body. */
export async function json<T = any>(
  app: App,
  method: string,
  path: string,
  key: string,
  init: { json?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const res = await request(app, method, path, key, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

export interface SseEvent {
  id: number;
  data: any;
}

/**
 * Reads an event stream: every event until it ends, or until `until` says stop (the rest is
 * then left to `rest()`, which reads on to the end, or to `cancel()`, which drops the connection).
 */
export async function readEvents(res: Response, until?: (events: SseEvent[]) => boolean) {
  if (!res.ok || !res.body) throw new Error(`event stream: ${res.status} ${await res.text()}`);
  const events: SseEvent[] = [];
  const parser = createParser({ onEvent: (e) => events.push({ id: Number(e.id), data: JSON.parse(e.data) }) });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const pump = async (stop?: (events: SseEvent[]) => boolean) => {
    for (;;) {
      if (stop?.(events)) return;
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  };
  await pump(until);
  return {
    events,
    rest: async () => {
      await pump();
      return events;
    },
    cancel: () => reader.cancel(),
  };
}

/** The text the token events carry, concatenated. */
export const tokensOf = (events: SseEvent[]) =>
  events
    .filter((e) => e.data.type === "token")
    .map((e) => e.data.content as string)
    .join("");
