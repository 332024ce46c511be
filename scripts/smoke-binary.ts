/**
 * CI step: the compiled binary, copied alone into an empty folder and run with an empty PATH
 * (no Bun, no node_modules, no repo), runs every CLI command and serves the API on its embedded
 * PGlite. Exits non-zero on the first thing that does not hold.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createParser } from "eventsource-parser";
import pkg from "../package.json" with { type: "json" };
import { startFakeEmbeddings } from "../tests/helpers/fake-embeddings.ts";
import { startFakeOpenAI } from "../tests/helpers/fake-openai.ts";
import { checkSourceSync } from "./smoke-binary-sources.ts";

/** Polls `/healthz` until the server answers (up to 30 s), else throws `failure`. */
async function waitHealthy(base: string, failure: string): Promise<void> {
  for (
    let i = 0;
    !(await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  ) {
    if (i > 600) throw new Error(failure);
    await Bun.sleep(50);
  }
}

const dir = mkdtempSync(join(tmpdir(), "parley-bin-"));
const bin = join(dir, "parley");
copyFileSync(resolve("dist/parley"), bin);
const env = { PATH: "", HOME: dir, DATA_DIR: "./data", LOG_LEVEL: "warn" };

function check(cond: unknown, what: string): asserts cond {
  if (!cond) throw new Error(`binary smoke: ${what}`);
  console.log(`ok - ${what}`);
}

function run(args: string[]) {
  const r = Bun.spawnSync([bin, ...args], { cwd: dir, env, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

try {
  check(run(["--version"]).out === `parley ${pkg.version}\n`, "--version prints the version the binary carries");
  check(run(["migrate"]).code === 0, "migrate");
  const created = run(["keys", "create", "--name", "smoke", "--plan", "pro"]);
  const key = created.out.trim().split("\n").at(-1)!;
  check(
    created.code === 0 && created.out.trim() === key && /^prl_/.test(key),
    "keys create prints only the secret on stdout",
  );
  check(!run(["keys", "list"]).out.includes(key), "keys list hides secrets");
  writeFileSync(
    join(dir, "kb.md"),
    "---\nurl: https://smoke.test/kb\n---\n# Wombats\nWombats dig burrows with their strong claws.",
  );
  check(run(["ingest", "kb.md"]).out.includes("ingested 1"), "ingest");
  const adminKey = run(["keys", "create", "--name", "smoke-admin", "--plan", "pro", "--admin"]).out.trim();

  const port = 21_000 + Math.floor(Math.random() * 20_000);
  const server = Bun.spawn([bin, "serve"], {
    cwd: dir,
    // The source below is a site on 127.0.0.1.
    env: { ...env, PORT: String(port), HOST: "127.0.0.1", SOURCES_ALLOW_PRIVATE_NETWORKS: "true" },
    stderr: "inherit",
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(base, "server did not start");
    const health = Bun.spawnSync([bin, "healthcheck"], { cwd: dir, env: { ...env, PORT: String(port) } });
    check(health.exitCode === 0, "healthcheck (the Dockerfile's HEALTHCHECK)");
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const chat = await fetch(`${base}/v1/chat`, {
      method: "POST",
      headers,
      body: JSON.stringify({ message: "How do wombats dig?" }),
    });
    const reply = (await chat.json()) as { conversation_id: string; content: string };
    check(chat.status === 200 && reply.content.includes("burrows"), "chat (JSON) answers from the ingested document");

    const stream = await fetch(`${base}/v1/chat`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        message: "Tell me more about wombats",
        conversation_id: reply.conversation_id,
        stream: true,
      }),
    });
    const types: string[] = [];
    const parser = createParser({ onEvent: (e) => types.push(JSON.parse(e.data).type) });
    parser.feed(await stream.text());
    check(
      types[0] === "start" && types.at(-1) === "end" && types.includes("token") && types.includes("sources"),
      "chat (stream)",
    );

    const list = (await (await fetch(`${base}/v1/conversations`, { headers })).json()) as { data: { id: string }[] };
    check(list.data.length === 1 && list.data[0]!.id === reply.conversation_id, "list");
    const conv = (await (await fetch(`${base}/v1/conversations/${reply.conversation_id}`, { headers })).json()) as {
      messages: unknown[];
    };
    check(conv.messages.length === 4, "get");

    // The ecosystem doors: Chat Completions (what the openai SDKs send) and MCP (JSON-RPC over POST).
    const completion = await fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "default", messages: [{ role: "user", content: "How do wombats dig?" }] }),
    });
    const done = (await completion.json()) as { choices: { message: { content: string; annotations: unknown[] } }[] };
    check(
      completion.status === 200 && done.choices[0]!.message.content.includes("burrows"),
      "chat completions (OpenAI-compatible)",
    );
    const mcp = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { ...headers, accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "search", arguments: { query: "wombats" } },
      }),
    });
    const called = (await mcp.json()) as { result?: { structuredContent?: { results: unknown[] } } };
    check(mcp.status === 200 && (called.result?.structuredContent?.results.length ?? 0) > 0, "MCP search tool");
    // /docs needs nothing but this binary: the page, the reference UI's script and the document.
    const ui = await fetch(`${base}/docs/scalar.js`);
    check(ui.status === 200 && (await ui.text()).length > 1_000_000, "/docs serves its reference UI from the binary");
    // /console likewise: its page, script and stylesheet are embedded, under the strict CSP.
    for (const [path, marker] of [
      ["/console", '<div id="app">'],
      ["/console/console.js", "sessionStorage"],
      ["/console/console.css", "--accent"],
    ]) {
      const res = await fetch(`${base}${path}`);
      const ok = res.status === 200 && res.headers.get("content-security-policy")?.includes("script-src 'self'");
      check(Boolean(ok) && (await res.text()).includes(marker!), `${path} is served from the binary under the CSP`);
    }
    // The widget's script, for any site's pages: embedded, public, readable cross-origin.
    const widget = await fetch(`${base}/widget.js`);
    check(
      widget.status === 200 &&
        widget.headers.get("cross-origin-resource-policy") === "cross-origin" &&
        (await widget.text()).includes("parley-widget"),
      "/widget.js is served from the binary",
    );
    await checkSourceSync(base, adminKey, check);

    // The CLI while the server holds the folder: forwarded over the admin socket (kernel locks via FFI).
    const live = run(["keys", "create", "--name", "live", "--plan", "free"]);
    const liveKey = live.out.trim();
    const liveId = /created (key_\w+)/.exec(live.err)?.[1];
    const auth = { authorization: `Bearer ${liveKey}` };
    check(
      live.code === 0 && (await fetch(`${base}/v1/conversations`, { headers: auth })).status === 200,
      "keys create while serving: the key works at once",
    );
    check(
      run(["keys", "revoke", liveId ?? "?"]).code === 0 &&
        (await fetch(`${base}/v1/conversations`, { headers: auth })).status === 401,
      "keys revoke while serving: the next request is 401",
    );
    const second = Bun.spawnSync([bin, "serve"], { cwd: dir, env: { ...env, PORT: "0" }, stderr: "pipe" });
    check(
      second.exitCode === 1 && second.stderr.toString().includes("in use by another Parley server"),
      "a second server on the folder is refused",
    );
  } finally {
    server.kill("SIGTERM");
    check((await server.exited) === 0, "SIGTERM stops the server cleanly");
  }
  check(run(["keys", "list"]).code === 0, "the data folder is reusable after the stop");

  // A model backend: the binary with LLM_PROVIDER set answers through a loopback OpenAI-compatible server.
  const fake = startFakeOpenAI({
    tokens: ["Wombats", " dig", " with", " claws", " [1]."],
    usage: { input: 50, output: 5 },
  });
  const llmPort = 21_000 + Math.floor(Math.random() * 20_000);
  const llmEnv = {
    ...env,
    PORT: String(llmPort),
    HOST: "127.0.0.1",
    LLM_PROVIDER: "openai-compatible",
    LLM_BASE_URL: `${fake.url}/v1`,
    LLM_MODEL: "smoke-model",
    LLM_API_KEY: "sk-smoke",
  };
  const llm = Bun.spawn([bin, "serve"], { cwd: dir, env: llmEnv, stderr: "inherit" });
  try {
    const base = `http://127.0.0.1:${llmPort}`;
    await waitHealthy(base, "server with LLM_PROVIDER did not start");
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const res = await fetch(`${base}/v1/chat`, {
      method: "POST",
      headers,
      body: JSON.stringify({ message: "How do wombats dig?", stream: true }),
    });
    const events: { type: string; content?: string; usage?: unknown; sources?: string[] }[] = [];
    createParser({ onEvent: (e) => events.push(JSON.parse(e.data)) }).feed(await res.text());
    const text = events.flatMap((e) => (e.type === "token" ? [e.content] : [])).join("");
    const got = fake.received[0];
    check(
      text === "Wombats dig with claws [1]." &&
        JSON.stringify(events.at(-1)?.usage) === '{"input_tokens":50,"output_tokens":5}',
      "chat (stream) through the model provider, with usage",
    );
    check(
      got?.body.model === "smoke-model" &&
        got.headers.authorization === "Bearer sk-smoke" &&
        JSON.stringify(got.body).includes("https://smoke.test/kb"),
      "the provider got the model, the key and the passage",
    );
    check(
      events.find((e) => e.type === "sources")?.sources?.[0] === "https://smoke.test/kb",
      "sources: the cited document",
    );
  } finally {
    llm.kill("SIGTERM");
    check((await llm.exited) === 0, "SIGTERM stops the model-backed server cleanly");
    await fake.stop();
  }
  // Hybrid search: the binary loads pgvector (its bundle is embedded: runtime/pglite-assets.ts),
  // embeds the passages through a loopback /v1/embeddings, and embeds each question.
  const embeddings = startFakeEmbeddings({ dimensions: 32 });
  const vecPort = 21_000 + Math.floor(Math.random() * 20_000);
  const vecEnv = {
    ...env,
    PORT: String(vecPort),
    HOST: "127.0.0.1",
    EMBEDDINGS_PROVIDER: "openai-compatible",
    EMBEDDINGS_BASE_URL: embeddings.url,
    EMBEDDINGS_MODEL: "smoke-embed",
    EMBEDDINGS_DIMENSIONS: "32",
  };
  const hybrid = Bun.spawn([bin, "serve"], { cwd: dir, env: vecEnv, stdout: "pipe", stderr: "pipe" });
  try {
    const base = `http://127.0.0.1:${vecPort}`;
    await waitHealthy(base, "server with EMBEDDINGS_PROVIDER did not start (pgvector in the binary?)");
    const res = await fetch(`${base}/v1/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "How do wombats dig?" }),
    });
    const reply = (await res.json()) as { content?: string };
    check(res.status === 200 && (reply.content ?? "").includes("burrows"), "chat with hybrid search on");
    check(
      embeddings.requests.some((r) => r.texts.some((t) => t.includes("wombats dig"))),
      "pgvector loaded from the binary: the question was embedded for the vector ranking",
    );
  } finally {
    hybrid.kill("SIGTERM");
    const log = (await new Response(hybrid.stdout).text()) + (await new Response(hybrid.stderr).text());
    check((await hybrid.exited) === 0, "SIGTERM stops the hybrid server cleanly");
    check(!/Extension bundle not found|vector.*not/i.test(log), "no pgvector error in the log");
    await embeddings.stop();
  }
  // Other formats: pdf.js (unpdf's bundle) and the YAML reader run from the binary alone.
  for (const name of ["guide.pdf", "petstore.yaml"])
    copyFileSync(resolve("tests/fixtures/formats", name), join(dir, name));
  const formats = run(["ingest", "--base-url", "https://smoke.test/files/", "guide.pdf", "petstore.yaml"]);
  check(
    formats.code === 0 && formats.out.trim() === "ingested 7 document(s)" && formats.err === "",
    "ingest of a PDF (one document) and an OpenAPI spec (an overview and 5 operations)",
  );
  const open = Bun.spawnSync(["find", join(dir, "data"), "-perm", "/077"], { stdout: "pipe" })
    .stdout.toString()
    .trim();
  check(
    open === "",
    `the data folder is private (0700/0600)${open ? `: ${open.split("\n").length} entries open to others` : ""}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
