/**
 * A sync stores the files a docs site links to in the formats uploads read: a PDF (one document,
 * its outline as headings; a 304 on the re-sync) and an OpenAPI spec (one document per
 * operation, cited at the spec's URL with the operation's anchor). Other files stay skipped.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Source } from "../src/contract/sources.ts";
import { expectStatus, type Harness, harness } from "./helpers/app.ts";
import { docPage } from "./helpers/docs-site.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const FIXTURES = join(import.meta.dir, "fixtures", "formats");
const FILES: Record<string, { body: Uint8Array | string; type: string }> = {
  "/docs/guide.pdf": { body: new Uint8Array(readFileSync(join(FIXTURES, "guide.pdf"))), type: "application/pdf" },
  "/docs/petstore.yaml": { body: readFileSync(join(FIXTURES, "petstore.yaml"), "utf8"), type: "application/yaml" },
  "/docs/logo.png": { body: "png", type: "image/png" },
  "/docs/broken.pdf": { body: new Uint8Array(readFileSync(join(FIXTURES, "broken.pdf"))), type: "application/pdf" },
};

let h: Harness;
let admin: string;
let server: ReturnType<typeof Bun.serve>;
let notModified = 0;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/docs")
        return new Response(docPage("Docs", "<p>Guides and the API.</p>", Object.keys(FILES)), {
          headers: { "content-type": "text/html" },
        });
      const file = FILES[path];
      if (!file) return new Response("no", { status: 404 });
      const etag = `"${Bun.hash(file.body).toString(16)}"`;
      if (request.headers.get("if-none-match") === etag) {
        notModified++;
        return new Response(null, { status: 304, headers: { etag } });
      }
      return new Response(file.body as BodyInit, { headers: { "content-type": file.type, etag } });
    },
  });
  h = await harness({ options: { sources: { allowPrivateNetworks: true, politeness: false } } });
  admin = await h.admin();
});
afterAll(() => server.stop(true));

test("PDFs and OpenAPI specs linked from the site become documents; a re-sync gets the PDF's 304", async () => {
  const kb = await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name: "formats-site" } });
  const origin = `http://127.0.0.1:${server.port}`;
  const created = await h.call("POST", `/v1/knowledge_bases/${kb.json.id}/sources`, {
    key: admin,
    json: { url: `${origin}/docs`, type: "crawl" },
  });
  expectStatus(created, 201);
  await h.app.parley.sources.idle();
  const read = async () =>
    (await h.call("GET", `/v1/knowledge_bases/${kb.json.id}/sources/${created.json.id}`, { key: admin }))
      .json as Source;
  const first = (await read()).last_sync!;
  expect(first.status).toBe("completed");
  const reasons = Object.fromEntries(first.errors.map((e) => [new URL(e.url).pathname, e.reason]));
  expect(reasons["/docs/logo.png"]).toBeUndefined(); // an image is not even followed
  expect(reasons["/docs/broken.pdf"]).toStartWith("pdf_");

  const docs = await h.call("GET", `/v1/knowledge_bases/${kb.json.id}/documents?limit=100`, { key: admin });
  const urls = docs.json.data.map((d) => d.url.slice(origin.length)).sort();
  expect(urls).toContain("/docs/guide.pdf");
  expect(urls.filter((u) => u.startsWith("/docs/petstore.yaml#")).length).toBeGreaterThan(1);
  const pdf = docs.json.data.find((d) => d.url.endsWith("/docs/guide.pdf"))!;
  const full = await h.call("GET", `/v1/knowledge_bases/${kb.json.id}/documents/${pdf.id}`, { key: admin });
  expect(full.json.content).toMatch(/^#+ /m);

  notModified = 0;
  const again = await h.call("POST", `/v1/knowledge_bases/${kb.json.id}/sources/${created.json.id}/sync`, {
    key: admin,
  });
  expectStatus(again, 202);
  await h.app.parley.sources.idle();
  const second = (await read()).last_sync!;
  expect(second.pages).toMatchObject({ created: 0, updated: 0, deleted: 0 });
  // The PDF answers 304 (the HTML page sends no validator; the spec is read whole every time).
  expect(second.pages.not_modified).toBe(1);
  expect(second.pages.unchanged).toBe(docs.json.data.length);
  expect(notModified).toBe(second.pages.not_modified);
  expect((await read()).document_count).toBe(docs.json.data.length);
});
