/**
 * Web sources end to end, in process: a source added over HTTP crawls a site this file serves
 * (tests/helpers/docs-site.ts), stores its pages as the source's documents, answers from them,
 * and re-syncs: 304s for unchanged pages, changed pages re-stored, gone pages deleted only after
 * a complete sync and behind the half guard, hand-uploaded documents never touched.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Source, SourceSync } from "../src/contract/sources.ts";
import { expectError, expectStatus, type Harness, harness } from "./helpers/app.ts";
import { type DocsSite, docPage, serveDocsSite } from "./helpers/docs-site.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

let h: Harness;
let admin: string;
let site: DocsSite;

const PAGES = {
  "/": docPage("Lumen docs", "<p>Lumen is a static site host.</p>", ["/docs/install", "/docs/deploy", "/docs/pricing"]),
  "/docs/install": docPage(
    "Install the CLI",
    "<p>Install the Lumen command line tool with npm.</p><pre><code>npm install -g lumen-cli</code></pre>",
    ["/docs/deploy"],
  ),
  "/docs/deploy": docPage("Deploy a site", "<p>Run lumen deploy in your project folder to publish it.</p>", [
    "/docs/install",
  ]),
  "/docs/pricing": docPage("Pricing", "<p>The Hobby plan is free. The Team plan costs 20 dollars a month.</p>"),
  // Linked from nowhere: only the sitemap finds it.
  "/docs/hidden": docPage(
    "Custom domains",
    "<p>Point a CNAME record at edge.lumen.example to use your own domain.</p>",
  ),
};

beforeAll(async () => {
  site = serveDocsSite(PAGES);
  h = await harness({ options: { sources: { allowPrivateNetworks: true, politeness: false } } });
  admin = await h.admin();
});
afterAll(() => site.stop());

async function newKnowledgeBase(name: string): Promise<string> {
  const kb = await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name } });
  expectStatus(kb, 201);
  return kb.json.id;
}

/** Adds a source and waits for its first sync to end; the source as read back. */
async function addSource(kbId: string, json: Record<string, unknown>): Promise<Source> {
  const created = await h.call("POST", `/v1/knowledge_bases/${kbId}/sources`, { key: admin, json });
  expectStatus(created, 201);
  expect(created.json.last_sync?.status).toBe("running");
  await h.app.parley.sources.idle();
  return read(kbId, created.json.id);
}

async function read(kbId: string, id: string): Promise<Source> {
  const got = await h.call("GET", `/v1/knowledge_bases/${kbId}/sources/${id}`, { key: admin });
  expectStatus(got, 200);
  return got.json;
}

async function sync(kbId: string, id: string): Promise<SourceSync> {
  const started = await h.call("POST", `/v1/knowledge_bases/${kbId}/sources/${id}/sync`, { key: admin });
  expectStatus(started, 202);
  await h.app.parley.sources.idle();
  return (await read(kbId, id)).last_sync!;
}

async function documentsOf(kbId: string) {
  const list = await h.call("GET", `/v1/knowledge_bases/${kbId}/documents?limit=100`, { key: admin });
  expectStatus(list, 200);
  return list.json.data;
}

