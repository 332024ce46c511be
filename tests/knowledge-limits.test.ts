/**
 * Document uploads at their limits: titles and metadata bounded the same way through every door,
 * deep nesting and bad bytes failing their own line or file, overlong ndjson lines dropped as
 * they arrive, slow and broken-off bodies.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app/app.ts";
import type { BulkResult } from "../src/contract/index.ts";
import { splitIntoPassages } from "../src/knowledge/chunk.ts";
import { parseFile, parseJsonl } from "../src/knowledge/parse.ts";
import { ingestCommand } from "../src/runtime/cli/ingest.ts";
import { bufferIo } from "../src/runtime/cli/io.ts";
import { expectError, expectStatus, harness, type Reply, send } from "./helpers/app.ts";
import { eventually } from "./helpers/instances.ts";
import { captureLog } from "./helpers/log.ts";

setDefaultTimeout(60_000); // per file: see bunfig.toml

const h = await harness({ options: { uploadIdleMs: 400 } });
const admin = await h.admin();
const uniq = () => crypto.randomUUID().slice(0, 8);

async function newKb() {
  const r = await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name: `kb-${uniq()}` } });
  expectStatus(r, 201);
  return r.json.id;
}

const documentsPath = (kb: string) => `/v1/knowledge_bases/${kb}/documents` as const;
const ndjson = (kb: string, body: BodyInit, app: { handle(r: Request): Promise<Response> } = h.app) =>
  send(app, "POST", documentsPath(kb), { key: admin, body, headers: { "content-type": "application/x-ndjson" } });
const multipart = (kb: string, files: File[]) => {
  const form = new FormData();
  for (const f of files) form.append("files", f);
  return h.call("POST", documentsPath(kb), { key: admin, body: form });
};
const statuses = (r: Reply<BulkResult>) => r.json.results.map((i) => i.status);
const stored = async (kb: string) => (await h.call("GET", `${documentsPath(kb)}?limit=100`, { key: admin })).json.data;

/** An object nested `depth` levels deep, built without recursion. */
function nested(depth: number): Record<string, unknown> {
  const top: Record<string, unknown> = {};
  let at = top;
  for (let i = 1; i < depth; i++) {
    const inner = {};
    at.a = inner;
    at = inner;
  }
  return top;
}
/** The same as JSON text, written out (JSON.stringify itself recurses). */
const nestedJson = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;

