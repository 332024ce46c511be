/**
 * A run of the question's content words whose initials the knowledge base holds as a term is
 * searched as that acronym too when a title or heading writes it in capitals ("JSON web tokens"
 * finds the "JWT plugin" page), scoring as a word and weighing nothing in coverage; initials of
 * runs with a stop word, or that no title or heading writes in capitals, are not searched.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { createKnowledgeBase } from "../src/knowledge/bases.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { initialsLines } from "../src/knowledge/initials.ts";
import { queryTerms, rankPassages } from "../src/knowledge/search.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const { db } = await testStore();
const kb = await createKnowledgeBase(db, { name: `initials-${crypto.randomUUID()}` });
await ingestDocuments(
  db,
  [
    {
      url: "https://wren.test/jwt",
      title: "JWT plugin",
      content: "Sign a JWT at login and verify the token on every request.",
    },
    {
      url: "https://wren.test/sessions",
      title: "Sessions",
      content: "Issue a session at login and verify it on every request; web clients keep it in a cookie.",
    },
    {
      url: "https://wren.test/loops",
      title: "Loops",
      content: "## Let every item through\n\nA loop lets each item pass.",
    },
  ],
  { kbId: kb.id },
);
const QUESTION = "How do I issue and verify JSON web tokens?";

test("candidates: runs of three to five cased words within a stretch of text, with their words", () => {
  const lines = initialsLines("Verify JSON web tokens. Server-sent events! 3 ways").split("\n");
  expect(lines).toContain("jwt json web tokens");
  expect(lines).toContain("vjwt verify json web tokens");
  expect(lines).toContain("sse server sent events");
  // A full stop ends a run; a digit is no word of one; two words are too few.
  expect(lines.some((l) => l.startsWith("tss "))).toBe(false);
  expect(lines.some((l) => l.endsWith(" ways"))).toBe(false);
  expect(initialsLines("JSON tokens")).toBe("");
  expect(initialsLines("传递数据 ok")).toBe("");
});

test("the acronym the knowledge base holds is searched: the JWT page comes first, not the one with more of the words", async () => {
  const hits = await rankPassages(db, QUESTION, { kbId: kb.id });
  expect(hits[0]?.url).toBe("https://wren.test/jwt");
  const terms = await queryTerms(db, QUESTION, { kbId: kb.id });
  expect(terms.find((t) => t.term === "jwt")).toEqual({ term: "jwt", from: "message", weight: 0, known: true });
  // Runs holding a stop word ("do i issue" → dii), and initials the knowledge base lacks, are not searched.
  expect(terms.map((t) => t.term).filter((t) => ["hdi", "dii", "iav", "vjw"].includes(t))).toEqual([]);
});

test("initials a title or heading has only as a word ('Let every item…') are not searched", async () => {
  const terms = await queryTerms(db, "Which lifecycle event takes longest?", { kbId: kb.id });
  expect(terms.some((t) => t.term === "let")).toBe(false);
});

test("no run, no acronym: with a comma inside the words, the page holding more of them comes first", async () => {
  const q = "How do I issue and verify JSON, web tokens?";
  expect((await queryTerms(db, q, { kbId: kb.id })).some((t) => t.term === "jwt")).toBe(false);
  expect((await rankPassages(db, q, { kbId: kb.id }))[0]?.url).toBe("https://wren.test/sessions");
});