describe("a source's first sync", () => {
  let kbId: string;
  let source: Source;
  beforeAll(async () => {
    kbId = await newKnowledgeBase("lumen-first");
    source = await addSource(kbId, { url: `${site.origin}/` });
  });

  test("stores every page in scope, the sitemap's unlinked page too, each once", async () => {
    const pages = source.last_sync!.pages;
    expect(source.last_sync!.status).toBe("completed");
    expect(pages.created).toBe(5);
    expect(pages.failed).toBe(0);
    const urls = (await documentsOf(kbId)).map((d) => d.url).sort();
    expect(urls).toEqual([
      `${site.origin}/`,
      ...["deploy", "hidden", "install", "pricing"].map((p) => `${site.origin}/docs/${p}`),
    ]);
    expect(source.document_count).toBe(5);
  });

  test("keeps the page's own text: no navigation, no footer repeated on every page", async () => {
    const docs = await documentsOf(kbId);
    const install = docs.find((d) => d.url.endsWith("/docs/install"))!;
    const full = await h.call("GET", `/v1/knowledge_bases/${kbId}/documents/${install.id}`, { key: admin });
    expectStatus(full, 200);
    expect(full.json.content).toContain("npm install -g lumen-cli");
    expect(full.json.content).not.toContain("All rights reserved");
    expect(full.json.content).not.toContain("/docs/deploy");
  });

  test("search answers from a crawled page", async () => {
    const found = await h.call("POST", `/v1/knowledge_bases/${kbId}/search`, {
      key: admin,
      json: { query: "Is the Hobby plan free?" },
    });
    expectStatus(found, 200);
    expect(found.json.data[0]?.url).toBe(`${site.origin}/docs/pricing`);
  });

  test("a re-sync of the unchanged site asks conditionally: every page 304, nothing re-stored", async () => {
    site.reset();
    const again = await sync(kbId, source.id);
    expect(again.status).toBe("completed");
    expect(again.trigger).toBe("manual");
    expect(again.pages).toMatchObject({
      fetched: 0,
      not_modified: 5,
      unchanged: 5,
      created: 0,
      updated: 0,
      deleted: 0,
    });
    expect(site.notModified).toBe(5);
  });
});

describe("a re-sync after the site changed", () => {
  test("re-stores the changed page, deletes the gone one, leaves the rest", async () => {
    const kbId = await newKnowledgeBase("lumen-changes");
    const source = await addSource(kbId, { url: `${site.origin}/` });
    expect(source.last_sync!.pages.created).toBe(5);
    const before = { ...PAGES };
    try {
      site.pages.set(
        "/docs/pricing",
        docPage("Pricing", "<p>The Hobby plan is free. The Team plan costs 25 dollars a month.</p>"),
      );
      site.pages.delete("/docs/hidden");
      const again = await sync(kbId, source.id);
      expect(again.pages).toMatchObject({ fetched: 1, not_modified: 3, updated: 1, unchanged: 3, deleted: 1 });
      const urls = (await documentsOf(kbId)).map((d) => d.url);
      expect(urls).not.toContain(`${site.origin}/docs/hidden`);
      const found = await h.call("POST", `/v1/knowledge_bases/${kbId}/search`, {
        key: admin,
        json: { query: "Team plan price" },
      });
      expect(JSON.stringify(found.json.data[0])).toContain("25 dollars");
    } finally {
      for (const [path, body] of Object.entries(before)) site.pages.set(path, body);
    }
  });

  test("a site failing everywhere deletes nothing and keeps every document", async () => {
    const kbId = await newKnowledgeBase("lumen-outage");
    const source = await addSource(kbId, { url: `${site.origin}/` });
    site.broken.add("*");
    try {
      const again = await sync(kbId, source.id);
      expect(again.pages.deleted).toBe(0);
      expect(again.pages.failed).toBeGreaterThan(0);
      expect(again.errors.length).toBeGreaterThan(0);
      expect((await documentsOf(kbId)).length).toBe(5);
    } finally {
      site.broken.clear();
    }
  });

  test("the half guard refuses to delete most of a source's documents, unless the source allows it", async () => {
    const kbId = await newKnowledgeBase("lumen-shrunk");
    const source = await addSource(kbId, { url: `${site.origin}/` });
    const saved = new Map(site.pages);
    try {
      for (const path of ["/docs/install", "/docs/deploy", "/docs/hidden"]) site.pages.delete(path);
      const refused = await sync(kbId, source.id);
      expect(refused.status).toBe("completed");
      expect(refused.pages.deleted).toBe(0);
      expect(refused.error).toContain("more than half");
      expect((await documentsOf(kbId)).length).toBe(5);

      const bold = await addSource(await newKnowledgeBase("lumen-shrunk-ok"), {
        url: `${site.origin}/`,
        allow_large_deletions: true,
      });
      expect(bold.allow_large_deletions).toBe(true);
    } finally {
      for (const [path, body] of saved) site.pages.set(path, body);
    }
  });
});