describe("title and metadata limits", () => {
  test("a title over 1,000 characters, metadata over 16 KiB or nested over 32 levels: 400 with param, in every door", async () => {
    const kb = await newKb();
    const doc = { url: "https://limits.test/a", content: "# Heading\n\nsome text" };
    const refused: [Record<string, unknown>, string][] = [
      [{ title: "t".repeat(1_001) }, "title"],
      [{ title: "😀".repeat(1_001) }, "title"],
      [{ format: "html", content: `<title>${"t".repeat(1_001)}</title><p>text</p>` }, "title"],
      [{ metadata: { big: "m".repeat(16 * 1024) } }, "metadata"],
      [{ metadata: nested(33) }, "metadata"],
    ];
    for (const [fields, param] of refused) {
      const r = await h.call("POST", documentsPath(kb), { key: admin, json: { ...doc, ...fields } });
      expectError(r, 400, "invalid_request");
      expect(r.json.error.param).toBe(param);
    }
    // At the limits, accepted: a title of 1,000 characters (astral ones count once), 32 levels.
    const ok = await h.call("POST", documentsPath(kb), {
      key: admin,
      json: { ...doc, title: "😀".repeat(1_000), metadata: nested(32) },
    });
    expectStatus(ok, 201);

    const lines = refused.map(([fields]) => JSON.stringify({ ...doc, ...fields }));
    const nd = await ndjson(kb, lines.join("\n"));
    expectStatus(nd, 200);
    expect(nd.json.results.map((i) => i.error?.param)).toEqual(refused.map(([, p]) => p));

    const deepYaml = `---\nurl: https://limits.test/y\nm: ${"[".repeat(40)}${"]".repeat(40)}\n---\ntext`;
    const mp = await multipart(kb, [
      new File([`---\nurl: https://limits.test/fm\ntitle: ${"t".repeat(1_001)}\n---\ntext`], "fm.md"),
      new File(
        [
          `<html><head><link rel="canonical" href="https://limits.test/p"><title>${"t".repeat(1_001)}</title></head><body>text</body></html>`,
        ],
        "p.html",
      ),
      new File([deepYaml], "deep.md"),
    ]);
    expectStatus(mp, 200);
    expect(mp.json.results.map((i) => i.error?.param)).toEqual(["title", "title", "metadata"]);
    // The CLI reads with the same rules.
    expect(
      parseFile(`---\nurl: https://limits.test/c\ntitle: ${"t".repeat(1_001)}\n---\nx`, "c.md").problem?.param,
    ).toBe("title");
    expect((await stored(kb)).length).toBe(1);
  });

  test("a heading too long for a title is text: no passage repeats it, and the URL names the document", async () => {
    const long = `# ${"word ".repeat(400)}`;
    const body = Array.from({ length: 20 }, (_, i) => `paragraph ${i} ${"text ".repeat(60)}`).join("\n\n");
    const passages = splitIntoPassages("Title", `${long}\n\n${body}`);
    expect(passages.length).toBeGreaterThan(5);
    for (const p of passages) expect(p.heading).toBe("Title");
    const r = parseJsonl(JSON.stringify({ url: "https://limits.test/h", content: `${long}\n\n${body}` }), "x.jsonl");
    expect(r.docs[0]!.title).toBe("https://limits.test/h");
    expect(splitIntoPassages("T", "## Part ##\nx\n# C#\ny").map((p) => p.heading)).toEqual(["Part", "C#"]);
  });

  test("a heading line of spaces is read in linear time", () => {
    const started = performance.now();
    splitIntoPassages("T", `# a${" ".repeat(2_000)}x\n\ntext`);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe("deep nesting and bad bytes fail their own line or file", () => {
  test("metadata nested 100,000 deep, 20,000 nested <div>s, 100,000 unclosed <span>s: 200 with a result per line", async () => {
    const kb = await newKb();
    const line = (i: number, rest: string) => `{"url":"https://deep.test/${i}",${rest}}`;
    const body = [
      line(1, `"content":"first"`),
      line(2, `"content":"x","metadata":${nestedJson(100_000)}`),
      line(3, `"format":"html","content":${JSON.stringify(`${"<div>".repeat(20_000)}x${"</div>".repeat(20_000)}`)}`),
      line(4, `"format":"html","content":${JSON.stringify(`${"<span>".repeat(100_000)}x`)}`),
      line(5, `"content":"last"`),
    ].join("\n");
    const r = await ndjson(kb, body);
    expectStatus(r, 200);
    expect(statuses(r)).toEqual(["created", "failed", "failed", "failed", "created"]);
    expect(r.json.results[1]?.error).toMatchObject({ code: "invalid_request", param: "metadata" });
    expect(r.json.results[2]?.error).toMatchObject({ code: "invalid_request", param: "content" });
    expect(r.json.results[2]?.error?.message).toContain("nested too deeply");
    const mp = await multipart(kb, [
      new File([`<html><body>${"<span>".repeat(30_000)}x</body></html>`], "deep.html"),
      new File(["---\nurl: https://deep.test/loop\na: &x [*x]\n---\ntext"], "loop.md"),
      new File(["---\nurl: https://deep.test/ok\n---\nfine"], "ok.md"),
    ]);
    expectStatus(mp, 200);
    expect(statuses(mp)).toEqual(["failed", "failed", "created"]);
    expect(mp.json.results[1]?.error?.param).toBe("metadata");
  });

  test("invalid UTF-8 fails its ndjson line or multipart file, as a JSON body is refused", async () => {
    const kb = await newKb();
    const enc = new TextEncoder();
    const bad = new Uint8Array([
      ...enc.encode('{"url":"https://utf.test/bad","content":"a'),
      0xff,
      ...enc.encode('"}'),
    ]);
    const body = new Uint8Array([
      ...enc.encode('{"url":"https://utf.test/1","content":"one"}\n'),
      ...bad,
      ...enc.encode('\n{"url":"https://utf.test/2","content":"two"}\n'),
    ]);
    const r = await ndjson(kb, body);
    expectStatus(r, 200);
    expect(statuses(r)).toEqual(["created", "failed", "created"]);
    expect(r.json.results[1]?.error?.message).toContain("UTF-8");
    const mp = await multipart(kb, [
      new File([enc.encode("---\nurl: https://utf.test/f\n---\nok "), new Uint8Array([0xc3, 0x28])], "f.md"),
    ]);
    expect(statuses(mp)).toEqual(["failed"]);
    expect(mp.json.results[0]?.error?.message).toContain("UTF-8");
    const json = await send(h.app, "POST", documentsPath(kb), {
      key: admin,
      body: bad,
      headers: { "content-type": "application/json" },
    });
    expectError(json, 400, "invalid_json");
    expect((await stored(kb)).map((d) => d.url).sort()).toEqual(["https://utf.test/1", "https://utf.test/2"]);
  });
});

test("the CLI skips, with why, a file that is not UTF-8, nested too deeply or titled too long; the rest load", async () => {
  const name = `kb-${uniq()}`;
  expectStatus(await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name } }), 201);
  const dir = mkdtempSync(join(tmpdir(), "parley-limits-"));
  try {
    const fm = (url: string, rest = "") => `---\nurl: https://cli.test/${url}\n${rest}---\n`;
    writeFileSync(join(dir, "bytes.md"), new Uint8Array([...new TextEncoder().encode(fm("bytes")), 0xff]));
    writeFileSync(join(dir, "deep.html"), `${fm("deep")}<p>${"<span>".repeat(30_000)}x</p>`);
    writeFileSync(join(dir, "title.md"), `${fm("title", `title: ${"t".repeat(1_001)}\n`)}text`);
    writeFileSync(join(dir, "ok.md"), `${fm("ok")}fine`);
    const io = bufferIo();
    expect(await ingestCommand(h.store, ["--kb", name, dir], io)).toBe(0);
    expect(io.stdout).toEqual(["ingested 1 document(s), skipped 3"]);
    expect(io.stderr.join("\n")).toContain("bytes.md: not valid UTF-8");
    expect(io.stderr.join("\n")).toContain("deep.html: the HTML is nested too deeply");
    expect(io.stderr.join("\n")).toContain("title.md: `title` is over 1000 characters");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe("overlong ndjson lines", () => {
  test("a 50 MB line is dropped as it arrives: a per-line 413, the next line stored, memory flat", async () => {
    const kb = await newKb();
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const start = new TextEncoder().encode('{"url":"https://long.test/1","content":"');
    const end = new TextEncoder().encode('"}\n{"url":"https://long.test/2","content":"after"}\n');
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent === 0) c.enqueue(start);
        else if (sent > 50 * 1_048_576) {
          c.enqueue(end);
          return c.close();
        } else c.enqueue(chunk.slice());
        sent += sent === 0 ? 1 : chunk.byteLength;
      },
    });
    // What is decoded: the overlong line's bytes never are (the text of its document never exists).
    const decode = TextDecoder.prototype.decode;
    let decoded = 0;
    TextDecoder.prototype.decode = function (this: TextDecoder, input?: AllowSharedBufferSource, options?) {
      decoded += input?.byteLength ?? 0;
      return decode.call(this, input, options);
    };
    Bun.gc(true);
    const before = process.memoryUsage.rss();
    let peak = before;
    const sample = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    const r = await ndjson(kb, body).finally(() => {
      clearInterval(sample);
      TextDecoder.prototype.decode = decode;
    });
    expectStatus(r, 200);
    expect(statuses(r)).toEqual(["failed", "created"]);
    expect(r.json.results[0]?.error).toMatchObject({ code: "payload_too_large" });
    expect(decoded).toBeLessThan(1_048_576);
    expect((peak - before) / 1_048_576).toBeLessThan(64);
  });
});

