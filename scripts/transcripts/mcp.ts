/**
 * The MCP SDK's clients on /mcp: `search`, `ask`, `ask` again with the returned conversation_id,
 * and a refused call — once with the current client (`@modelcontextprotocol/client` 2.x, which
 * negotiates the 2026-07-28 revision: no handshake) and once with the older one
 * (`@modelcontextprotocol/sdk` 1.x: the 2025 `initialize` handshake).
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ctx,
  errorView,
  expectCited,
  expectContinued,
  FOLLOW_UP,
  findings,
  QUESTION,
  show,
  step,
  type Transcript,
} from "./record.ts";
import { KB } from "./server.ts";

type Result = Awaited<ReturnType<Client["callTool"]>>;
type Asked = { answer: string; sources: string[]; conversation_id: string };

const textOf = (r: Result) =>
  ((r.content ?? []) as { type: string; text?: string }[])
    .map((c) => (c.type === "text" ? c.text : `[${c.type}]`))
    .join("\n");

export type McpClientKind = "2026-07-28" | "2025";

async function connect(kind: McpClientKind): Promise<Client> {
  const url = new URL(`${ctx.served.url}/mcp`);
  const requestInit = { headers: { Authorization: `Bearer ${ctx.served.key}` } };
  if (kind === "2025") {
    const client = new Client({ name: "parley-transcripts", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
    return client;
  }
  const client = new ModernClient(
    { name: "parley-transcripts", version: "2.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(new ModernTransport(url, { requestInit }));
  // The calls below are the same in both SDKs.
  return client as unknown as Client;
}

const ABOUT: Record<McpClientKind, string> = {
  "2026-07-28":
    '`@modelcontextprotocol/client` 2.x: `new Client(…, { versionNegotiation: { mode: "auto" } })` connected with `new StreamableHTTPClientTransport(new URL("http://127.0.0.1:PORT/mcp"), { requestInit: { headers: { Authorization: "Bearer prl_…" } } })`; it probes with `server/discover` and speaks 2026-07-28 (no handshake).',
  "2025":
    '`@modelcontextprotocol/sdk` 1.x: `new Client(…)` connected with `new StreamableHTTPClientTransport(new URL("http://127.0.0.1:PORT/mcp"), { requestInit: { headers: { Authorization: "Bearer prl_…" } } })`: the 2025 `initialize` handshake.',
};

export async function mcp(kind: McpClientKind): Promise<Transcript> {
  const where = `MCP SDK client (${kind})`;
  const client = await connect(kind);
  const tool = async (name: string, args: Record<string, unknown>) => ({
    request: `await client.callTool(${show({ name, arguments: args })})`,
    result: await client.callTool({ name, arguments: args }),
  });
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const search = await tool("search", { query: "signed cookies", knowledge_base: KB, limit: 3 });
    const found = search.result.structuredContent as { results: { url: string; title: string; score: number }[] };
    const first = step("search", search.request, {
      text: textOf(search.result),
      citationsAt: "structuredContent.results (url, title, score)",
      citations: found?.results.map(({ url, title, score }) => ({ url, title, score })),
    });
    first.notes.push(`listTools: ${JSON.stringify(tools)}; server: ${JSON.stringify(client.getServerVersion())}`);
    const version = (client as unknown as { getNegotiatedProtocolVersion?: () => string }).getNegotiatedProtocolVersion;
    if (version) first.notes.push(`negotiated protocol version: ${version.call(client)}`);
    const instructions = client.getInstructions();
    if (instructions)
      first.notes.push(
        `instructions (the first knowledge base listed): ${instructions.split("\n").find((l) => l.startsWith("- ")) ?? ""}`,
      );
    expectCited(first, where, found?.results.length ?? 0);

    const ask = await tool("ask", { question: QUESTION, knowledge_base: KB });
    const asked = ask.result.structuredContent as Asked;
    const second = step("ask", ask.request, {
      text: asked?.answer,
      citationsAt: "structuredContent.sources",
      citations: asked?.sources,
    });
    second.notes.push(`structuredContent.conversation_id: ${asked?.conversation_id}`);
    second.notes.push(
      `content[0].text (what a model reads): ${JSON.stringify(textOf(ask.result).slice(-200))} (its end)`,
    );
    expectCited(second, where, asked?.sources.length ?? 0);

    const follow = await tool("ask", { question: FOLLOW_UP, conversation_id: asked?.conversation_id });
    const next = follow.result.structuredContent as Asked;
    const third = step("Follow-up: ask with the conversation_id", follow.request, {
      text: next?.answer,
      citationsAt: "structuredContent.sources",
      citations: next?.sources,
    });
    third.notes.push(`structuredContent.conversation_id: ${next?.conversation_id}`);
    expectCited(third, where, next?.sources.length ?? 0);
    await expectContinued(third, where, next?.conversation_id);

    // A refusal of a tool call is a result with isError (MCP's way), not a thrown error.
    const bad = await tool("ask", { question: QUESTION, knowledge_base: "no-such-kb" }).catch((e) => ({
      request: "",
      error: e,
    }));
    const fourth = step("Refused: a knowledge base that does not exist", bad.request || "(threw before answering)");
    if ("error" in bad) fourth.error = errorView(bad.error);
    else {
      fourth.error = { class: "CallToolResult", message: textOf(bad.result), code: `isError: ${bad.result.isError}` };
      if (bad.result.isError !== true) findings.push(`${where}: the refused call answered without isError`);
    }
    return {
      title: where,
      about: ABOUT[kind],
      steps: [first, second, third, fourth],
    };
  } finally {
    await client.close();
  }
}
