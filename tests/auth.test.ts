/** Authentication on every /v1 route: happy, errors, security. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Agent } from "../src/agent/types.ts";
import { generateSecret } from "../src/auth/keys.ts";
import { listKeys, revokeKey } from "../src/auth/keys-admin.ts";
import { apiKeys } from "../src/db/schema.ts";
import { expectError, expectStatus, harness, keyIdOf, send, testApp } from "./helpers/app.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const h = await harness();
const routes: [string, string][] = [
  ["POST", "/v1/chat"],
  ["GET", "/v1/conversations"],
  ["GET", "/v1/conversations/conv_01jd5x8r7mf6sb1b2k3n4p5q6r"],
  ["DELETE", "/v1/conversations/conv_01jd5x8r7mf6sb1b2k3n4p5q6r"],
];

describe("auth", () => {
  test("a valid key is served", async () => {
    const key = await h.key();
    expectStatus(await h.call("GET", "/v1/conversations", { key }), 200);
  });

  for (const [method, path] of routes) {
    test(`${method} ${path} without a key → 401 with WWW-Authenticate`, async () => {
      const r = await h.call(method, path, { json: method === "POST" ? { message: "hi" } : undefined });
      expectError(r, 401, "unauthorized");
      expect(r.headers.get("www-authenticate")).toStartWith("Bearer");
    });
  }

  test.each([
    ["malformed scheme", "Basic abc"],
    ["bearer without token", "Bearer "],
    ["not our format", "Bearer sk_live_123"],
    ["unknown well-formed key", `Bearer ${generateSecret()}`],
    ["two tokens", `Bearer ${generateSecret()} extra`],
  ])("%s → 401", async (_name, authorization) => {
    const r = await h.call("GET", "/v1/conversations", { headers: { authorization } });
    expectError(r, 401, "unauthorized");
    // The answer never echoes the credential (short tokens could occur in the random request id).
    const token = authorization.split(" ")[1] ?? "";
    if (token.length >= 8) expect(r.text).not.toContain(token);
  });

  test("a revoked key is refused on the next request", async () => {
    const key = await h.key();
    expectStatus(await h.call("GET", "/v1/conversations", { key }), 200);
    const id = await keyIdOf(h.store, key);
    expect(await revokeKey(h.store.db, id)).toBe(true);
    expectError(await h.call("GET", "/v1/conversations", { key }), 401, "unauthorized");
    expect(await revokeKey(h.store.db, id)).toBe(false);
  });

  test("bad body with no key is still 401 (auth comes first)", async () => {
    const r = await h.call("POST", "/v1/chat", { body: "{not json", headers: { "content-type": "application/json" } });
    expectError(r, 401, "unauthorized");
  });

  test("keys are stored as SHA-256 only, with a short display prefix", async () => {
    const key = await h.key();
    const listed = (await listKeys(h.store.db)).find((k) => key.startsWith(k.prefix));
    expect(listed).toBeDefined();
    expect(listed!.prefix.length).toBeLessThan(16);
    expect(JSON.stringify(await listKeys(h.store.db))).not.toContain(key);
    // What the database holds, computed independently of the app's own hashSecret.
    const [stored] = await h.store.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.id, await keyIdOf(h.store, key)));
    expect(stored!.hash).toBe(createHash("sha256").update(key).digest("hex"));
    expect(JSON.stringify(stored)).not.toContain(key);
  });

  test("healthz needs no key", async () => {
    const r = await h.call("GET", "/healthz");
    expectStatus(r, 200);
    expect(r.json).toEqual({ status: "ok" });
    expect(r.headers.get("x-request-id")).toMatch(/^req_/);
  });

  test("neither keys nor Authorization values reach the log, even on server errors", async () => {
    const lines: string[] = [];
    // A host's own logger, pino-style `(fields, msg)`: it gets what the library passes, unreduced by ours.
    const record = (fields: Record<string, unknown>, msg: string) =>
      void lines.push(
        JSON.stringify({ msg, fields }, (_k, v) => (v instanceof Error ? { message: v.message, stack: v.stack } : v)),
      );
    const logger = { debug: record, info: record, warn: record, error: record };
    const failing: Agent = {
      respond: () => {
        throw new Error("boom");
      },
    };
    const app = testApp({ store: h.store, logger, agent: failing });
    const key = await h.key();
    const r = await send(app, "POST", "/v1/chat", { key, json: { message: "hello" } });
    expectError(r, 500, "generation_failed");
    await send(app, "GET", "/v1/conversations", { headers: { authorization: `Bearer ${key.slice(0, -1)}x` } });
    expect(lines.length).toBeGreaterThan(0);
    const all = lines.join("\n");
    expect(all).not.toContain(key.slice(4, 20));
    expect(all.toLowerCase()).not.toContain("bearer");
  });
});

describe("http surface", () => {
  test("unknown route → 404 JSON, known path with wrong method → 405 with Allow", async () => {
    const key = await h.key();
    expectError(await h.call("GET", "/v1/nope", { key }), 404, "not_found");
    expectError(await h.call("GET", "/nope"), 404, "not_found");
    const r = await h.call("PUT", "/v1/chat", { key });
    expectError(r, 405, "method_not_allowed");
    expect(r.headers.get("allow")).toBe("POST");
    const r2 = await h.call("POST", "/v1/conversations/conv_01jd5x8r7mf6sb1b2k3n4p5q6r", { key });
    expectError(r2, 405, "method_not_allowed");
    expect(r2.headers.get("allow")?.split(", ").sort()).toEqual(["DELETE", "GET"]);
  });

  test("every response carries X-Request-Id; a sane incoming one is kept", async () => {
    const key = await h.key();
    const a = await h.call("GET", "/v1/conversations", { key });
    expect(a.headers.get("x-request-id")).toMatch(/^req_/);
    const b = await h.call("GET", "/v1/conversations", { key, headers: { "x-request-id": "trace-12345678" } });
    expect(b.headers.get("x-request-id")).toBe("trace-12345678");
    const c = await h.call("GET", "/v1/conversations", { key, headers: { "x-request-id": "bad id\u0001" } });
    expect(c.headers.get("x-request-id")).toMatch(/^req_/);
  });
});
