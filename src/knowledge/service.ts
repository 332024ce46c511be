/** Storing documents (replace by URL) and their passages; search lives in search.ts. */
import { count, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { chunks, documents } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { splitIntoPassages } from "./chunk.ts";
import type { KnowledgeDoc } from "./parse.ts";

/** How `ingestDocuments` stamps documents and what it does with one that fails to store. */
export interface IngestOptions {
  now?: Date;
  /** Called for a document the database refused; the rest still load. Without it the error is thrown. */
  onError?: (doc: KnowledgeDoc, error: unknown) => void;
}

/** Stores documents, returning how many were stored; a URL already present is replaced (its passages too). */
export async function ingestDocuments(db: Db, docs: KnowledgeDoc[], { now = new Date(), onError }: IngestOptions = {}): Promise<number> {
  let stored = 0;
  for (const doc of docs) {
    try {
      await storeDocument(db, doc, now);
      stored++;
    } catch (error) {
      if (!onError) throw error;
      onError(doc, error);
    }
  }
  return stored;
}

async function storeDocument(db: Db, doc: KnowledgeDoc, now: Date): Promise<void> {
  const passages = splitIntoPassages(doc.title, doc.content);
  // One short transaction per document: never spans anything but these statements.
  await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(documents)
      .values({ id: newId("doc"), url: doc.url, title: doc.title, content: doc.content, updatedAt: now })
      .onConflictDoUpdate({
        target: documents.url,
        set: { title: doc.title, content: doc.content, updatedAt: now },
      })
      .returning({ id: documents.id });
    await tx.delete(chunks).where(eq(chunks.documentId, row!.id));
    if (passages.length) {
      await tx.insert(chunks).values(
        passages.map((p, ord) => {
          // The title is every passage's field A; a heading that only repeats it adds nothing.
          const heading = p.heading === doc.title ? "" : p.heading;
          return {
            id: newId("chunk"),
            documentId: row!.id,
            ord,
            heading: p.heading,
            content: p.content,
            tsv: sql`setweight(to_tsvector('english', ${doc.title}), 'A') || setweight(to_tsvector('english', ${heading}), 'B') || setweight(to_tsvector('english', ${p.content}), 'C')`,
            len: wordCount(`${doc.title} ${heading} ${p.content}`),
          };
        }),
      );
    }
  });
}

/** Words in a text: BM25's passage length (the unit only has to be the same for every passage). */
export const wordCount = (text: string) => text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;

export async function countDocuments(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(documents);
  return row?.n ?? 0;
}
