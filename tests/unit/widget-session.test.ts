/**
 * The widget's visitor session (widget/session.ts) and calls (widget/api.ts) against a fake
 * fetch: the token kept per public key, reused while fresh, refreshed a minute before expiry with
 * the old token (same visitor, same conversation), a proof of work solved when the key asks for
 * one, a chat retried once after `token_expired`, and the messages a visitor reads for failures.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { createChallenge, verifySolution } from "altcha-lib/v1";
import { ParleyError } from "../../src/client/errors.ts";
import { createApi, describeError } from "../../widget/api.ts";
import {
  createSession,
  REFRESH_MARGIN_MS,
  REFRESH_WINDOW_MS,
  readStored,
  type Stored,
  sessionState,
  storageKey,
  writeStored,
} from "../../widget/session.ts";

setDefaultTimeout(30_000);

const HMAC = "test-hmac-key";
const T0 = Date.parse("2026-01-01T12:00:00Z");

/** An in-memory Storage (only what the widget uses). */
function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
  } as Storage;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const error = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { error: { type: "x", code, message: code }, request_id: "req_1" }, headers);

/** A fake Parley for sessions and challenges; `seen` records each call's path, bearer and body. */
function fakeParley(o: { pow?: boolean; refuseRefresh?: boolean } = {}) {
  const seen: { path: string; bearer: string; body: Record<string, unknown> }[] = [];
  let n = 0;
  const fetch = async (url: string, init: RequestInit) => {
    const path = new URL(url).pathname;
    const bearer = String((init.headers as Record<string, string>).authorization).replace("Bearer ", "");
    const body = init.body ? JSON.parse(String(init.body)) : {};
    seen.push({ path, bearer, body });
    if (path === "/v1/widget/challenges") return json(201, await createChallenge({ hmacKey: HMAC, maxnumber: 300 }));
    if (bearer.startsWith("pvt_")) {
      if (o.refuseRefresh) return error(401, "unauthorized");
      return json(201, {
        token: `pvt_${++n}`,
        visitor_id: "vis_1",
        expires_at: new Date(now() + 3600_000).toISOString(),
      });
    }
    if (o.pow && !body.proof) return error(403, "proof_of_work_required");
    if (o.pow && !(await verifySolution(body.proof, HMAC))) return error(403, "permission_denied");
    return json(201, {
      token: `pvt_${++n}`,
      visitor_id: `vis_new${n}`,
      expires_at: new Date(now() + 3600_000).toISOString(),
    });
  };
  let clock = T0;
  const now = () => clock;
  return { fetch, seen, now, advance: (ms: number) => (clock += ms) };
}

