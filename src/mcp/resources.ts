/**
 * Each document of the knowledge bases the key may use as an MCP resource, named by its URL: `resources/list`
 * lists them (the most recently updated first, up to LIST_MAX), `resources/read` returns one's
 * text. One template (`{+url}`) matches any document URL, so no per-document registration.
 */
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { and, desc, eq, inArray } from "drizzle-orm";
import type { ApiKeyInfo } from "../auth/index.ts";
import type { Db } from "../db/client.ts";
import { documents } from "../db/schema.ts";
import { knowledgeBasesOf } from "../knowledge/index.ts";

const LIST_MAX = 1_000;
const MIME = "text/markdown";

/** The documents of the knowledge bases `key` may use; nobody else's. */
export function registerDocuments(server: McpServer, db: Db, key: ApiKeyInfo): void {
  const kbIds = async () => (await knowledgeBasesOf(db, key)).map((kb) => kb.id);
  server.registerResource(
    "document",
    new ResourceTemplate("{+url}", {
      list: async () => ({
        resources: (
          await db
            .select({ url: documents.url, title: documents.title })
            .from(documents)
            .where(inArray(documents.kbId, await kbIds()))
            .orderBy(desc(documents.updatedAt))
            .limit(LIST_MAX)
        ).map((d) => ({ uri: d.url, name: d.title, title: d.title, mimeType: MIME })),
      }),
    }),
    { title: "Knowledge base documents", description: "A document's text, by its URL.", mimeType: MIME },
    async (uri) => {
      const [doc] = await db
        .select({ title: documents.title, content: documents.content })
        .from(documents)
        .where(and(eq(documents.url, uri.href), inArray(documents.kbId, await kbIds())))
        .limit(1);
      if (!doc) throw new McpError(ErrorCode.InvalidParams, `No document ${uri.href.slice(0, 200)}`);
      return { contents: [{ uri: uri.href, mimeType: MIME, text: doc.content }] };
    },
  );
}
