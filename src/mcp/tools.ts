/**
 * The MCP server's tools over the knowledge bases, for one authenticated key: `search` (ranked
 * passages, no model), `ask` (the agent's answer with its sources, stored as a conversation like
 * any chat; its conversation_id continues it), `list_knowledge_bases`. Built per request (both
 * protocol eras are stateless here): the key is the caller's, so every tool sees exactly what
 * that key may use.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { ApiKeyInfo } from "../auth/index.ts";
import { type ChatDeps, startReply } from "../chat/index.ts";
import { PARLEY_VERSION } from "../config/version.ts";
import { ApiError } from "../http/errors.ts";
import { defaultKnowledgeBaseFor, resolveKnowledgeBase, searchKnowledgeBase } from "../knowledge/index.ts";
import { type KnowledgeModel, modelsOf } from "../openai-compat/index.ts";
import type { Trace } from "../tracing/index.ts";
import { registerDocuments } from "./resources.ts";

export const SERVER_INFO = { name: "parley", version: PARLEY_VERSION };
const MAX_LIMIT = 20;

/** A tool's failure as MCP reports it: a result with isError, so the model can read why. */
const failure = (error: unknown) => ({
  isError: true,
  content: [
    {
      type: "text" as const,
      text: error instanceof ApiError ? `${error.code}: ${error.message}` : "internal_error: the tool failed.",
    },
  ],
});

const kbJson = (m: KnowledgeModel) => ({ id: m.knowledgeBaseId, name: m.id });

/** A passage as the agent labels it (agent/retrieval.ts): its heading after the title, unless it is the title. */
const label = (r: { title: string; heading: string }) =>
  r.heading && r.heading !== r.title ? `${r.title} — ${r.heading}` : r.title;

/** `instructions`: what the server says about itself (only computed for the messages that carry it). */
export function mcpServer(deps: ChatDeps, key: ApiKeyInfo, trace?: Trace, instructions?: string): McpServer {
  const server = new McpServer(SERVER_INFO, instructions ? { instructions } : undefined);
  /** The knowledge base a tool names (id or name), else the key's default; not_found in the API's words. */
  const knowledgeBase = async (ref?: string) => {
    const id = ref ?? (await defaultKnowledgeBaseFor(deps.db, key));
    if (id === null)
      throw new ApiError("not_found", "This key may use no knowledge base.", { param: "knowledge_base" });
    return { knowledgeBaseId: (await resolveKnowledgeBase(deps.db, key, id, "knowledge_base")).id };
  };

  server.registerTool(
    "search",
    {
      title: "Search the knowledge base",
      description:
        "Ranked passages of the knowledge base for a query (keyword search, no model), each with its document's title and URL, the passage's text (snippet) and its relevance score (higher is better).",
      inputSchema: z.object({
        query: z.string().min(1).max(deps.options.maxMessageChars),
        knowledge_base: z.string().optional().describe("Name or id; the key's default when omitted."),
        limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`1–${MAX_LIMIT}, default 8.`),
      }),
      outputSchema: z.object({
        results: z.array(
          z.object({
            title: z.string(),
            url: z.string(),
            snippet: z.string(),
            score: z.number(),
            heading: z.string().describe("The passage's section heading in its document."),
            document_id: z.string(),
          }),
        ),
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ query, knowledge_base, limit }) => {
      try {
        const kb = await knowledgeBase(knowledge_base);
        const hits = await searchKnowledgeBase(deps.db, kb.knowledgeBaseId, query, limit ?? 8);
        const results = hits.map((h) => ({
          title: h.title,
          url: h.url,
          snippet: h.content,
          score: Math.round(h.score * 1000) / 1000,
          heading: h.heading,
          document_id: h.document_id,
        }));
        const text = results.length
          ? results.map((r, i) => `[${i + 1}] ${label(r)}\n${r.url}\n${r.snippet}`).join("\n\n")
          : "No passage matches this query.";
        return { content: [{ type: "text", text }], structuredContent: { results } };
      } catch (error) {
        return failure(error);
      }
    },
  );

  server.registerTool(
    "ask",
    {
      title: "Ask the knowledge base",
      description:
        "Asks Parley's agent a question; it answers from the knowledge base and cites its sources ([k] is the k-th source). Stored as a conversation: pass its conversation_id to ask a follow-up in it.",
      inputSchema: z.object({
        question: z.string().min(1).max(deps.options.maxMessageChars),
        knowledge_base: z
          .string()
          .optional()
          .describe("Name or id; the key's default when omitted (a continued conversation keeps its own)."),
        conversation_id: z
          .string()
          .optional()
          .describe("A conversation an earlier `ask` returned: the question continues it, with its history."),
      }),
      outputSchema: z.object({
        answer: z.string(),
        sources: z.array(z.string()).describe("The cited documents' URLs: [k] in the answer is sources[k-1]."),
        conversation_id: z.string().describe("Pass it to `ask` again for a follow-up in this conversation."),
      }),
    },
    async ({ question, knowledge_base, conversation_id }) => {
      try {
        // A continued conversation keeps its knowledge base; naming another one is refused by startReply.
        const kb = conversation_id && !knowledge_base ? undefined : await knowledgeBase(knowledge_base);
        const { reply } = await startReply(deps, {
          key,
          knowledgeBaseId: kb?.knowledgeBaseId,
          conversationId: conversation_id,
          message: question,
          field: { param: "question", name: "'question'" },
          stream: false,
          trace,
        });
        const { content, sources, conversationId } = await deps.replies.stream(reply).outcome();
        const listed = sources.length ? `\n\nSources:\n${sources.map((u, i) => `[${i + 1}] ${u}`).join("\n")}` : "";
        return {
          content: [{ type: "text", text: `${content}${listed}` }],
          structuredContent: { answer: content, sources, conversation_id: conversationId },
        };
      } catch (error) {
        return failure(error);
      }
    },
  );

  server.registerTool(
    "list_knowledge_bases",
    {
      title: "List knowledge bases",
      description: "The knowledge bases this API key may search and ask.",
      outputSchema: z.object({ knowledge_bases: z.array(z.object({ id: z.string(), name: z.string() })) }),
      annotations: { readOnlyHint: true },
    },
    async () => {
      const knowledge_bases = (await modelsOf(deps.db, key)).map(kbJson);
      return {
        content: [{ type: "text", text: knowledge_bases.map((k) => `${k.name} (${k.id})`).join("\n") }],
        structuredContent: { knowledge_bases },
      };
    },
  );
  registerDocuments(server, deps.db, key);
  return server;
}
