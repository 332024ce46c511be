/**
 * What a passage contributes to the full-text index, in one place (ingest calls it, search
 * reads the same text through `searchableText`): its tsvector — the document title as field A,
 * the passage heading as B, the body as C, each cut by the document's language — and its
 * length in words for BM25.
 */
import { type SQL, sql } from "drizzle-orm";
import { LANGUAGE_CONFIGS, type Language, searchableText } from "./language.ts";

export function passageTsv(title: string, heading: string, content: string, language: Language): SQL {
  const cfg = LANGUAGE_CONFIGS[language];
  const field = (text: string, weight: "A" | "B" | "C") =>
    sql`setweight(to_tsvector(${cfg}::regconfig, ${searchableText(text)}), ${sql.raw(`'${weight}'`)})`;
  return sql`${field(title, "A")} || ${field(heading, "B")} || ${field(content, "C")}`;
}

/** Words in a passage: BM25's length (the unit only has to be the same for every passage). */
export const passageLength = (title: string, heading: string, content: string) =>
  searchableText(`${title} ${heading} ${content}`).match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
