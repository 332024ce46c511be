/**
 * The stores earlier releases wrote (tests/fixtures/releases/, made by scripts/release-fixture.sh):
 * each a pg_dump of the data only, loaded here statement by statement into a store migrated to
 * that release's schema.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import type { Store } from "../../src/db/client.ts";

const DIR = fileURLToPath(new URL("../fixtures/releases/", import.meta.url));

/** What the release's own answers were before the store was dumped (see the script). */
export interface ReleaseExpectations {
  commit: string;
  /** The secret of the key the release created (a test key). */
  key: string;
  /** GET /v1/conversations: its ids, in its order. */
  conversations: string[];
  /** GET /v1/conversations/:id of the conversation with a follow-up (and feedback, if the release had it). */
  conversation: {
    id: string;
    title: string;
    messages: {
      id: string;
      role: "user" | "assistant";
      content: string;
      sources: string[];
      feedback: { rating: "up" | "down"; comment: string | null } | null;
    }[];
  };
  /** A question the fixture's corpus answers from one page. */
  ask: { question: string; cites: string; title: string };
  /** GET /v1/usage of the key for the day it was used (before that route: the limiter's day count, no turns). */
  usage: { date: string; requests: number; chat_turns: number } | null;
}

/** Every fixture, by the tag of its newest migration. */
export function releaseFixtures(): Record<string, ReleaseExpectations> {
  return JSON.parse(readFileSync(`${DIR}expectations.json`, "utf8"));
}

/**
 * The statements of a dump: comments, psql meta-commands (`\restrict`) and the session settings
 * are left out (pg_dump empties search_path, and the triggers on chunks name their tables
 * unqualified). A `;` ends a statement only outside a quoted string; values span lines.
 */
export function dumpStatements(text: string): string[] {
  const out: string[] = [];
  let current = "";
  let quoted = false;
  for (const line of text.split("\n")) {
    if (!quoted && !current && (line.startsWith("--") || line.startsWith("\\") || !line.trim())) continue;
    if (!quoted && !current && (line.startsWith("SET ") || line.startsWith("SELECT pg_catalog.set_config("))) continue;
    current += current ? `\n${line}` : line;
    for (const ch of line) if (ch === "'") quoted = !quoted;
    if (!quoted && line.trimEnd().endsWith(";")) {
      out.push(current);
      current = "";
    }
  }
  if (current.trim()) throw new Error(`unterminated statement in dump: ${current.slice(0, 80)}`);
  return out;
}

/** Loads the fixture `tag` into `store` (already at that release's schema); the statements run. */
export async function loadReleaseFixture(store: Store, tag: string): Promise<number> {
  const statements = dumpStatements(readFileSync(`${DIR}${tag}.sql`, "utf8"));
  for (const statement of statements) await store.db.execute(sql.raw(statement));
  return statements.length;
}
