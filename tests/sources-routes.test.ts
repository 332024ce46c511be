/**
 * The source routes' refusals (bad input, unknown ids, keys that may not) and the sync protocol's
 * database side: a sync whose instance died ends as failed within a lease, and a source's refresh
 * interval starts a scheduled sync on the instance that takes it.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Source } from "../src/contract/sources.ts";
import { sourceSyncs } from "../src/db/schema.ts";
import { expectError, expectStatus, type Harness, harness } from "./helpers/app.ts";
import { type DocsSite, docPage, serveDocsSite } from "./helpers/docs-site.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

let h: Harness;
let strict: Harness;
let admin: string;
let site: DocsSite;
let kbId: string;
let clock = Date.parse("2026-06-01T00:00:00Z");

beforeAll(async () => {
  site = serveDocsSite({
    "/": docPage("Home", "<p>Welcome to the widget docs.</p>", ["/a"]),
    "/a": docPage("A", "<p>Widgets turn.</p>"),
  });
  h = await harness({
    now: () => clock,
    options: { sources: { allowPrivateNetworks: true, politeness: false, leaseMs: 5_000 } },
  });
  admin = await h.admin();
  const kb = await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name: "routes-kb" } });
  expectStatus(kb, 201);
  kbId = kb.json.id;
});
afterAll(() => site.stop());

const sources = () => `/v1/knowledge_bases/${kbId}/sources` as const;

describe("POST …/sources refuses what it cannot crawl", () => {
  test.each([
    [{ url: "not a url" }, "url"],
    [{ url: "ftp://example.com/" }, "url"],
    [{ url: "https://user:pw@example.com/" }, "url"],
    [{ url: "https://example.com/", type: "everything" }, "type"],
    [{ url: "https://example.com/", max_pages: 0 }, "max_pages"],
    [{ url: "https://example.com/", refresh_interval_hours: 0.5 }, "refresh_interval_hours"],
    [{ url: "https://example.com/", include: [""] }, "include"],
    [{}, "url"],
  ])("%j is 400 naming %s", async (json, param) => {
    const reply = await h.call("POST", sources(), { key: admin, json });
    expectError(reply, 400, "invalid_request");
    expect(reply.json.error.param ?? "").toContain(param);
  });

  test("a private address is 400 unless the server allows private networks", async () => {
    strict = await harness({ store: h.store, now: () => clock });
    const key = await strict.admin();
    for (const url of [
      "http://127.0.0.1:9/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]/",
      "http://10.0.0.1/",
    ]) {
      const reply = await strict.call("POST", sources(), { key, json: { url } });
      expectError(reply, 400, "invalid_request");
      expect(reply.json.error.message).toContain("private");
    }
  });

  test("a malformed body is a JSON error, never a 500", async () => {
    const reply = await h.call("POST", sources(), {
      key: admin,
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect(reply.status).toBe(400);
  });

  test("the same URL twice in one knowledge base is 409 already_exists", async () => {
    const url = `${site.origin}/`;
    const first = await h.call("POST", sources(), { key: admin, json: { url } });
    expectStatus(first, 201);
    await h.app.parley.sources.idle();
    expectError(await h.call("POST", sources(), { key: admin, json: { url } }), 409, "already_exists");
  });
});

describe("who may", () => {
  test("no key is 401, a chat key 403, an unknown knowledge base or source 404", async () => {
    expectError(await h.call("GET", sources(), { key: null }), 401, "unauthorized");
    const chat = await h.key();
    expectError(await h.call("GET", sources(), { key: chat }), 403, "permission_denied");
    expectError(
      await h.call("POST", sources(), { key: chat, json: { url: "https://example.com/" } }),
      403,
      "permission_denied",
    );
    expectError(await h.call("GET", "/v1/knowledge_bases/kb_nope/sources", { key: admin }), 404, "not_found");
    for (const id of ["src_01jd5x8r7mf6sb1b2k3n4p5q6r", "nonsense"]) {
      expectError(await h.call("GET", `${sources()}/${id}`, { key: admin }), 404, "not_found");
      expectError(await h.call("POST", `${sources()}/${id}/sync`, { key: admin }), 404, "not_found");
      expectError(await h.call("DELETE", `${sources()}/${id}`, { key: admin }), 404, "not_found");
    }
  });

  test("a source is found only under its own knowledge base", async () => {
    const other = await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name: "routes-other" } });
    const list = await h.call("GET", sources(), { key: admin });
    const id = list.json.data[0]!.id;
    expectError(
      await h.call("GET", `/v1/knowledge_bases/${other.json.id}/sources/${id}`, { key: admin }),
      404,
      "not_found",
    );
  });
});

describe("the sync protocol", () => {
  test("a running sync whose lease passed is ended as failed by the scheduler", async () => {
    const created = await h.call("POST", sources(), { key: admin, json: { url: `${site.origin}/a` } });
    expectStatus(created, 201);
    await h.app.parley.sources.idle();
    // An instance that died mid-sync: a running row nobody renews.
    const [dead] = await h.store.db
      .insert(sourceSyncs)
      .values({
        id: "sync_01jd5x8r7mf6sb1b2k3n4p5q6r",
        sourceId: created.json.id,
        status: "running",
        trigger: "manual",
        startedAt: new Date(clock),
        leaseUntil: new Date(clock + 5_000),
      })
      .returning();
    // While it runs, asking for a sync answers it.
    const asked = await h.call("POST", `${sources()}/${created.json.id}/sync`, { key: admin });
    expect(asked.json.id).toBe(dead!.id);
    clock += 6_000;
    await h.app.parley.sources.tick();
    const [row] = await h.store.db.select().from(sourceSyncs).where(eq(sourceSyncs.id, dead!.id));
    expect(row?.status).toBe("failed");
    expect(row?.error).toContain("instance");
    const again = await h.call("POST", `${sources()}/${created.json.id}/sync`, { key: admin });
    expectStatus(again, 202);
    expect(again.json.id).not.toBe(dead!.id);
    await h.app.parley.sources.idle();
  });

  test("a refresh interval starts a scheduled sync once it is due, on one instance", async () => {
    const kb = await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name: "routes-scheduled" } });
    const created = await h.call("POST", `/v1/knowledge_bases/${kb.json.id}/sources`, {
      key: admin,
      json: { url: `${site.origin}/`, refresh_interval_hours: 6 },
    });
    expectStatus(created, 201);
    await h.app.parley.sources.idle();
    const next = Date.parse(created.json.next_sync_at!);
    expect(next).toBe(clock + 6 * 3_600_000);
    await h.app.parley.sources.tick();
    expect((await read(created.json.id, kb.json.id)).last_sync?.trigger).toBe("created");
    clock = next + 1;
    // Two instances' schedulers at once: one takes the source.
    await Promise.all([h.app.parley.sources.tick(), strict.app.parley.sources.tick()]);
    await h.app.parley.sources.idle();
    await strict.app.parley.sources.idle();
    const after = await read(created.json.id, kb.json.id);
    expect(after.last_sync?.trigger).toBe("scheduled");
    expect(Date.parse(after.next_sync_at!)).toBe(clock + 6 * 3_600_000);
    const syncs = await h.store.db.select().from(sourceSyncs).where(eq(sourceSyncs.sourceId, created.json.id));
    expect(syncs.filter((s) => s.trigger === "scheduled")).toHaveLength(1);
  });
});

async function read(id: string, kb = kbId): Promise<Source> {
  const got = await h.call("GET", `/v1/knowledge_bases/${kb}/sources/${id}`, { key: admin });
  expectStatus(got, 200);
  return got.json;
}
