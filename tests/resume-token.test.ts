/**
 * A reply's resume token (its `start` event's `resume_token`): accepted as `?token=` on that
 * reply's events route instead of the Authorization header, as the reply's key (counted and
 * limited like its requests); anything else — tampered, expired, another reply's, another route,
 * an API key in the URL — is 401. In a browser's EventSource: tests/process/eventsource-browser.test.ts.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { revokeKey } from "../src/auth/index.ts";
import { RESUME_TOKEN_TTL_MS } from "../src/replies/index.ts";
import { expectError, type Harness, keyIdOf } from "./helpers/app.ts";
import { clocked } from "./helpers/clocked.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

/** The events of an SSE body, parsed. */
const eventsOf = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)));

/**
 * What a replay says: its text and its other events. Another test file's compaction (a clock of
 * its own, days ahead, on the shared store) may fold an ended reply's tokens into one event
 * between two reads; what the client sees (the text, the events around it) stays the same.
 */
const said = (events: { type: string; content?: string }[]) => ({
  text: events.flatMap((e) => (e.type === "token" ? [e.content] : [])).join(""),
  others: events.filter((e) => e.type !== "token"),
});

/** The id of an SSE body's last event. */
const lastId = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith("id: "))
    .at(-1)
    ?.slice(4);

/** A streamed reply of `key`: its ids and its start event's token. */
async function reply(h: Harness, key: string) {
  const res = await h.call("POST", "/v1/chat", { key, json: { message: "What is Elysia?", stream: true } });
  expect(res.status).toBe(200);
  const start = eventsOf(res.text)[0];
  expect(start.type).toBe("start");
  expect(start.resume_token).toMatch(/^v1\.\d+\.[\w-]{22}$/);
  const path = `/v1/conversations/${start.conversation_id}/messages/${start.message_id}`;
  return { path, token: start.resume_token as string, events: res.text };
}

describe("?token= on a reply's events route", () => {
  test("the token alone resumes its reply, from any position, like the key would", async () => {
    const { h } = await clocked();
    const key = await h.key();
    const r = await reply(h, key);
    const all = await h.call("GET", `${r.path}/events?token=${r.token}`, { key: null });
    expect(all.status).toBe(200);
    expect(all.headers.get("content-type")).toStartWith("text/event-stream");
    expect(said(eventsOf(all.text))).toEqual(said(eventsOf((await h.call("GET", `${r.path}/events`, { key })).text)));
    expect(eventsOf(all.text).at(-1)).toMatchObject({ type: "end", status: "completed" });
    const rest = await h.call("GET", `${r.path}/events?token=${r.token}`, {
      key: null,
      headers: { "last-event-id": "1" },
    });
    expect(said(eventsOf(rest.text))).toEqual(said(eventsOf(all.text).slice(1)));
    // At its end an ended reply answers 204: an EventSource stops reconnecting.
    const last = lastId(all.text)!;
    const ended = await h.call("GET", `${r.path}/events?token=${r.token}`, {
      key: null,
      headers: { "last-event-id": last },
    });
    expect(ended.status).toBe(204);
  });

  test("a tampered, expired or other reply's token, or one on another route, is 401", async () => {
    const { h, clock } = await clocked();
    const key = await h.key();
    const [a, b] = [await reply(h, key), await reply(h, key)];
    const refused = async (path: string, message: string | RegExp, method = "GET") => {
      const res = await h.call(method, path, { key: null });
      expectError(res, 401, "unauthorized");
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="parley"');
      expect(res.json.error.message).toMatch(message);
    };
    const tag = a.token.slice(-22);
    const flipped = `${a.token.slice(0, -22)}${tag[0] === "A" ? "B" : "A"}${tag.slice(1)}`;
    const [, expiry] = a.token.split(".");
    const later = a.token.replace(`.${expiry}.`, `.${Number(expiry) + 3600}.`);
    for (const token of [flipped, later, `${a.token}x`, "v1.1.AAAAAAAAAAAAAAAAAAAAAA", ""])
      await refused(`${a.path}/events?token=${encodeURIComponent(token)}`, /^Invalid resume token/);
    await refused(`${b.path}/events?token=${a.token}`, /^Invalid resume token/); // another reply
    const otherConversation = b.path.replace(/messages\/.*/, `messages/${a.path.split("/").at(-1)}`);
    await refused(`${otherConversation}/events?token=${a.token}`, /^Invalid resume token/);
    await refused(`${a.path}/events?token=${key}`, /^An API key is never accepted in a URL/);
    for (const [method, path] of [
      ["POST", `${a.path}/stop?token=${a.token}`],
      ["GET", `${a.path.replace(/\/messages\/.*/, "")}?token=${a.token}`],
      ["GET", `/v1/conversations?token=${a.token}`],
    ] as const)
      await refused(path, /^A resume token is accepted only on the events route of its own reply/, method);

    // Valid for an hour from the reply's start, not a millisecond more.
    clock.t += RESUME_TOKEN_TTL_MS - 1_000;
    expect((await h.call("GET", `${a.path}/events?token=${a.token}`, { key: null })).status).toBe(200);
    clock.t += 1_000;
    await refused(`${a.path}/events?token=${a.token}`, /^This resume token expired at .*Z; resume with/);
    expect((await h.call("GET", `${a.path}/events`, { key })).status).toBe(200); // the key still can
  });

  test("it is a request of the reply's key: counted, limited, refused once the key is revoked; a header wins", async () => {
    const { h } = await clocked();
    const key = await h.key("free", { rpm: 3 });
    const r = await reply(h, key); // 1
    const get = () => h.call("GET", `${r.path}/events?token=${r.token}`, { key: null });
    const first = await get(); // 2
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-remaining")).toBe("1");
    expect((await get()).status).toBe(200); // 3
    expectError(await get(), 429, "rate_limit_exceeded");

    const other = await h.key();
    const own = await reply(h, other);
    // With an Authorization header the token is not looked at: that key does not own the reply.
    const stranger = await h.key();
    expectError(await h.call("GET", `${own.path}/events?token=${own.token}`, { key: stranger }), 404, "not_found");
    expect(await revokeKey(h.store.db, await keyIdOf(h.store, other))).toBe(true);
    const revoked = await h.call("GET", `${own.path}/events?token=${own.token}`, { key: null });
    expectError(revoked, 401, "unauthorized");
    expect(revoked.json.error.message).toBe("Invalid or revoked API key.");
  });
});
