/** Public keys and their visitors: sessions, what a visitor token may and may not do, limits, proof of work, user tokens. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { solveChallenge } from "altcha-lib/v1";
import { SignJWT } from "jose";
import type { ApiKey, CreatedApiKey, WidgetChallenge, WidgetSession } from "../src/contract/index.ts";
import { type CallInit, expectError, expectStatus, harness, type Reply } from "./helpers/app.ts";

setDefaultTimeout(30_000);

let clock = Date.now();
// A small proof-of-work search space: solving the default's (up to 100,000 hashes) took seconds here.
const h = await harness({ now: () => clock, options: { trustProxy: 1, proofOfWorkMaxNumber: 1_000 } });
const admin = await h.admin();
const SITE = "https://docs.example.com";
const OTHER = "https://evil.example.net";
let ipSeq = 0;
/** Each test its own client address, so the per-IP windows of one never reach another's. */
const newIp = () => `203.0.113.${++ipSeq}`;

const publicKey = async (json: Record<string, unknown> = {}): Promise<CreatedApiKey> => {
  const r = await h.call<CreatedApiKey>("POST", "/v1/keys", {
    key: admin,
    json: { name: "docs widget", plan: "pro", role: "public", allowed_origins: [SITE], ...json },
  });
  expectStatus(r, 201);
  return r.json;
};

/** A call from a page: the Origin and client address a browser would send. */
const fromPage = (key: string, ip: string, init: CallInit = {}, origin = SITE): CallInit => ({
  ...init,
  key,
  headers: { origin, "x-forwarded-for": ip, ...init.headers },
});

const session = async (pk: string, ip: string, json: unknown = {}, origin = SITE) =>
  h.call<WidgetSession>("POST", "/v1/widget/sessions", fromPage(pk, ip, { json }, origin));

const openSession = async (pk: string, ip: string) => {
  const r = await session(pk, ip);
  expectStatus(r, 201);
  return r.json;
};

const ask = (token: string, ip: string, message = "How do I install it?", origin = SITE) =>
  h.call("POST", "/v1/chat", fromPage(token, ip, { json: { message } }, origin));

