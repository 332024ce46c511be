/**
 * The MCP SDK's client (`@modelcontextprotocol/sdk`: Client + StreamableHTTPClientTransport) on
 * /mcp: `search`, `ask`, `ask` again with the returned conversation_id, and a refused call.
 * Its own file: the MCP server is moving to a new SDK revision, and this client with it.
 */
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

export async function mcp(): Promise<Transcript> {
  const where = "MCP SDK client";
  const client = new Client({ name: "parley-transcripts", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${ctx.served.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${ctx.served.key}` } },
    }),
  );
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
      title: "MCP SDK client",
      about:
        '`new Client(…)` connected with `new StreamableHTTPClientTransport(new URL("http://127.0.0.1:PORT/mcp"), { requestInit: { headers: { Authorization: "Bearer prl_…" } } })`.',
      steps: [first, second, third, fourth],
    };
  } finally {
    await client.close();
  }
}
