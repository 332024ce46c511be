/** Knowledge bases and documents over HTTP: happy paths, errors, roles. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { KnowledgeBaseList } from "../src/contract/index.ts";
import { rowsOf } from "../src/db/rows.ts";
import { expectError, expectStatus, harness, type Reply } from "./helpers/app.ts";
import { uniqueWord } from "./helpers/words.ts";

setDefaultTimeout(60_000); // per file: see bunfig.toml

const h = await harness({ options: { maxDocumentBytes: 2_000 } });
const admin = await h.admin();
const uniq = () => crypto.randomUUID().slice(0, 8);
/** A word no other document holds, so a search for it finds exactly what a test stored. */
const word = () => uniqueWord();

async function newKb(name = `kb-${uniq()}`) {
  const r = await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name, description: "test" } });
  expectStatus(r, 201);
  return r.json;
}

const addDoc = (kb: string, doc: Record<string, unknown>, key = admin) =>
  h.call("POST", `/v1/knowledge_bases/${kb}/documents`, { key, json: doc });

const search = (kb: string, query: string, key = admin) =>
  h.call("POST", `/v1/knowledge_bases/${kb}/search`, { key, json: { query } });

describe("roles", () => {
  const adminRoutes: [string, string, unknown?][] = [
    ["GET", "/v1/knowledge_bases"],
    ["POST", "/v1/knowledge_bases", { name: "x" }],
    ["GET", "/v1/knowledge_bases/kb_01m85g5npgfzrtbs7dcm30btjf"],
    ["PATCH", "/v1/knowledge_bases/kb_01m85g5npgfzrtbs7dcm30btjf", { name: "x" }],
    ["DELETE", "/v1/knowledge_bases/kb_01m85g5npgfzrtbs7dcm30btjf"],
    ["GET", "/v1/knowledge_bases/kb_01m85g5npgfzrtbs7dcm30btjf/documents"],
    ["POST", "/v1/knowledge_bases/kb_01m85g5npgfzrtbs7dcm30btjf/documents", { url: "https://x.test", content: "x" }],
    ["GET", "/v1/keys"],
    ["POST", "/v1/keys", { name: "x", plan: "free" }],
  ];
  for (const [method, path, json] of adminRoutes) {
    test(`${method} ${path}: a chat key → 403 permission_denied (before the body is looked at); no key → 401`, async () => {
      const chat = await h.key();
      expectError(await h.call(method, path, { key: chat, json: json ?? undefined }), 403, "permission_denied");
      expectError(
        await h.call(method, path, { key: chat, body: "{not json", headers: { "content-type": "application/json" } }),
        403,
        "permission_denied",
      );
      expectError(await h.call(method, path, { json }), 401, "unauthorized");
    });
  }

  test("an admin key may chat", async () => {
    const r = await h.call("POST", "/v1/chat", { key: admin, json: { message: "How do I create an API key?" } });
    expectStatus(r, 200);
  });
});