describe("public keys", () => {
  test("need exact allowed origins; take widget fields only as public keys; their secret is shown whole", async () => {
    const k = await publicKey({ visitor_rpm: 5 });
    expect(k.secret).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    expect(k.prefix).toBe(k.secret);
    expect(k.widget).toEqual({
      allowed_origins: [SITE],
      visitor_rpm: 5,
      visitor_rpd: 200,
      ip_rpm: 30,
      ip_rpd: 600,
      require_proof_of_work: false,
      user_tokens: false,
    });
    const create = (json: Record<string, unknown>) =>
      h.call("POST", "/v1/keys", { key: admin, json: { name: "x", plan: "pro", ...json } });
    expectError(await create({ role: "public" }), 400, "invalid_request");
    expectError(await create({ role: "public", allowed_origins: [] }), 400, "invalid_request");
    for (const bad of ["https://*.example.com", "https://docs.example.com/path", "ftp://x.example", "docs.example.com"])
      expect((await create({ role: "public", allowed_origins: [bad] })).json).toMatchObject({
        error: { param: "allowed_origins" },
      });
    expect((await create({ allowed_origins: [SITE] })).json).toMatchObject({ error: { param: "allowed_origins" } });
    const chat = await h.call<CreatedApiKey>("POST", "/v1/keys", { key: admin, json: { name: "c", plan: "pro" } });
    const toPublic = await h.call("PATCH", `/v1/keys/${chat.json.id}`, { key: admin, json: { role: "public" } });
    expect(toPublic.json).toMatchObject({ error: { param: "role" } });
    const patched = await h.call<ApiKey>("PATCH", `/v1/keys/${k.id}`, {
      key: admin,
      json: { allowed_origins: [SITE, "http://localhost:8080"], require_proof_of_work: true },
    });
    expectStatus(patched, 200);
    expect(patched.json.widget).toMatchObject({
      allowed_origins: [SITE, "http://localhost:8080"],
      visitor_rpm: 5,
      require_proof_of_work: true,
    });
  });

  test("a public key alone is no chat key: 403 on every route but the session ones", async () => {
    const { secret } = await publicKey();
    const ip = newIp();
    for (const [method, path, json] of [
      ["POST", "/v1/chat", { message: "hi" }],
      ["GET", "/v1/conversations", undefined],
      ["GET", "/v1/keys", undefined],
      ["GET", "/v1/usage", undefined],
      ["GET", "/v1/knowledge_bases", undefined],
      ["POST", "/v1/chat/completions", { model: "parley", messages: [{ role: "user", content: "hi" }] }],
      ["POST", "/v1/responses", { model: "parley", input: "hi" }],
    ] as const)
      expectError(await h.call(method, path, fromPage(secret, ip, { json })), 403, "permission_denied");
  });

  test("sessions open only from an allowed Origin, which the answer lets read", async () => {
    const { secret } = await publicKey();
    const ip = newIp();
    expectError(await h.call("POST", "/v1/widget/sessions", { key: secret, json: {} }), 403, "permission_denied");
    const other = await session(secret, ip, {}, OTHER);
    expectError(other, 403, "permission_denied");
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const ok = await session(secret, ip);
    expectStatus(ok, 201);
    expect(ok.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(ok.json.token).toMatch(/^pvt_/);
    expect(ok.json.visitor_id).toMatch(/^vis_/);
    expect(Date.parse(ok.json.expires_at) - clock).toBe(3_600_000);
    const chatKey = await h.key();
    expectError(await session(chatKey, ip), 403, "permission_denied");
  });
});

describe("visitor tokens", () => {
  test("chat, resume, rate and read their own conversations; never another visitor's", async () => {
    const { secret } = await publicKey();
    const ip = newIp();
    const alice = await openSession(secret, ip);
    const bob = await openSession(secret, ip);
    const asked = await ask(alice.token, ip);
    expectStatus(asked, 200);
    const reply = asked.json as { id: string; conversation_id: string };
    const conv = `/v1/conversations/${reply.conversation_id}`;
    expectStatus(await h.call("GET", conv, fromPage(alice.token, ip)), 200);
    expectStatus(await h.call("GET", `${conv}/messages/${reply.id}/events`, fromPage(alice.token, ip)), 200);
    const rate = { json: { rating: "up" } };
    expectStatus(await h.call("PUT", `${conv}/messages/${reply.id}/feedback`, fromPage(alice.token, ip, rate)), 200);
    const list = await h.call("GET", "/v1/conversations", fromPage(alice.token, ip));
    expect((list.json as { data: { id: string }[] }).data.map((c) => c.id)).toEqual([reply.conversation_id]);
    // Bob: the same key, another visitor.
    expectError(await h.call("GET", conv, fromPage(bob.token, ip)), 404, "not_found");
    expectError(await h.call("GET", `${conv}/messages`, fromPage(bob.token, ip)), 404, "not_found");
    expectError(await h.call("GET", `${conv}/messages/${reply.id}/events`, fromPage(bob.token, ip)), 404, "not_found");
    expectError(await h.call("POST", `${conv}/messages/${reply.id}/stop`, fromPage(bob.token, ip)), 404, "not_found");
    expectError(
      await h.call("PUT", `${conv}/messages/${reply.id}/feedback`, fromPage(bob.token, ip, rate)),
      404,
      "not_found",
    );
    const continued = { json: { message: "and then?", conversation_id: reply.conversation_id } };
    expectError(await h.call("POST", "/v1/chat", fromPage(bob.token, ip, continued)), 404, "not_found");
    const bobList = await h.call("GET", "/v1/conversations", fromPage(bob.token, ip));
    expect((bobList.json as { data: unknown[] }).data).toEqual([]);
  });

  test("refused for admin routes, deleting, another origin, a revoked key, and once expired", async () => {
    const k = await publicKey({ allowed_origins: [SITE, "http://localhost:3000"] });
    const ip = newIp();
    const visitor = await openSession(k.secret, ip);
    for (const [method, path] of [
      ["GET", "/v1/keys"],
      ["GET", "/v1/usage"],
      ["GET", "/v1/feedback"],
      ["GET", "/v1/knowledge_bases"],
      ["POST", "/v1/knowledge_bases/kb_01m85g5npgfzrtbs7dcm30btjf/search"],
      ["GET", "/v1/models"],
      ["POST", "/v1/responses"],
      ["GET", "/v1/responses/resp_01m85g5npgfzrtbs7dcm30btjf"],
    ] as const)
      expectError(await h.call(method, path, fromPage(visitor.token, ip, { json: {} })), 403, "permission_denied");
    const asked = await ask(visitor.token, ip);
    const conv = `/v1/conversations/${(asked.json as { conversation_id: string }).conversation_id}`;
    expectError(await h.call("DELETE", conv, fromPage(visitor.token, ip)), 403, "permission_denied");
    // Another allowed origin is still not the token's.
    expectError(await ask(visitor.token, ip, "hi", "http://localhost:3000"), 403, "permission_denied");
    expectError(await ask(visitor.token, ip, "hi", OTHER), 403, "permission_denied");
    expectError(
      await h.call("POST", "/v1/chat", {
        key: visitor.token,
        json: { message: "hi" },
        headers: { "x-forwarded-for": ip },
      }),
      403,
      "permission_denied",
    );
    // A GET without Origin is what a page on Parley's own origin sends: the token's own page.
    expectStatus(await h.call("GET", conv, { key: visitor.token, headers: { "x-forwarded-for": ip } }), 200);
    const forged = `${visitor.token.slice(0, -2)}${visitor.token.endsWith("AA") ? "BB" : "AA"}`;
    expectError(await ask(forged, ip), 401, "unauthorized");
    // Expired: refused; renewed with the old token: the same visitor, its conversations still its own.
    clock += 3_600_000;
    expectError(await ask(visitor.token, ip), 401, "token_expired");
    const renewed = await h.call<WidgetSession>(
      "POST",
      "/v1/widget/sessions",
      fromPage(visitor.token, ip, { json: {} }),
    );
    expectStatus(renewed, 201);
    expect(renewed.json.visitor_id).toBe(visitor.visitor_id);
    expectStatus(await h.call("GET", conv, fromPage(renewed.json.token, ip)), 200);
    clock += 8 * 86_400_000;
    expectError(
      await h.call("POST", "/v1/widget/sessions", fromPage(renewed.json.token, ip, { json: {} })),
      401,
      "token_expired",
    );
    const fresh = await openSession(k.secret, ip);
    expectStatus(await h.call("POST", `/v1/keys/${k.id}/revoke`, { key: admin }), 200);
    expectError(await ask(fresh.token, ip), 401, "unauthorized");
    expectError(await session(k.secret, ip), 401, "unauthorized");
  });

  test("an Idempotency-Key is each visitor's own", async () => {
    const { secret } = await publicKey();
    const ip = newIp();
    const [a, b] = [await openSession(secret, ip), await openSession(secret, ip)];
    const keyed = (token: string) =>
      h.call(
        "POST",
        "/v1/chat",
        fromPage(token, ip, { json: { message: "same" }, headers: { "idempotency-key": "k-1" } }),
      );
    const first = await keyed(a.token);
    const second = await keyed(b.token);
    expectStatus(second, 200);
    expect((second.json as { id: string }).id).not.toBe((first.json as { id: string }).id);
  });
});

describe("limits", () => {
  test("per visitor: 429 with Retry-After, without spending the key's plan", async () => {
    const { secret } = await publicKey({ visitor_rpm: 2 });
    const ip = newIp();
    const visitor = await openSession(secret, ip);
    expectStatus(await ask(visitor.token, ip), 200);
    const second = await ask(visitor.token, ip);
    expect(second.headers.get("ratelimit-policy")).toContain('"minute";q=2');
    const refused = await ask(visitor.token, ip);
    expectError(refused, 429, "rate_limit_exceeded");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("access-control-allow-origin")).toBe(SITE);
    // Another visitor of the same key is not held back.
    expectStatus(await ask((await openSession(secret, ip)).token, ip), 200);
  });

  test("per client IP: new sessions do not get around it; another address is not held back", async () => {
    const { secret } = await publicKey({ ip_rpm: 4, visitor_rpm: 100 });
    const ip = newIp();
    let refused: Reply<unknown> | undefined;
    for (let i = 0; i < 5 && !refused; i++) {
      const r = await session(secret, ip);
      if (r.status === 429) refused = r;
      else {
        expectStatus(r, 201);
        const asked = await ask(r.json.token, ip);
        if (asked.status === 429) refused = asked;
        else expectStatus(asked, 200);
      }
    }
    expect(refused).toBeDefined();
    expectError(refused!, 429, "rate_limit_exceeded");
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThan(0);
    expectStatus(await session(secret, newIp()), 201);
    clock += 61_000;
    expectStatus(await session(secret, ip), 201);
  });
});

