/** API keys over HTTP and knowledge-base scoping of chat. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq } from "drizzle-orm";
import { revokeKey } from "../src/auth/keys-admin.ts";
import type { ApiKeyList } from "../src/contract/index.ts";
import { apiKeys } from "../src/db/schema.ts";
import { expectError, expectStatus, harness, keyIdOf, type Reply } from "./helpers/app.ts";
import { uniqueWord } from "./helpers/words.ts";

setDefaultTimeout(60_000); // per file: see bunfig.toml

let clock = Date.now();
const h = await harness({ now: () => clock });
const admin = await h.admin();
const adminId = await keyIdOf(h.store, admin);
const uniq = () => crypto.randomUUID().slice(0, 8);
const word = () => uniqueWord();

const createKey = async (json: Record<string, unknown>) => {
  const r = await h.call("POST", "/v1/keys", { key: admin, json: { name: `k-${uniq()}`, plan: "pro", ...json } });
  expectStatus(r, 201);
  return r.json;
};

const createAdmin = async (by: string, json: Record<string, unknown>) => {
  const r = await h.call("POST", "/v1/keys", {
    key: by,
    json: { name: `a-${uniq()}`, plan: "pro", role: "admin", ...json },
  });
  expectStatus(r, 201);
  return r.json;
};

describe("keys over HTTP", () => {
  test("create answers the secret once; list and get never show it; patch; revoke; last_used_at", async () => {
    const k = await createKey({ rpm: 50 });
    expect(k.secret).toMatch(/^prl_/);
    expect(k).toMatchObject({ role: "chat", plan: "pro", rpm: 50, rpd: null, last_used_at: null, revoked_at: null });
    expectStatus(await h.call("GET", "/v1/conversations", { key: k.secret }), 200);
    const got = await h.call("GET", `/v1/keys/${k.id}`, { key: admin });
    expect(got.json).not.toHaveProperty("secret");
    expect(typeof got.json.last_used_at).toBe("string");
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Reply<ApiKeyList> = await h.call("GET", `/v1/keys?limit=2${cursor ? `&cursor=${cursor}` : ""}`, {
        key: admin,
      });
      expectStatus(page, 200);
      for (const item of page.json.data) {
        expect(item).not.toHaveProperty("secret");
        seen.push(item.id);
      }
      cursor = page.json.pagination.next_cursor;
    } while (cursor);
    expect(seen).toContain(k.id);
    expect(new Set(seen).size).toBe(seen.length);
    const patched = await h.call("PATCH", `/v1/keys/${k.id}`, { key: admin, json: { name: "renamed", plan: "free" } });
    expect(patched.json).toMatchObject({ name: "renamed", plan: "free", rpm: null });
    // A grant naming a knowledge base that does not exist refuses the whole change.
    expectError(
      await h.call("PATCH", `/v1/keys/${k.id}`, {
        key: admin,
        json: { name: "half-changed", plan: "pro", knowledge_base_ids: ["kb_00000000000000000000000000"] },
      }),
      400,
      "invalid_request",
    );
    expect((await h.call("GET", `/v1/keys/${k.id}`, { key: admin })).json).toMatchObject({
      name: "renamed",
      plan: "free",
    });
    const revoked = await h.call("POST", `/v1/keys/${k.id}/revoke`, { key: admin });
    expectStatus(revoked, 200);
    expect(typeof revoked.json.revoked_at).toBe("string");
    expectError(await h.call("GET", "/v1/conversations", { key: k.secret }), 401, "unauthorized");
    expectError(await h.call("PATCH", `/v1/keys/${k.id}`, { key: admin, json: { name: "x" } }), 404, "not_found");
    expectError(await h.call("GET", "/v1/keys/key_00000000000000000000000000", { key: admin }), 404, "not_found");
  });

  test("bad input is 400 with param", async () => {
    for (const [json, param] of [
      [{ name: "x", plan: "gold" }, "plan"],
      [{ name: "x", plan: "enterprise" }, "rpm"],
      [{ name: "x", plan: "pro", knowledge_base_ids: ["kb_00000000000000000000000000"] }, "knowledge_base_ids"],
      [{ name: "x", plan: "pro", expires_at: "2001-01-01T00:00:00Z" }, "expires_at"],
      [{ name: "x", plan: "pro", role: "root" }, "role"],
      [{ name: "a\u0000b", plan: "pro" }, "name"],
      [{ name: "line\nbreak", plan: "pro" }, "name"],
    ] as const) {
      const r = await h.call("POST", "/v1/keys", { key: admin, json });
      expectError(r, 400, "invalid_request");
      expect(r.json.error.param, r.text).toBe(param);
    }
  });

  test("expires_at is a strict RFC 3339 date-time: a date alone, a day the month lacks or a huge year is 400", async () => {
    const k = await createKey({});
    for (const expires_at of [
      "+275760-09-13T00:00:00Z",
      "2090-02-30T00:00:00Z",
      "2090-01-01",
      "2090-01-01T12:00:00",
      "2090-01-01T24:00:00Z",
      "10000-01-01T00:00:00Z",
    ]) {
      const created = await h.call("POST", "/v1/keys", { key: admin, json: { name: "x", plan: "pro", expires_at } });
      expectError(created, 400, "invalid_request");
      expect(created.json.error.param, created.text).toBe("expires_at");
      const patched = await h.call("PATCH", `/v1/keys/${k.id}`, { key: admin, json: { expires_at } });
      expectError(patched, 400, "invalid_request");
      expect(patched.json.error.param, patched.text).toBe("expires_at");
    }
    // An offset and a fraction are read exactly; a leap day that exists is a day.
    const ok = await createKey({ expires_at: "2088-02-29T12:30:00.25+02:00" });
    expect((await h.call("GET", `/v1/keys/${ok.id}`, { key: admin })).json.expires_at).toBe("2088-02-29T10:30:00.250Z");
  });

  test("an expired key gets 401 key_expired", async () => {
    const k = await createKey({ expires_at: new Date(clock + 60_000).toISOString() });
    expectStatus(await h.call("GET", "/v1/conversations", { key: k.secret }), 200);
    clock += 61_000;
    const r = await h.call("GET", "/v1/conversations", { key: k.secret });
    expectError(r, 401, "key_expired");
    expect(r.headers.get("www-authenticate")).toStartWith("Bearer");
  });

  test("the last active admin key cannot be revoked or demoted (409 last_admin), also when two try at once", async () => {
    // Alone on its own admins: every other admin key of the shared store is revoked first.
    await h.store.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.role, "admin"));
    const a = await h.admin();
    const aId = await keyIdOf(h.store, a);
    expectError(await h.call("POST", `/v1/keys/${aId}/revoke`, { key: a }), 409, "last_admin");
    expectError(await h.call("PATCH", `/v1/keys/${aId}`, { key: a, json: { role: "chat" } }), 409, "last_admin");
    const b = await h.call("POST", "/v1/keys", { key: a, json: { name: "second admin", plan: "pro", role: "admin" } });
    expectStatus(b, 201);
    // Both at once (the service itself: over HTTP the loser's own key would be gone first): one wins.
    const outcomes = await Promise.allSettled([revokeKey(h.store.db, aId), revokeKey(h.store.db, b.json.id)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    const lost = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason.code).toBe("last_admin");
    const survivor = outcomes[0]!.status === "rejected" ? a : b.json.secret;
    expectStatus(await h.call("GET", "/v1/keys?limit=1", { key: survivor }), 200);
    // Leave an admin for the other tests of this file.
    await h.store.db.update(apiKeys).set({ revokedAt: null }).where(eq(apiKeys.id, adminId));
  });

  test("the last admin key without an expiry stays while expiring ones remain (409 last_admin), also when two try at once", async () => {
    await h.store.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.role, "admin"));
    const a = await h.admin();
    const aId = await keyIdOf(h.store, a);
    const expiring = await createAdmin(a, { expires_at: new Date(clock + 3_600_000).toISOString() });
    // Once the expiring key lapsed, no admin would be left: refused however it is attempted.
    for (const r of [
      await h.call("POST", `/v1/keys/${aId}/revoke`, { key: expiring.secret }),
      await h.call("PATCH", `/v1/keys/${aId}`, { key: expiring.secret, json: { role: "chat" } }),
      await h.call("PATCH", `/v1/keys/${aId}`, {
        key: expiring.secret,
        json: { expires_at: new Date(clock + 7_200_000).toISOString() },
      }),
    ]) {
      expectError(r, 409, "last_admin");
      expect(r.json.error.message).toContain("without an expiry");
    }
    // The expiring one may go: one without an expiry remains.
    expectStatus(await h.call("POST", `/v1/keys/${expiring.id}/revoke`, { key: a }), 200);
    // Two without an expiry, one expiring, both removed at once: one of the two stays.
    const b = await createAdmin(a, {});
    await createAdmin(a, { expires_at: new Date(clock + 3_600_000).toISOString() });
    const outcomes = await Promise.allSettled([revokeKey(h.store.db, aId), revokeKey(h.store.db, b.id)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect((outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult).reason.code).toBe("last_admin");
    // A key already expired is no admin any more: it may be revoked whatever remains.
    const lapsed = await createAdmin(outcomes[0]!.status === "rejected" ? a : b.secret, {
      expires_at: new Date(clock + 1_000).toISOString(),
    });
    expect(await revokeKey(h.store.db, lapsed.id, new Date(clock + 2_000))).toBe(true);
    await h.store.db.update(apiKeys).set({ revokedAt: null }).where(eq(apiKeys.id, adminId));
  });
});

describe("keys over HTTP: the daily token budget (tpd)", () => {
  test("POST sets it, GET shows it, PATCH changes or clears it, bad values are 400 with param", async () => {
    const k = await createKey({ tpd: 5000 });
    expect(k).toMatchObject({ tpd: 5000 });
    expect((await h.call("GET", `/v1/keys/${k.id}`, { key: admin })).json).toMatchObject({ tpd: 5000 });
    const patched = await h.call("PATCH", `/v1/keys/${k.id}`, { key: admin, json: { tpd: 7 } });
    expectStatus(patched, 200);
    expect(patched.json).toMatchObject({ tpd: 7 });
    // A plan change keeps the budget (it is no plan default); null clears it.
    const replanned = await h.call("PATCH", `/v1/keys/${k.id}`, { key: admin, json: { plan: "free" } });
    expect(replanned.json).toMatchObject({ plan: "free", tpd: 7 });
    const cleared = await h.call("PATCH", `/v1/keys/${k.id}`, { key: admin, json: { tpd: null } });
    expect(cleared.json).toMatchObject({ tpd: null });
    expectError(
      await h.call("POST", "/v1/keys", { key: admin, json: { name: "x", plan: "pro", tpd: 0 } }),
      400,
      "invalid_request",
    );
  });
});

describe("chat scoping", () => {
  test("chat answers from the key's knowledge base, a conversation keeps its own, foreign ones are 404", async () => {
    const adm = await h.admin();
    const mk = async () =>
      (await h.call("POST", "/v1/knowledge_bases", { key: adm, json: { name: `kb-${uniq()}` } })).json;
    const [mine, theirs] = [await mk(), await mk()];
    const w = word();
    const add = (kb: string, url: string) =>
      h.call("POST", `/v1/knowledge_bases/${kb}/documents`, {
        key: adm,
        json: { url, content: `# ${w} guide\n\nThe ${w} setting controls everything about ${w}.` },
      });
    expectStatus(await add(mine.id, "https://mine.test/guide"), 201);
    expectStatus(await add(theirs.id, "https://theirs.test/guide"), 201);
    const k = await createKey({ knowledge_base_ids: [mine.id] });
    const chat = (json: Record<string, unknown>) => h.call("POST", "/v1/chat", { key: k.secret, json });
    const sourcesOf = async (conv: string) =>
      (await h.call("GET", `/v1/conversations/${conv}`, { key: k.secret })).json.messages.at(-1)?.sources;
    const first = await chat({ message: `What is the ${w} setting?` });
    expectStatus(first, 200);
    expect(await sourcesOf(first.json.conversation_id)).toEqual(["https://mine.test/guide"]);
    const explicit = await chat({ message: `What is the ${w} setting?`, knowledge_base_id: mine.id });
    expect(await sourcesOf(explicit.json.conversation_id)).toEqual(["https://mine.test/guide"]);
    const foreign = await chat({ message: "hi", knowledge_base_id: theirs.id });
    expectError(foreign, 404, "not_found");
    expect(foreign.json.error.param).toBe("knowledge_base_id");
    expectError(await chat({ message: "hi", knowledge_base_id: "kb_00000000000000000000000000" }), 404, "not_found");
    // The key is granted the other one too: the conversation still answers from its own.
    await h.call("PATCH", `/v1/keys/${k.id}`, { key: adm, json: { knowledge_base_ids: [mine.id, theirs.id] } });
    const next = await chat({ message: `And the ${w} setting again?`, conversation_id: first.json.conversation_id });
    expectStatus(next, 200);
    expect(await sourcesOf(first.json.conversation_id)).toEqual(["https://mine.test/guide"]);
    const other = await chat({ message: `What is ${w}?`, knowledge_base_id: theirs.id });
    expect(await sourcesOf(other.json.conversation_id)).toEqual(["https://theirs.test/guide"]);
    const switching = await chat({
      message: "x",
      conversation_id: first.json.conversation_id,
      knowledge_base_id: theirs.id,
    });
    expectError(switching, 400, "invalid_request");
  });
});
