/**
 * Deno smoke test of the ecosystem doors (run by .ci/run): the standalone app under Deno.serve on
 * PGlite, reached with the official `openai` SDK (create, stream, models, a typed error) and the
 * MCP SDK's Client + StreamableHTTPClientTransport (listTools, search, ask).
 * Run: deno run -A tests/deno/protocols-smoke.ts
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import OpenAI from "openai";
import { createApp } from "../../src/app/app.ts";
import { createLogger } from "../../src/config/logger.ts";
import { checker, smokeStore } from "./setup.ts";

const { store, secret } = await smokeStore();
const app = createApp({ store, logger: createLogger("silent") });
const ac = new AbortController();
const server = Deno.serve({ port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} }, app.fetch);
const base = `http://127.0.0.1:${server.addr.port}`;
const check: (cond: unknown, what: string) => asserts cond = checker("deno protocols smoke");
const QUESTION = "Does Parley run on Deno?";

try {
  const openai = new OpenAI({ apiKey: secret, baseURL: `${base}/v1`, maxRetries: 0 });
  const done = await openai.chat.completions.create({
    model: "default",
    messages: [{ role: "user", content: QUESTION }],
  });
  const message = done.choices[0]!.message;
  check(
    message.content?.includes("Deno.serve") && message.annotations?.length === 1,
    "openai: chat.completions.create",
  );

  let streamed = "";
  let usage: unknown;
  const stream = await openai.chat.completions.create({
    model: "default",
    messages: [{ role: "user", content: QUESTION }],
    stream: true,
    stream_options: { include_usage: true },
  });
  for await (const c of stream) {
    streamed += c.choices[0]?.delta.content ?? "";
    if (c.usage) usage = c.usage;
  }
  check(streamed === message.content && usage !== undefined, "openai: streamed completion with usage");
  check((await openai.models.list()).data[0]?.id === "default", "openai: models.list");
  const missing = await openai.models.retrieve("nope").catch((e) => e);
  check(missing instanceof OpenAI.NotFoundError, "openai: NotFoundError");

  const client = new Client({ name: "deno-smoke", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  const { tools } = await client.listTools();
  check(tools.length === 3, "mcp: listTools");
  const found = await client.callTool({ name: "search", arguments: { query: "Deno" } });
  const results = (found.structuredContent as { results: { url: string }[] }).results;
  check(results[0]?.url === "https://smoke.test/deno", "mcp: search");
  const asked = await client.callTool({ name: "ask", arguments: { question: QUESTION } });
  check((asked.structuredContent as { sources: string[] }).sources[0] === "https://smoke.test/deno", "mcp: ask");
  await client.close();

  // A client of the current revision (no handshake, no session).
  const modern = new ModernClient(
    { name: "deno-smoke", version: "2.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await modern.connect(
    new ModernTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }),
  );
  check(modern.getNegotiatedProtocolVersion() === "2026-07-28", "mcp 2026-07-28: negotiated");
  const followUp = await modern.callTool({
    name: "ask",
    arguments: {
      question: "And on Bun?",
      conversation_id: (asked.structuredContent as { conversation_id: string }).conversation_id,
    },
  });
  check(!followUp.isError, "mcp 2026-07-28: ask a follow-up");
  await modern.close();
} finally {
  ac.abort();
  await server.finished;
  // The plugin's timers and listeners end with it; the store is closed by its owner, after.
  await app.parley.close();
  await store.close();
}