describe("proof of work", () => {
  test("a key that asks for it opens a session only with a solved, unspent challenge", async () => {
    const { secret } = await publicKey({ require_proof_of_work: true });
    const ip = newIp();
    expectError(await session(secret, ip), 403, "proof_of_work_required");
    const c = await h.call<WidgetChallenge>("POST", "/v1/widget/challenges", fromPage(secret, ip, { json: {} }));
    expectStatus(c, 201);
    expect(c.json.maxnumber).toBe(1_000);
    const solution = await solveChallenge(c.json.challenge, c.json.salt, c.json.algorithm, c.json.maxnumber).promise;
    expect(solution).not.toBeNull();
    const proof = btoa(JSON.stringify({ ...c.json, number: solution!.number }));
    expectStatus(await session(secret, ip, { proof }), 201);
    expectError(await session(secret, ip, { proof }), 403, "proof_of_work_required");
    const wrong = btoa(JSON.stringify({ ...c.json, number: solution!.number + 1 }));
    expectError(await session(secret, ip, { proof: wrong }), 403, "proof_of_work_required");
    expectError(await session(secret, ip, { proof: "not base64 json" }), 403, "proof_of_work_required");
  });
});

describe("user tokens", () => {
  const SECRET = "a-site-secret-of-at-least-32-characters!";
  const sign = (claims: Record<string, unknown>, secret = SECRET, alg = "HS256") =>
    new SignJWT(claims).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret));
  const inSeconds = (s: number) => Math.floor(clock / 1000) + s;

  test("the site's signed user is the visitor, across sessions; anything else is refused", async () => {
    const k = await publicKey({ user_token_secret: SECRET });
    expect(k.widget?.user_tokens).toBe(true);
    expect(JSON.stringify(k)).not.toContain(SECRET);
    const ip = newIp();
    expectError(await session(k.secret, ip), 401, "unauthorized");
    const token = await sign({ sub: "user-42", exp: inSeconds(600) });
    const first = await session(k.secret, ip, { user_token: token });
    expectStatus(first, 201);
    expect(first.json.visitor_id).toBe("user-42");
    expect(Date.parse(first.json.expires_at)).toBe(inSeconds(600) * 1000);
    const asked = await ask(first.json.token, ip);
    // Another device, the same user: the same conversations.
    const second = await session(k.secret, newIp(), {
      user_token: await sign({ sub: "user-42", exp: inSeconds(900) }),
    });
    const list = await h.call("GET", "/v1/conversations", fromPage(second.json.token, ip));
    expect((list.json as { data: { id: string }[] }).data.map((c) => c.id)).toEqual([
      (asked.json as { conversation_id: string }).conversation_id,
    ]);
    for (const bad of [
      await sign({ sub: "user-42", exp: inSeconds(600) }, "another-secret-of-at-least-32-characters"),
      await sign({ sub: "user-42", exp: inSeconds(-10) }),
      await sign({ sub: "user-42", exp: inSeconds(2 * 86_400) }),
      await sign({ sub: "user-42" }),
      await sign({ exp: inSeconds(600) }),
      await sign({ sub: "user-42", exp: inSeconds(600) }, SECRET.repeat(2), "HS512"),
      `${btoa(JSON.stringify({ alg: "none" }))}.${btoa(JSON.stringify({ sub: "x", exp: inSeconds(60) }))}.`,
      "not a jwt",
    ])
      expectError(await session(k.secret, ip, { user_token: bad }), 401, "unauthorized");
  });
});

describe("CORS preflight", () => {
  test("answered for an origin some public key allows, on the visitors' routes only", async () => {
    await publicKey({ allowed_origins: ["https://preflight.example.org"] });
    const preflight = (path: string, origin: string) =>
      h.app.handle(
        new Request(`http://localhost${path}`, {
          method: "OPTIONS",
          headers: {
            origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": "authorization",
          },
        }),
      );
    const ok = await preflight("/v1/chat", "https://preflight.example.org");
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://preflight.example.org");
    expect(ok.headers.get("access-control-allow-headers")).toContain("Authorization");
    expect((await preflight("/v1/chat", OTHER)).headers.get("access-control-allow-origin")).toBeNull();
    expect(
      (await preflight("/v1/keys", "https://preflight.example.org")).headers.get("access-control-allow-origin"),
    ).toBeNull();
  });
});