describe("documents the source did not store", () => {
  test("a hand-uploaded document at a page's URL is never replaced or deleted by a sync", async () => {
    const kbId = await newKnowledgeBase("lumen-hand");
    const url = `${site.origin}/docs/pricing`;
    const mine = await h.call("POST", `/v1/knowledge_bases/${kbId}/documents`, {
      key: admin,
      json: { url, title: "Our pricing notes", content: "Hand-written pricing notes." },
    });
    expectStatus(mine, 201);
    const source = await addSource(kbId, { url: `${site.origin}/` });
    expect(source.last_sync!.pages).toMatchObject({ created: 4, skipped: 1 });
    expect(source.last_sync!.errors).toContainEqual({ url, reason: "url_held_by_another_document" });
    const doc = await h.call("GET", `/v1/knowledge_bases/${kbId}/documents/${mine.json.id}`, { key: admin });
    expect(doc.json.content).toBe("Hand-written pricing notes.");
    expect(doc.json.source_id).toBeNull();
    const stored = (await documentsOf(kbId)).filter((d) => d.url !== url);
    expect(stored.map((d) => d.source_id)).toEqual(stored.map(() => source.id));

    const removed = await h.call("DELETE", `/v1/knowledge_bases/${kbId}/sources/${source.id}`, { key: admin });
    expectStatus(removed, 204);
    const left = await documentsOf(kbId);
    expect(left.map((d) => d.url)).toEqual([url]);
    expectError(
      await h.call("GET", `/v1/knowledge_bases/${kbId}/sources/${source.id}`, { key: admin }),
      404,
      "not_found",
    );
  });
});

describe("query strings", () => {
  test("folded by default (one page), kept when the source says so (a page per query)", async () => {
    const paged = serveDocsSite({
      "/list": docPage("Releases", "<p>The newest releases.</p>", ["/list?page=2", "/list?ref=nav"]),
      "/list?page=2": docPage("Releases, page 2", "<p>Older releases, from 2019.</p>", ["/list"]),
    });
    try {
      const folded = await addSource(await newKnowledgeBase("paged-folded"), { url: `${paged.origin}/list` });
      expect(folded.keep_query_strings).toBe(false);
      expect(folded.last_sync!.pages.created).toBe(1);
      const kbId = await newKnowledgeBase("paged-kept");
      const kept = await addSource(kbId, { url: `${paged.origin}/list`, keep_query_strings: true });
      const urls = (await documentsOf(kbId)).map((d) => d.url.slice(paged.origin.length)).sort();
      expect(kept.last_sync!.status).toBe("completed");
      expect(urls).toEqual(["/list", "/list?page=2", "/list?ref=nav"]);
    } finally {
      paged.stop();
    }
  });
});

describe("one sync at a time", () => {
  test("asking twice while a sync runs answers the running sync", async () => {
    const kbId = await newKnowledgeBase("lumen-twice");
    // The site answers nothing until both asks are in: the first sync is still running for them.
    const release = site.hold();
    const created = await h.call("POST", `/v1/knowledge_bases/${kbId}/sources`, {
      key: admin,
      json: { url: `${site.origin}/` },
    });
    expectStatus(created, 201);
    const [a, b] = await Promise.all(
      [1, 2].map(() => h.call("POST", `/v1/knowledge_bases/${kbId}/sources/${created.json.id}/sync`, { key: admin })),
    );
    expectStatus(a!, 202);
    expectStatus(b!, 202);
    expect(a!.json.id).toBe(created.json.last_sync!.id);
    expect(b!.json.id).toBe(created.json.last_sync!.id);
    release();
    await h.app.parley.sources.idle();
  });
});