describe("knowledge bases", () => {
  test("create, duplicate name → 409, get with counts, patch, list by cursor, delete with its documents", async () => {
    const kb = await newKb();
    expectError(
      await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name: kb.name } }),
      409,
      "already_exists",
    );
    const w = word();
    expectStatus(await addDoc(kb.id, { url: "https://kb.test/a", content: `# A\n\n${w} one` }), 201);
    expectStatus(await addDoc(kb.id, { url: "https://kb.test/b", content: `# B\n\nplain two` }), 201);
    const got = await h.call("GET", `/v1/knowledge_bases/${kb.id}`, { key: admin });
    expectStatus(got, 200);
    expect(got.json).toMatchObject({ id: kb.id, name: kb.name, document_count: 2, passage_count: 2 });
    expect(got.json.bytes).toBe(new TextEncoder().encode(`# A\n\n${w} one# B\n\nplain two`).byteLength);
    const renamed = await h.call("PATCH", `/v1/knowledge_bases/${kb.id}`, {
      key: admin,
      json: { name: `${kb.name}-2`, description: "new" },
    });
    expect(renamed.json).toMatchObject({ name: `${kb.name}-2`, description: "new", document_count: 2 });
    const other = await newKb();
    expectError(
      await h.call("PATCH", `/v1/knowledge_bases/${kb.id}`, { key: admin, json: { name: other.name } }),
      409,
      "already_exists",
    );
    // Cursor paging walks every knowledge base once, newest first.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Reply<KnowledgeBaseList> = await h.call(
        "GET",
        `/v1/knowledge_bases?limit=1${cursor ? `&cursor=${cursor}` : ""}`,
        {
          key: admin,
        },
      );
      expectStatus(page, 200);
      seen.push(...page.json.data.map((k) => k.id));
      cursor = page.json.pagination.next_cursor;
    } while (cursor);
    expect(seen.indexOf(other.id)).toBeLessThan(seen.indexOf(kb.id));
    expect(new Set(seen).size).toBe(seen.length);
    expectStatus(await h.call("DELETE", `/v1/knowledge_bases/${kb.id}`, { key: admin }), 204);
    expectError(await h.call("GET", `/v1/knowledge_bases/${kb.id}`, { key: admin }), 404, "not_found");
    expectError(await search(kb.id, w), 404, "not_found");
    expectError(await h.call("DELETE", `/v1/knowledge_bases/${kb.id}`, { key: admin }), 404, "not_found");
  });

  test("language: set on create and patch, shown on get; the default of its documents, a document's own wins", async () => {
    const name = `kb-${uniq()}`;
    const created = await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name, language: "german" } });
    expectStatus(created, 201);
    expect(created.json.language).toBe("german");
    const kb = created.json;
    expect((await h.call("GET", `/v1/knowledge_bases/${kb.id}`, { key: admin })).json.language).toBe("german");
    const w = word();
    // English-looking text: detection alone would say english; the knowledge base says german.
    expectStatus(
      await addDoc(kb.id, {
        url: "https://kb.test/de",
        content: `# Houses

The Häuser of ${w}`,
      }),
      201,
    );
    expectStatus(
      await addDoc(kb.id, {
        url: "https://kb.test/en",
        content: `# Houses

The Häuser of ${w}`,
        language: "english",
      }),
      201,
    );
    // German stems "Häuser" to "haus": only the German document matches "Haus".
    const found = await search(kb.id, "Haus");
    expectStatus(found, 200);
    expect(found.json.data.map((r) => r.url)).toEqual(["https://kb.test/de"]);
    const patched = await h.call("PATCH", `/v1/knowledge_bases/${kb.id}`, { key: admin, json: { language: null } });
    expectStatus(patched, 200);
    expect(patched.json.language).toBeNull();
    expectError(
      await h.call("PATCH", `/v1/knowledge_bases/${kb.id}`, { key: admin, json: { language: "klingon" } }),
      400,
      "invalid_request",
    );
    const bad = await h.call("POST", "/v1/knowledge_bases", {
      key: admin,
      json: { name: `kb-${uniq()}`, language: "xx" },
    });
    expectError(bad, 400, "invalid_request");
    expect(bad.json.error.param).toBe("language");
    const badDoc = await addDoc(kb.id, { url: "https://kb.test/x", content: "x", language: "xx" });
    expectError(badDoc, 400, "invalid_request");
    expect(badDoc.json.error.param).toBe("language");
  });

  test("bad names and cursors are 400 with param", async () => {
    expectError(
      await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name: "" } }),
      400,
      "invalid_request",
    );
    const r = await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name: "a\u0001b" } });
    expectError(r, 400, "invalid_request");
    expect(r.json.error.param).toBe("name");
    expectError(await h.call("GET", "/v1/knowledge_bases?cursor=abc", { key: admin }), 400, "invalid_cursor");
    expectError(await h.call("GET", "/v1/knowledge_bases?limit=0", { key: admin }), 400, "invalid_request");
  });
});