describe("slow and broken-off uploads", () => {
  const log = captureLog();
  const app = createApp({ store: h.store, logger: log.logger, options: { uploadIdleMs: 10_000 } });
  afterAll(() => app.parley.close());

  /** An ndjson body written by the test: `write` a line, `end` it. */
  function slowBody() {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
    });
    return {
      body,
      write: (doc: object) => controller.enqueue(new TextEncoder().encode(`${JSON.stringify(doc)}\n`)),
      end: () => controller.close(),
    };
  }

  test("what a slow client sends is stored within about a second, before its body ends", async () => {
    const kb = await newKb();
    const b = slowBody();
    const answer = ndjson(kb, b.body, app);
    b.write({ url: "https://slow.test/1", content: "first" });
    b.write({ url: "https://slow.test/2", content: "second" });
    await eventually(async () => ((await stored(kb)).length === 2 ? true : undefined), 5_000);
    b.write({ url: "https://slow.test/3", content: "third" });
    b.end();
    const r = await answer;
    expectStatus(r, 200);
    expect(r.json).toMatchObject({ created: 3, failed: 0 });
  });

  test("a client that leaves mid-upload: its complete lines are stored, a warning is logged, not a 500 error", async () => {
    const kb = await newKb();
    const line = new TextEncoder().encode(`${JSON.stringify({ url: "https://gone.test/1", content: "first" })}\n`);
    let pulls = 0;
    // The line, then (once it has been read) the error Bun's body stream gives when the client leaves.
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (pulls++ === 0) c.enqueue(line);
        else c.error(new DOMException("The connection was closed.", "AbortError"));
      },
    });
    const r = await ndjson(kb, body, app);
    expectError(r, 400, "invalid_request");
    expect((await stored(kb)).map((d) => d.url)).toEqual(["https://gone.test/1"]);
    await log.waitFor((e) => e.msg === "upload ended early");
    const warning = log.entries().find((e) => e.msg === "upload ended early")!;
    expect(warning).toMatchObject({ level: "warn", request_id: r.headers.get("x-request-id") });
    expect(log.entries().filter((e) => e.level === "error")).toEqual([]);
  });

  test("a body that sends nothing for uploadIdleMs is stopped with 400; the lines before it are stored", async () => {
    const kb = await newKb();
    const b = slowBody();
    const answer = ndjson(kb, b.body); // h.app: uploadIdleMs 400
    b.write({ url: "https://stall.test/1", content: "only" });
    const r = await answer;
    expectError(r, 400, "invalid_request");
    expect(r.json.error.message).toContain("400 ms");
    expect((await stored(kb)).map((d) => d.url)).toEqual(["https://stall.test/1"]);
  });

  // An upload over a real socket that outlasts the server's idle timeout: tests/process/slow-upload.test.ts.
});
