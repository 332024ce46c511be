/**
 * The server's `instructions`: what an agent connecting to /mcp should know before it calls
 * anything — which knowledge bases this key may use, what each holds (its description and how
 * many documents), and how the tools fit together. Only `initialize` (2025 revisions) and
 * `server/discover` (2026-07-28) carry instructions, so only those pay for the queries.
 */
import { count, inArray } from "drizzle-orm";
import type { ApiKeyInfo } from "../auth/index.ts";
import type { Db } from "../db/client.ts";
import { documents } from "../db/schema.ts";
import { knowledgeBasesOf } from "../knowledge/index.ts";

const CARRY_INSTRUCTIONS = new Set(["initialize", "server/discover"]);
/** Past this many, the list would crowd the agent's context: `list_knowledge_bases` has them all. */
const LISTED_MAX = 20;
const DESCRIPTION_MAX = 300;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Whether a POST body holds a message whose answer carries the instructions. */
export function carriesInstructions(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (m) => m && typeof m === "object" && CARRY_INSTRUCTIONS.has((m as { method?: unknown }).method as string),
  );
}

export async function instructionsFor(db: Db, key: ApiKeyInfo): Promise<string> {
  const kbs = await knowledgeBasesOf(db, key);
  const counts = kbs.length
    ? await db
        .select({ kbId: documents.kbId, n: count() })
        .from(documents)
        .where(
          inArray(
            documents.kbId,
            kbs.map((kb) => kb.id),
          ),
        )
        .groupBy(documents.kbId)
    : [];
  const docs = new Map(counts.map((c) => [c.kbId, c.n]));
  const listed = kbs.slice(0, LISTED_MAX).map((kb) => {
    const n = docs.get(kb.id) ?? 0;
    const about = kb.description.trim() ? `: ${clip(kb.description.trim().replace(/\s+/g, " "), DESCRIPTION_MAX)}` : "";
    return `- ${kb.name} (id ${kb.id}, ${n} document${n === 1 ? "" : "s"})${about}`;
  });
  const more = kbs.length > LISTED_MAX ? [`- … and ${kbs.length - LISTED_MAX} more (list_knowledge_bases)`] : [];
  const holdings = kbs.length
    ? ["The knowledge bases this API key may use:", ...listed, ...more].join("\n")
    : "This API key may use no knowledge base yet: the tools will find nothing.";
  return [
    "Parley answers questions from documentation knowledge bases and cites its sources.",
    holdings,
    [
      "Tools: `search` returns ranked passages (title, url, snippet, score) without a model — use it to",
      "find where something is documented. `ask` returns the agent's answer with numbered citations",
      "([k] is sources[k-1]) and a conversation_id: pass that id to `ask` again to follow up in the same",
      "conversation. Both take `knowledge_base` (name or id); without it they use the key's default.",
      "Each document is also a resource named by its URL (resources/list, resources/read).",
      "Cite the URLs you were given when you pass answers on.",
    ].join(" "),
  ].join("\n\n");
}
