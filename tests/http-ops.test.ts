/**
 * Operating the standalone app: /readyz, opt-in CORS (preflight before auth and limits), the
 * access log (one line per request, never the secret), LOG_FORMAT, and what a shutdown cut logs.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { createApp } from "../src/app/app.ts";
import { loadEnv, optionsFromEnv } from "../src/config/env.ts";
import { createLogger } from "../src/config/logger.ts";
import type { Store } from "../src/db/client.ts";
import { scriptedAgent, stuckAgent } from "./helpers/agents.ts";
import { expectError, expectStatus, harness, send, testApp } from "./helpers/app.ts";
import { captureLog } from "./helpers/log.ts";

setDefaultTimeout(30_000);

const h = await harness();

describe("/readyz", () => {
  test("200 while the store answers; /healthz stays liveness", async () => {
    const r = await h.call("GET", "/readyz");
    expectStatus(r, 200);
    expect(r.json).toEqual({ status: "ready" });
  });

  test("503 JSON error when the store does not answer within the bound, while /healthz still says ok", async () => {
    // A store whose queries never settle: the worst case, a database that hangs.
    const hanging = { ...h.store, db: { ...h.store.db, execute: () => new Promise(() => {}) } } as unknown as Store;
    const app = createApp({ store: hanging, logger: createLogger("silent"), readyTimeoutMs: 20 });
    expectError(await send(app, "GET", "/readyz"), 503, "service_unavailable");
    expectStatus(await send(app, "GET", "/healthz"), 200);
    // A store that fails at once is not ready either.
    const failing = {
      ...h.store,
      db: { ...h.store.db, execute: () => Promise.reject(new Error("down")) },
    } as unknown as Store;
    expectError(
      await send(createApp({ store: failing, logger: createLogger("silent") }), "GET", "/readyz"),
      503,
      "service_unavailable",
    );
  });
});

describe("CORS (CORS_ORIGINS)", () => {
  const ORIGIN = "https://app.example";
  const preflight = (origin: string, path = "/v1/chat") => ({
    origin,
    "access-control-request-method": "POST",
    "access-control-request-headers": "authorization, content-type, idempotency-key, last-event-id",
  });

  test("a preflight is answered before auth and limits, and is not counted", async () => {
    const app = testApp({ store: h.store, logger: createLogger("silent"), options: { corsOrigins: [ORIGIN] } });
    const key = await h.key("free");
    const before = await send(app, "GET", "/v1/conversations", { key, headers: { origin: ORIGIN } });
    expectStatus(before, 200);
    const remaining = Number(before.headers.get("x-ratelimit-remaining"));
    for (const path of [
      "/v1/chat",
      "/v1/conversations",
      "/v1/conversations/conv_x",
      "/v1/conversations/conv_x/messages",
    ]) {
      const r = await send(app, "OPTIONS", path, { headers: preflight(ORIGIN) });
      expect({ status: r.status, body: r.text }).toEqual({ status: 204, body: "" });
      expect(r.headers.get("access-control-allow-origin")).toBe(ORIGIN);
      const allowed = r.headers.get("access-control-allow-headers")!.toLowerCase();
      for (const hdr of ["authorization", "content-type", "idempotency-key", "last-event-id"])
        expect(allowed).toContain(hdr);
      expect(r.headers.get("access-control-allow-methods")).toContain("POST");
      expect(r.headers.get("access-control-allow-methods")).toContain("DELETE");
    }
    const after = await send(app, "GET", "/v1/conversations", { key, headers: { origin: ORIGIN } });
    expect(Number(after.headers.get("x-ratelimit-remaining"))).toBe(remaining - 1);
    // The page can read the limits, Retry-After and the request id, on success and on errors.
    for (const r of [after, await send(app, "GET", "/v1/conversations", { headers: { origin: ORIGIN } })]) {
      expect(r.headers.get("access-control-allow-origin")).toBe(ORIGIN);
      const exposed = r.headers.get("access-control-expose-headers")!.toLowerCase();
      for (const hdr of [
        "x-ratelimit-remaining",
        "x-ratelimit-limit",
        "x-ratelimit-reset",
        "ratelimit",
        "retry-after",
        "x-request-id",
      ]) {
        expect(exposed.split(/,\s*/)).toContain(hdr);
      }
    }
  });

  test("another origin gets no CORS headers; without CORS_ORIGINS there is no CORS at all", async () => {
    const app = testApp({ store: h.store, logger: createLogger("silent"), options: { corsOrigins: [ORIGIN] } });
    const other = await send(app, "OPTIONS", "/v1/chat", { headers: preflight("https://evil.example") });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const plain = await h.call("OPTIONS", "/v1/chat", { headers: preflight(ORIGIN) });
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
    expectError(plain, 405, "method_not_allowed");
    const star = testApp({ store: h.store, logger: createLogger("silent"), options: { corsOrigins: "*" } });
    expect(
      (await send(star, "OPTIONS", "/v1/chat", { headers: preflight("https://any.example") })).headers.get(
        "access-control-allow-origin",
      ),
    ).toBe("*");
  });

  test("Vary: Origin on every answer under a list: listed, unlisted and absent origins, success and errors", async () => {
    const app = testApp({ store: h.store, logger: createLogger("silent"), options: { corsOrigins: [ORIGIN] } });
    const key = await h.key();
    let answers = 0;
    for (const origin of [ORIGIN, "https://evil.example", undefined])
      for (const k of [key, undefined]) {
        const r = await send(app, "GET", "/v1/conversations", { key: k, headers: origin ? { origin } : {} });
        expect(r.status, r.text).toBe(k ? 200 : 401);
        expect(r.headers.get("vary") ?? "", `${origin} ${r.status}`).toMatch(/(^|,\s*)Origin(,|$)/i);
        expect(r.headers.get("access-control-allow-origin")).toBe(origin === ORIGIN ? ORIGIN : null);
        answers++;
      }
    expect(answers).toBe(6);
  });

  test("subdomain wildcards: https://*.example.com matches its subdomains only, with that scheme and port", async () => {
    const origins = optionsFromEnv(loadEnv({ CORS_ORIGINS: "https://*.example.com, http://*.local.test:8080" }))
      .corsOrigins!;
    expect(origins).toEqual(["https://*.example.com", "http://*.local.test:8080"]);
    const app = testApp({ store: h.store, logger: createLogger("silent"), options: { corsOrigins: origins } });
    const allowed = ["https://app.example.com", "https://a.b.example.com", "http://x.local.test:8080"];
    const refused = [
      "https://example.com",
      "http://app.example.com",
      "https://app.example.com:8443",
      "https://evilexample.com",
      "https://app.example.com.evil.net",
      "https://x.local.test",
      "https://a_b.example.com",
    ];
    for (const origin of [...allowed, ...refused]) {
      const r = await send(app, "OPTIONS", "/v1/chat", { headers: preflight(origin) });
      expect(r.headers.get("access-control-allow-origin"), origin).toBe(allowed.includes(origin) ? origin : null);
    }
    for (const bad of ["https://a.*.example.com", "https://*example.com", "*.example.com", "https://*.example.com/x"])
      expect(() => loadEnv({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS/);
  });

  test("CORS_ORIGINS is validated at start", () => {
    expect(optionsFromEnv(loadEnv({ CORS_ORIGINS: "https://a.example, http://localhost:5173" })).corsOrigins).toEqual([
      "https://a.example",
      "http://localhost:5173",
    ]);
    expect(optionsFromEnv(loadEnv({ CORS_ORIGINS: "*" })).corsOrigins).toBe("*");
    expect(optionsFromEnv(loadEnv({})).corsOrigins).toBeUndefined();
    for (const bad of ["a.example", "https://a.example/path", "*,https://a.example", "ftp://a.example"]) {
      expect(() => loadEnv({ CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS/);
    }
  });
});

describe("access log", () => {
  test("one info line per request: method, route pattern, status, duration, request id, key id — never the secret", async () => {
    const log = captureLog();
    const app = testApp({ store: h.store, logger: log.logger, agent: scriptedAgent(["hi"]) });
    const key = await h.key();
    const chat = await send(app, "POST", "/v1/chat", { key, json: { message: "hello" } });
    expectStatus(chat, 200);
    const detail = await send(app, "GET", `/v1/conversations/${chat.json.conversation_id}`, { key });
    const bad = await send(app, "GET", "/v1/conversations", { key: `prl_${"x".repeat(43)}` });
    await send(app, "GET", "/healthz");
    await log.waitFor((e) => e.msg === "request", 4); // the after-response hook runs on the next turn
    const lines = log.entries().filter((e) => e.msg === "request");
    const of = (r: { headers: Headers }): Array<Record<string, any>> =>
      lines.filter((l) => l.request_id === r.headers.get("x-request-id"));
    expect(of(chat)).toHaveLength(1);
    expect(of(chat)[0]).toMatchObject({ level: "info", method: "POST", route: "/v1/chat", status: 200 });
    expect(of(chat)[0]!.key_id).toMatch(/^key_/);
    expect(typeof of(chat)[0]!.duration_ms).toBe("number");
    expect(of(detail)[0]).toMatchObject({ method: "GET", route: "/v1/conversations/:id", status: 200 });
    expect(of(bad)[0]).toMatchObject({ route: "/v1/conversations", status: 401 });
    expect(of(bad)[0]!.key_id).toBeUndefined();
    expect(lines.find((l) => l.route === "/healthz")?.level).toBe("debug");
    expect(log.text()).not.toContain(key);
    expect(log.text()).not.toContain(key.slice(4, 20));
  });

  test("LOG_FORMAT: json lines or readable text", () => {
    expect(loadEnv({}).LOG_FORMAT).toBe("json");
    expect(loadEnv({ LOG_FORMAT: "text" }).LOG_FORMAT).toBe("text");
    expect(() => loadEnv({ LOG_FORMAT: "xml" })).toThrow(/LOG_FORMAT/);
    const lines: string[] = [];
    createLogger("info", "json", (l) => void lines.push(l)).info({ status: 200, route: "/v1/chat" }, "request");
    createLogger("info", "text", (l) => void lines.push(l)).info(
      { status: 200, route: "/v1/chat", note: "two words" },
      "request",
    );
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "info", msg: "request", status: 200, route: "/v1/chat" });
    expect(lines[1]).toMatch(/^\S+Z INFO {2}request status=200 route=\/v1\/chat note="two words"$/);
    // The older (msg, fields) order still works on our logger.
    createLogger("info", "json", (l) => void lines.push(l)).info("old order", { a: 1 });
    expect(JSON.parse(lines[2]!)).toMatchObject({ msg: "old order", a: 1 });
  });

  test("a JSON chat cut by shutdown logs at warn, without a stack", async () => {
    const log = captureLog();
    const app = testApp({ store: h.store, logger: log.logger, agent: stuckAgent(["half"]) });
    const runs = app.parley.replies;
    const key = await h.key();
    const pending = send(app, "POST", "/v1/chat", { key, json: { message: "hello" } });
    while (runs.running === 0) await new Promise((r) => setTimeout(r, 5));
    await runs.drain(0);
    expectError(await pending, 503, "service_unavailable");
    const failed = log.entries().filter((e) => e.level === "error");
    expect(failed, log.text()).toEqual([]);
    expect(log.entries().find((e) => e.msg === "request failed")?.level).toBe("warn");
    expect(log.text()).not.toContain("stack");
    await app.parley.close();
  });
});
