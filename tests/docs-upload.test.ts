/**
 * A docs folder uploaded as multipart files with `base_url`: each file without a `url` gets the
 * address the site serves it at (knowledge/docs-url.ts, the CLI's `--base-url` rule), never a
 * `.md` URL the site does not serve; `url_style` chooses the mapping.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { expectError, expectStatus, harness } from "./helpers/app.ts";

setDefaultTimeout(60_000); // per file: see bunfig.toml

const h = await harness();
const admin = await h.admin();

async function newKb() {
  const r = await h.call("POST", "/v1/knowledge_bases", {
    key: admin,
    json: { name: `docs-${crypto.randomUUID().slice(0, 8)}` },
  });
  expectStatus(r, 201);
  return r.json.id as string;
}

/** A docs folder as a browser's folder upload sends it: each file named by its relative path. */
function docsForm(fields: Record<string, string>) {
  const form = new FormData();
  form.append("files", new File(["# Welcome\n\nStart here."], "index.md"));
  form.append("files", new File(["Intro.\n\n## Setting up\n\nInstall it."], "guide/set up.md"));
  form.append("files", new File(["# Guide\n\nThe guide."], "guide/README.md"));
  form.append("files", new File(["---\nurl: https://own.test/page\n---\n# Own\n\ntext"], "own.md"));
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

const upload = (kb: string, form: FormData) =>
  h.call("POST", `/v1/knowledge_bases/${kb}/documents`, { key: admin, body: form });

describe("multipart upload of a docs folder with base_url", () => {
  test("default (clean): Markdown extensions dropped, README/index is its folder, titles from headings", async () => {
    const kb = await newKb();
    const r = await upload(kb, docsForm({ base_url: "https://docs.example.com/v2" }));
    expectStatus(r, 200);
    const urls = Object.fromEntries(r.json.results.map((i) => [i.file, i.url]));
    expect(urls).toEqual({
      "index.md": "https://docs.example.com/v2/",
      "guide/set up.md": "https://docs.example.com/v2/guide/set%20up",
      "guide/README.md": "https://docs.example.com/v2/guide/",
      "own.md": "https://own.test/page",
    });
    const docs = await h.call("GET", `/v1/knowledge_bases/${kb}/documents`, { key: admin });
    expectStatus(docs, 200);
    const titles = Object.fromEntries(docs.json.data.map((d: { url: string; title: string }) => [d.url, d.title]));
    expect(titles).toMatchObject({
      "https://docs.example.com/v2/": "Welcome",
      "https://docs.example.com/v2/guide/set%20up": "Setting up",
      "https://docs.example.com/v2/guide/": "Guide",
    });
  });

  test("url_style html and keep", async () => {
    const kb = await newKb();
    const html = await upload(kb, docsForm({ base_url: "https://docs.example.com/", url_style: "html" }));
    expectStatus(html, 200);
    expect(html.json.results.map((i) => i.url)).toEqual([
      "https://docs.example.com/index.html",
      "https://docs.example.com/guide/set%20up.html",
      "https://docs.example.com/guide/index.html",
      "https://own.test/page",
    ]);
    const keep = await upload(kb, docsForm({ base_url: "https://docs.example.com/", url_style: "keep" }));
    expect(keep.json.results[1]?.url).toBe("https://docs.example.com/guide/set%20up.md");
  });

  test("a bad url_style or base_url fails the request (400, its param), before any file is stored", async () => {
    const kb = await newKb();
    const style = await upload(kb, docsForm({ base_url: "https://docs.example.com/", url_style: "pretty" }));
    expectError(style, 400, "invalid_request");
    expect(style.json.error.param).toBe("url_style");
    const base = await upload(kb, docsForm({ base_url: "https://docs.example.com/?v=2" }));
    expectError(base, 400, "invalid_request");
    expect(base.json.error.param).toBe("base_url");
    const listed = await h.call("GET", `/v1/knowledge_bases/${kb}/documents`, { key: admin });
    expect(listed.json.data).toEqual([]);
  });
});