describe("documents", () => {
  test("add 201, same URL replaces with 200 (same id, new passages), get, list by url_prefix, delete takes effect at once", async () => {
    const kb = await newKb();
    const [w1, w2] = [word(), word()];
    const first = await addDoc(kb.id, {
      url: "https://docs.test/guide/a",
      content: `# Guide\n\n${w1}`,
      metadata: { lang: "en" },
    });
    expectStatus(first, 201);
    expect(first.json).toMatchObject({ url: "https://docs.test/guide/a", title: "Guide", metadata: { lang: "en" } });
    const again = await addDoc(kb.id, {
      url: "https://docs.test/guide/a",
      title: "Guide 2",
      content: `# Guide\n\n${w2}`,
    });
    expectStatus(again, 200);
    expect(again.json.id).toBe(first.json.id);
    expect((await search(kb.id, w1)).json.data).toEqual([]);
    expect((await search(kb.id, w2)).json.data.map((d) => d.url)).toEqual(["https://docs.test/guide/a"]);
    expectStatus(await addDoc(kb.id, { url: "https://docs.test/blog/b", content: "blog post" }), 201);
    const listed = await h.call(
      "GET",
      `/v1/knowledge_bases/${kb.id}/documents?url_prefix=${encodeURIComponent("https://docs.test/guide/")}`,
      { key: admin },
    );
    expect(listed.json.data.map((d) => d.url)).toEqual(["https://docs.test/guide/a"]);
    expect(listed.json.data[0]).not.toHaveProperty("content");
    const one = await h.call("GET", `/v1/knowledge_bases/${kb.id}/documents/${first.json.id}`, { key: admin });
    expect(one.json).toMatchObject({ title: "Guide 2", content: `# Guide\n\n${w2}`, passage_count: 1 });
    expectStatus(
      await h.call("DELETE", `/v1/knowledge_bases/${kb.id}/documents/${first.json.id}`, { key: admin }),
      204,
    );
    expect((await search(kb.id, w2)).json.data).toEqual([]);
    expectError(
      await h.call("GET", `/v1/knowledge_bases/${kb.id}/documents/${first.json.id}`, { key: admin }),
      404,
      "not_found",
    );
    expectError(
      await h.call("DELETE", `/v1/knowledge_bases/${kb.id}/documents/${first.json.id}`, { key: admin }),
      404,
      "not_found",
    );
  });

  test("bad URLs → 400 with param; oversized → 413; other content types → 415", async () => {
    const kb = await newKb();
    for (const url of ["not a url", "ftp://x.test/a", "https://u:p@x.test/a", 42]) {
      const r = await addDoc(kb.id, { url, content: "x" });
      expectError(r, 400, "invalid_request");
      expect(r.json.error.param).toBe("url");
    }
    const big = await addDoc(kb.id, { url: "https://x.test/big", content: "é".repeat(1_001) });
    expectError(big, 413, "payload_too_large");
    expect(big.json.error.param).toBe("content");
    expectError(
      await h.call("POST", `/v1/knowledge_bases/${kb.id}/documents`, {
        key: admin,
        body: "%PDF-1.4",
        headers: { "content-type": "application/pdf" },
      }),
      415,
      "unsupported_media_type",
    );
    expectError(
      await h.call("POST", `/v1/knowledge_bases/${kb.id}/documents`, {
        key: admin,
        body: "{",
        headers: { "content-type": "application/json" },
      }),
      400,
      "invalid_json",
    );
    expect((await h.call("GET", `/v1/knowledge_bases/${kb.id}`, { key: admin })).json.document_count).toBe(0);
  });

  test("ndjson: streamed lines, a bad line fails alone, with a result per line", async () => {
    const kb = await newKb();
    const w = word();
    const body = [
      JSON.stringify({ url: "https://nd.test/1", content: `# One\n\n${w}` }),
      "not json",
      "",
      JSON.stringify({ url: "nope", content: "x" }),
      JSON.stringify({ url: "https://nd.test/2", content: "x".repeat(3_000) }),
      JSON.stringify({ url: "https://nd.test/1", content: `# One again\n\n${w}` }),
    ].join("\n");
    const r = await h.call("POST", `/v1/knowledge_bases/${kb.id}/documents`, {
      key: admin,
      body,
      headers: { "content-type": "application/x-ndjson" },
    });
    expectStatus(r, 200);
    expect(r.json).toMatchObject({ created: 1, replaced: 1, failed: 3 });
    expect(r.json.results.map((i) => [i.line, i.status])).toEqual([
      [1, "created"],
      [2, "failed"],
      [4, "failed"],
      [5, "failed"],
      [6, "replaced"],
    ]);
    expect(r.json.results[2]?.error).toMatchObject({ code: "invalid_request", param: "url" });
    expect(r.json.results[3]?.error).toMatchObject({ code: "payload_too_large", param: "content" });
    expect((await search(kb.id, w)).json.data.map((d) => d.title)).toEqual(["One again"]);
  });

  test("multipart: Markdown with YAML and TOML front matter, HTML without scripts or styles, JSONL, base_url; a damaged PDF fails alone", async () => {
    const kb = await newKb();
    const [w1, w2, w3, w4, secret] = [word(), word(), word(), word(), word()];
    const form = new FormData();
    form.append(
      "files",
      new File([`---\nurl: https://mp.test/yaml\ntitle: From YAML\ntags: [a, b]\n---\n# Heading\n\n${w1}`], "a.md"),
    );
    form.append(
      "files",
      new File([`+++\nurl = "https://mp.test/toml"\ntitle = "From TOML"\nversion = 2\n+++\n${w2}`], "b.md"),
    );
    form.append("files", new File([`no front matter ${w3}`], "guide/c.txt"));
    form.append(
      "files",
      new File(
        [
          `<html><head><title>Page</title><style>.${secret}{}</style><script>var ${secret}=1</script></head><body><h2>Part</h2><p>${w4}</p></body></html>`,
        ],
        "d.html",
      ),
    );
    form.append(
      "files",
      new File([`${JSON.stringify({ url: "https://mp.test/j", content: "jsonl doc" })}\nbad\n`], "e.jsonl"),
    );
    form.append("files", new File(["%PDF-1.4"], "f.pdf"));
    form.append("base_url", "https://mp.test/files/");
    const r = await h.call("POST", `/v1/knowledge_bases/${kb.id}/documents`, { key: admin, body: form });
    expectStatus(r, 200);
    expect(r.json).toMatchObject({ created: 5, replaced: 0, failed: 2 });
    const results = new Map(r.json.results.map((i) => [`${i.file}${i.line ? `:${i.line}` : ""}`, i]));
    const byFile = (name: string) => {
      const item = results.get(name);
      if (!item) throw new Error(`no result for ${name}: ${r.text}`);
      return item;
    };
    // A PDF is read (tests/formats-upload.test.ts); this one is only a header: damaged.
    expect(byFile("f.pdf").error).toMatchObject({ code: "invalid_request", param: "content" });
    expect(byFile("f.pdf").error?.message).toContain("damaged");
    expect(byFile("e.jsonl:2").status).toBe("failed");
    expect(byFile("guide/c.txt").url).toBe("https://mp.test/files/guide/c.txt");
    expect(byFile("d.html").url).toBe("https://mp.test/files/d.html");
    const yaml = await h.call("GET", `/v1/knowledge_bases/${kb.id}/documents/${byFile("a.md").id}`, { key: admin });
    expect(yaml.json).toMatchObject({ title: "From YAML", metadata: { tags: ["a", "b"] } });
    const toml = await h.call("GET", `/v1/knowledge_bases/${kb.id}/documents/${byFile("b.md").id}`, { key: admin });
    expect(toml.json).toMatchObject({ title: "From TOML", metadata: { version: 2 } });
    const html = await h.call("GET", `/v1/knowledge_bases/${kb.id}/documents/${byFile("d.html").id}`, { key: admin });
    expect(html.json.title).toBe("Page");
    expect(html.json.content).toContain("## Part");
    expect(html.json.content).not.toContain(secret);
    expect((await search(kb.id, secret)).json.data).toEqual([]);
    for (const w of [w1, w2, w3, w4]) expect((await search(kb.id, w)).json.data.length).toBeGreaterThan(0);
  });

  test("concurrent uploads of one URL leave exactly one document, whole", async () => {
    const kb = await newKb();
    const versions = Array.from({ length: 8 }, (_, i) => `# V${i}\n\n${"word ".repeat(50)}version${i}`);
    const replies = await Promise.all(
      versions.map((content) => addDoc(kb.id, { url: "https://race.test/doc", content })),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(7);
    const list = await h.call("GET", `/v1/knowledge_bases/${kb.id}/documents`, { key: admin });
    expect(list.json.data).toHaveLength(1);
    const doc = await h.call("GET", `/v1/knowledge_bases/${kb.id}/documents/${list.json.data[0]?.id}`, { key: admin });
    expect(versions).toContain(doc.json.content);
    expect(doc.json.passage_count).toBe(1);
  });
});

describe("search", () => {
  test("a chat key searches its knowledge bases; another one is 404 like an unknown id", async () => {
    const [mine, theirs] = [await newKb(), await newKb()];
    const w = word();
    await addDoc(mine.id, { url: "https://s.test/mine", content: `# Mine\n\n${w}` });
    await addDoc(theirs.id, { url: "https://s.test/theirs", content: `# Theirs\n\n${w}` });
    const key = await h.call("POST", "/v1/keys", {
      key: admin,
      json: { name: "scoped", plan: "pro", knowledge_base_ids: [mine.id] },
    });
    expectStatus(key, 201);
    const r = await search(mine.id, w, key.json.secret);
    expectStatus(r, 200);
    expect(r.json.data).toEqual([
      expect.objectContaining({
        url: "https://s.test/mine",
        title: "Mine",
        score: expect.any(Number),
        document_id: expect.stringMatching(/^doc_/),
      }),
    ]);
    expectError(await search(theirs.id, w, key.json.secret), 404, "not_found");
    expectError(await search("kb_00000000000000000000000000", w, key.json.secret), 404, "not_found");
    expectError(
      await h.call("POST", `/v1/knowledge_bases/${mine.id}/search`, { key: admin, json: { query: "" } }),
      400,
      "invalid_request",
    );
  });
});

/** How many per-knowledge-base statistics rows of `kbId` differ from what its passages say (0: exact). */
async function statsDrift(kbId: string): Promise<number> {
  const [row] = await rowsOf<{ drift: number | string }>(
    h.store.db,
    sql`with actual as (
      select c.kb_id, u.lexeme, count(*)::int as df from chunks c, unnest(c.tsv) u where c.kb_id = ${kbId} group by 1, 2
    ), kept as (select kb_id, lexeme, df from knowledge_base_terms where kb_id = ${kbId}),
    passages as (select count(*) as n, coalesce(sum(len), 0) as l, coalesce(sum(coalesce(words, len)), 0) as w
      from chunks where kb_id = ${kbId})
    select (select count(*) from (select * from actual except select * from kept) a)
      + (select count(*) from (select * from kept except select * from actual) b)
      + (select count(*) from passages p left join knowledge_base_stats k on k.kb_id = ${kbId}
         where coalesce(k.passages, 0) <> p.n or coalesce(k.total_len, 0) <> p.l
           or coalesce(k.total_words, 0) <> p.w) as drift`,
  );
  return Number(row!.drift);
}

describe("search statistics per knowledge base", () => {
  test("another knowledge base's documents never move a knowledge base's scores; its statistics stay exact", async () => {
    const [mine, theirs] = [await newKb(), await newKb()];
    const [w1, w2] = [word(), word()];
    expectStatus(
      await addDoc(mine.id, { url: "https://iso.test/a", content: `# Guide\n\nThe ${w1} and the ${w2}.` }),
      201,
    );
    expectStatus(
      await addDoc(mine.id, { url: "https://iso.test/b", content: `# Notes\n\nMore about ${w1} here.` }),
      201,
    );
    const key = await h.call("POST", "/v1/keys", {
      key: admin,
      json: { name: "scoped", plan: "pro", knowledge_base_ids: [mine.id] },
    });
    const question = `${w1} ${w2}`;
    const before = (await search(mine.id, question, key.json.secret)).json.data;
    expect(before.length).toBeGreaterThan(0);
    // The other knowledge base gains passages holding the same words (document frequency, passage
    // count and average length of the store all move), then loses them.
    for (let i = 0; i < 6; i++) {
      const content = `# Theirs ${i}\n\n${w1} ${w1} ${w2}\n\n## More\n\n${w1} and a much longer passage ${"filler ".repeat(40)}`;
      expectStatus(await addDoc(theirs.id, { url: `https://iso.test/theirs/${i}`, content }), 201);
    }
    expect((await search(mine.id, question, key.json.secret)).json.data).toEqual(before);
    expect(await statsDrift(theirs.id)).toBe(0);
    // Re-indexing theirs under another language (an UPDATE of its passages), then deleting it.
    expectStatus(
      await h.call("PATCH", `/v1/knowledge_bases/${theirs.id}`, { key: admin, json: { language: "german" } }),
      200,
    );
    expect(await statsDrift(theirs.id)).toBe(0);
    expectStatus(await h.call("DELETE", `/v1/knowledge_bases/${theirs.id}`, { key: admin }), 204);
    expect(await statsDrift(theirs.id)).toBe(0);
    expect((await search(mine.id, question, key.json.secret)).json.data).toEqual(before);
    expect(await statsDrift(mine.id)).toBe(0);
  });
});