describe("widget session", () => {
  test("fresh until a minute before expiry, then refreshed for 7 days, then new", () => {
    const s = { token: "pvt_a", visitor_id: "vis_a", expires_at: new Date(T0).toISOString() };
    expect(sessionState(null, T0)).toBe("new");
    expect(sessionState(s, T0 - REFRESH_MARGIN_MS - 1)).toBe("fresh");
    expect(sessionState(s, T0 - REFRESH_MARGIN_MS + 1)).toBe("refresh");
    expect(sessionState(s, T0 + REFRESH_WINDOW_MS - 1)).toBe("refresh");
    expect(sessionState(s, T0 + REFRESH_WINDOW_MS)).toBe("new");
    expect(sessionState({ ...s, expires_at: "garbage" }, T0)).toBe("new");
  });

  test("storage that throws or holds junk reads as nothing and never breaks the widget", () => {
    const throwing = {
      getItem: () => {
        throw new Error("SecurityError");
      },
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
      removeItem: () => {},
    } as unknown as Storage;
    expect(readStored(throwing, "k")).toBeNull();
    expect(() => writeStored(throwing, "k", null)).not.toThrow();
    const mem = memoryStorage();
    mem.setItem("k", "{not json");
    expect(readStored(mem, "k")).toBeNull();
    mem.setItem("k", JSON.stringify({ token: 1 }));
    expect(readStored(mem, "k")).toBeNull();
    expect(readStored(null, "k")).toBeNull();
  });

  test("a new session is asked with the public key, stored per key and reused while fresh", async () => {
    const f = fakeParley();
    const storage = memoryStorage();
    const session = createSession({ baseUrl: "https://p.example/", publicKey: "pk_a", storage, ...f });
    const [a, b] = await Promise.all([session.token(), session.token()]);
    expect(a).toBe("pvt_1");
    expect(b).toBe("pvt_1"); // concurrent callers share one request
    expect(f.seen).toEqual([{ path: "/v1/widget/sessions", bearer: "pk_a", body: {} }]);
    expect(readStored(storage, storageKey("pk_a"))).toMatchObject({ token: "pvt_1", visitor_id: "vis_new1" });
    f.advance(3600_000 - REFRESH_MARGIN_MS - 1_000);
    expect(await session.token()).toBe("pvt_1");
    expect(f.seen).toHaveLength(1);
  });

  test("a signed-in user's token (data-user-token) goes with every opening and renewal, read afresh each time", async () => {
    const f = fakeParley();
    let user = "jwt-1";
    const session = createSession({
      baseUrl: "https://p.example/",
      publicKey: "pk_u",
      storage: memoryStorage(),
      userToken: () => user,
      ...f,
    });
    await session.token();
    user = "jwt-2";
    await session.token(true);
    expect(f.seen.map((c) => [c.bearer, c.body])).toEqual([
      ["pk_u", { user_token: "jwt-1" }],
      ["pvt_1", { user_token: "jwt-2" }],
    ]);
  });

  test("a minute before expiry (or expired) the old token refreshes: same visitor, same conversation", async () => {
    const f = fakeParley();
    const storage = memoryStorage();
    const old: Stored = {
      token: "pvt_old",
      visitor_id: "vis_1",
      expires_at: new Date(T0 - 3 * 24 * 3600_000).toISOString(),
      conversation_id: "conv_1",
    };
    writeStored(storage, storageKey("pk_a"), old);
    const session = createSession({ baseUrl: "https://p.example", publicKey: "pk_a", storage, ...f });
    expect(session.conversationId).toBe("conv_1");
    expect(await session.token()).toBe("pvt_1");
    expect(f.seen[0]).toMatchObject({ bearer: "pvt_old" });
    expect(session.conversationId).toBe("conv_1");
    expect(readStored(storage, storageKey("pk_a"))).toMatchObject({ token: "pvt_1", conversation_id: "conv_1" });
  });

  test("a refresh refused: a new visitor from the public key, without the old conversation", async () => {
    const f = fakeParley({ refuseRefresh: true });
    const storage = memoryStorage();
    writeStored(storage, storageKey("pk_a"), {
      token: "pvt_old",
      visitor_id: "vis_1",
      expires_at: new Date(T0).toISOString(),
      conversation_id: "conv_1",
    });
    const session = createSession({ baseUrl: "https://p.example", publicKey: "pk_a", storage, ...f });
    await session.token();
    expect(f.seen.map((s) => s.bearer)).toEqual(["pvt_old", "pk_a"]);
    expect(session.conversationId).toBeNull();
  });

  test("proof_of_work_required: the challenge is solved and sent as base64 JSON the server verifies", async () => {
    const f = fakeParley({ pow: true });
    const session = createSession({ baseUrl: "https://p.example", publicKey: "pk_a", storage: null, ...f });
    expect(await session.token()).toBe("pvt_1");
    expect(f.seen.map((s) => s.path)).toEqual(["/v1/widget/sessions", "/v1/widget/challenges", "/v1/widget/sessions"]);
    const proof = JSON.parse(atob(String(f.seen[2]!.body.proof)));
    expect(Object.keys(proof).sort()).toEqual(["algorithm", "challenge", "number", "salt", "signature"]);
  });
});

describe("widget calls", () => {
  test("a chat answered 401 token_expired renews the session and is asked again, once", async () => {
    const f = fakeParley();
    let chats = 0;
    const sse = [
      { type: "start", conversation_id: "conv_9", message_id: "msg_9" },
      { type: "token", content: "Hi" },
      { type: "end", message_id: "msg_9", status: "completed", usage: null },
    ]
      .map((e, i) => `id: ${i + 1}\ndata: ${JSON.stringify(e)}\n\n`)
      .join("");
    const fetch = async (url: string, init: RequestInit) => {
      if (!url.endsWith("/v1/chat")) return f.fetch(url, init);
      if (++chats === 1) return error(401, "token_expired");
      expect((init.headers as Record<string, string>).authorization).toBe("Bearer pvt_2");
      expect(JSON.parse(String(init.body))).toEqual({ message: "Hello", stream: true, knowledge_base_id: "kb_docs" });
      return new Response(sse, { headers: { "content-type": "text/event-stream" } });
    };
    const storage = memoryStorage();
    const api = createApi({
      baseUrl: "https://p.example",
      publicKey: "pk_a",
      knowledgeBase: "kb_docs",
      storage,
      fetch,
      now: f.now,
    });
    const types: string[] = [];
    for await (const e of api.ask("Hello")) types.push(e.type);
    expect(types).toEqual(["start", "token", "end"]);
    expect(chats).toBe(2);
    expect(api.session.conversationId).toBe("conv_9");
    expect(readStored(storage, storageKey("pk_a"))?.conversation_id).toBe("conv_9");
  });

  test("what a visitor reads: limits with their wait, a site not allowed, no connection", () => {
    const e = (status: number, code: string, retryAfter?: number) =>
      new ParleyError(status, code as never, code, { retryAfter });
    expect(describeError(e(429, "rate_limit_exceeded", 12))).toBe("Too many questions right now; try again in 12 s.");
    expect(describeError(e(429, "daily_quota_exceeded", 7200))).toBe(
      "This assistant has reached its limit for today; try again in 2 h.",
    );
    expect(describeError(e(429, "rate_limit_exceeded"))).toBe("Too many questions right now; try again later.");
    expect(describeError(e(403, "permission_denied"))).toBe("This site is not allowed to use this assistant.");
    expect(describeError(e(0, "connection_error"))).toContain("could not be reached");
    expect(describeError(new Error("x"))).toContain("Something went wrong");
  });
});
