/**
 * /mcp for clients of the current revision (2026-07-28: no handshake, no session, each request
 * with its own envelope) through the official v2 client SDK, pinned to that revision and in
 * its `auto` mode (which probes with server/discover). Older clients: mcp.test.ts.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createKey } from "../src/auth/keys-admin.ts";
import { createKnowledgeBase, ingestDocuments } from "../src/knowledge/index.ts";
import { PAGE_SIZE } from "../src/mcp/resources.ts";
import { type Harness, harness, listen } from "./helpers/app.ts";

setDefaultTimeout(30_000);

const MODERN = "2026-07-28";
let h: Harness;
let url: string;
let key: string;

beforeAll(async () => {
  h = await harness();
  url = listen(h.app).url;
  key = await h.key();
}, 120_000);

type Mode = "auto" | { pin: typeof MODERN };

async function connect(secret = key, mode: Mode = { pin: MODERN }): Promise<Client> {
  const client = new Client({ name: "parley-test", version: "2.0.0" }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${secret}` } },
  });
  await client.connect(transport);
  return client;
}

type Text = { type: "text"; text: string }[];

describe("MCP, current revision", () => {
  test("the revision is negotiated without a handshake; instructions say what the knowledge bases hold", async () => {
    for (const mode of [{ pin: MODERN }, "auto"] as const) {
      const client = await connect(key, mode);
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(client.getServerVersion()?.name).toBe("parley");
      const instructions = client.getInstructions() ?? "";
      expect(instructions).toContain("- default (id ");
      expect(instructions).toMatch(/\d+ documents?\)/);
      expect(instructions).toContain("conversation_id");
      await client.close();
    }
  });

  test("search declares its output schema and returns {title, url, snippet, score}", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === "search")!;
    const properties = search.outputSchema?.properties as { results: { items: { required: string[] } } };
    const item = properties.results.items;
    expect(item.required).toEqual(expect.arrayContaining(["title", "url", "snippet", "score"]));
    const ask = tools.find((t) => t.name === "ask")!;
    expect(Object.keys(ask.inputSchema.properties!)).toContain("conversation_id");

    const r = await client.callTool({ name: "search", arguments: { query: "validate a request body", limit: 2 } });
    const { results } = r.structuredContent as { results: { title: string; url: string; snippet: string }[] };
    expect(results[0]).toMatchObject({ title: "Validation", url: "https://wren.example/docs/validation" });
    expect(results[0]!.snippet.length).toBeGreaterThan(0);
    await client.close();
  });

  test("ask returns a conversation id; a follow-up with it continues that conversation", async () => {
    const client = await connect();
    const first = await client.callTool({ name: "ask", arguments: { question: "How do I use cookies in Wren?" } });
    const { conversation_id } = first.structuredContent as { conversation_id: string };
    expect(conversation_id).toStartWith("conv_");
    const next = await client.callTool({ name: "ask", arguments: { question: "How do I sign it?", conversation_id } });
    const answer = next.structuredContent as { conversation_id: string; sources: string[]; answer: string };
    expect(answer.conversation_id).toBe(conversation_id);
    expect(answer.sources[0]).toBe("https://wren.example/docs/cookies");
    expect((await h.call("GET", `/v1/conversations/${conversation_id}`, { key })).json.messages).toHaveLength(4);
    await client.close();
  });

  test("errors speak of knowledge bases: an unknown one is a tool error; a bad cursor is invalid params", async () => {
    const client = await connect();
    const r = await client.callTool({ name: "search", arguments: { query: "x", knowledge_base: "no-such-kb" } });
    expect(r.isError).toBe(true);
    expect((r.content as Text)[0]!.text).toStartWith("not_found:");
    expect((r.content as Text)[0]!.text).toContain("knowledge base");
    expect((r.content as Text)[0]!.text).not.toContain("model");
    const bad = await client.listResources({ cursor: "not-a-cursor" }).catch((e: Error) => e);
    expect(bad).toBeInstanceOf(Error);
    expect(String((bad as Error).message)).toContain("cursor");
    await client.close();
  });

  test("a bad key is refused before anything runs", async () => {
    const error = await connect("prl_not_a_real_key_000000000000000000").catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
  });
});

describe("MCP resources: titled documents, listed page by page", () => {
  test("every document once across the pages, titled, newest first; another key's never", async () => {
    const kb = await createKnowledgeBase(h.store.db, { name: `mcp-pages-${crypto.randomUUID().slice(0, 8)}` });
    const total = PAGE_SIZE + 5;
    const docs = Array.from({ length: total }, (_, i) => ({
      url: `https://pages.example/doc-${i}`,
      title: `Page ${i}`,
      content: `# Page ${i}\nThe ${i}th page of the paging test.`,
    }));
    await ingestDocuments(h.store.db, docs, { kbId: kb.id });
    const { secret } = await createKey(h.store.db, { name: "pages", plan: "pro", knowledgeBaseIds: [kb.id] });
    // An older client walks the pages itself.
    const legacy = new LegacyClient({ name: "parley-test", version: "1.0.0" });
    const headers = { authorization: `Bearer ${secret}` };
    await legacy.connect(new LegacyTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
    const first = await legacy.listResources();
    expect(first.resources).toHaveLength(PAGE_SIZE);
    expect(first.resources[0]!.uri).toBe(`https://pages.example/doc-${total - 1}`);
    expect(first.nextCursor).toBeString();
    const second = await legacy.listResources({ cursor: first.nextCursor });
    expect(second.nextCursor).toBeUndefined();
    const paged = [...first.resources, ...second.resources];
    expect(new Set(paged.map((r) => r.uri)).size).toBe(total);
    expect(paged.every((r) => r.title === `Page ${r.uri.split("-").at(-1)}`)).toBe(true);
    await legacy.close();

    // The current SDK follows the cursors for its caller: the whole list, each document once.
    const client = await connect(secret);
    const all = (await client.listResources()).resources;
    expect(all).toHaveLength(total);
    expect(new Set(all.map((r) => r.uri)).size).toBe(total);

    const read = await client.readResource({ uri: "https://pages.example/doc-7" });
    expect((read.contents[0] as { text: string }).text).toContain("The 7th page");
    // The default key's documents are not this key's.
    const foreign = await client.readResource({ uri: "https://wren.example/docs/validation" }).catch((e) => e);
    expect(foreign).toBeInstanceOf(Error);
    await client.close();
  });
});
