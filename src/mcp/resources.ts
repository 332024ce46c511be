/**
 * Each document of the knowledge bases the key may use as an MCP resource, named by its URL and
 * titled by its title. `resources/list` pages through them with opaque cursors (the most
 * recently updated first, PAGE_SIZE a page, keyset on (updated_at, id) so a page never repeats
 * or skips a document that did not change); `resources/read` returns one's text. Registered on
 * the SDK's low-level server: McpServer's own listing neither reads a cursor nor returns one.
 */
import { type McpServer, ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from "@modelcontextprotocol/server";
import { and, desc, eq, inArray, lt, or } from "drizzle-orm";
import type { ApiKeyInfo } from "../auth/index.ts";
import type { Db } from "../db/client.ts";
import { documents } from "../db/schema.ts";
import { knowledgeBasesOf } from "../knowledge/index.ts";

export const PAGE_SIZE = 100;
const MIME = "text/markdown";
/** Every document URL: the template clients may use to read one they were given elsewhere. */
const TEMPLATE = { uriTemplate: "{+url}", name: "document", title: "Knowledge base document", mimeType: MIME };

interface Cursor {
  updatedAt: Date;
  id: string;
}

const encode = (c: Cursor) =>
  btoa(JSON.stringify([c.updatedAt.toISOString(), c.id]))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");

function decode(cursor: string): Cursor {
  try {
    const [at, id] = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/"))) as unknown[];
    const updatedAt = new Date(String(at));
    if (typeof at === "string" && typeof id === "string" && !Number.isNaN(updatedAt.getTime()))
      return { updatedAt, id };
  } catch {}
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid cursor: pass a nextCursor this server returned.");
}

/** The documents of the knowledge bases `key` may use; nobody else's. */
export function registerDocuments(server: McpServer, db: Db, key: ApiKeyInfo): void {
  const kbIds = async () => (await knowledgeBasesOf(db, key)).map((kb) => kb.id);
  const low = server.server;
  low.registerCapabilities({ resources: {} });

  low.setRequestHandler("resources/list", async (request) => {
    const cursor = request.params?.cursor;
    const after = cursor === undefined ? undefined : decode(cursor);
    const rows = await db
      .select({ id: documents.id, url: documents.url, title: documents.title, updatedAt: documents.updatedAt })
      .from(documents)
      .where(
        and(
          inArray(documents.kbId, await kbIds()),
          after &&
            or(
              lt(documents.updatedAt, after.updatedAt),
              and(eq(documents.updatedAt, after.updatedAt), lt(documents.id, after.id)),
            ),
        ),
      )
      .orderBy(desc(documents.updatedAt), desc(documents.id))
      .limit(PAGE_SIZE + 1);
    const page = rows.slice(0, PAGE_SIZE);
    const last = page.at(-1);
    return {
      resources: page.map((d) => ({ uri: d.url, name: d.title || d.url, title: d.title || d.url, mimeType: MIME })),
      ...(rows.length > PAGE_SIZE && last ? { nextCursor: encode(last) } : {}),
    };
  });

  low.setRequestHandler("resources/templates/list", async () => ({ resourceTemplates: [TEMPLATE] }));

  low.setRequestHandler("resources/read", async (request) => {
    const uri = request.params.uri;
    const [doc] = await db
      .select({ content: documents.content })
      .from(documents)
      .where(and(eq(documents.url, uri), inArray(documents.kbId, await kbIds())))
      .limit(1);
    // Unknown and foreign read alike: a key learns nothing of documents it may not use.
    if (!doc) throw new ResourceNotFoundError(uri.slice(0, 200));
    return { contents: [{ uri, mimeType: MIME, text: doc.content }] };
  });
}
