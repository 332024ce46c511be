/**
 * POST …/search shows its effective query: each term, where it came from (the query, or the
 * conversation it continues with `conversation_id`) and its weight; a conversation is read only
 * by its own key, or by an admin key.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { QueryTerm } from "../src/contract/knowledge.ts";
import { DEFAULT_KB_ID } from "../src/knowledge/index.ts";
import { expectError, expectStatus, harness } from "./helpers/app.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const h = await harness();
const admin = await h.admin();
const alice = await h.key();
const bob = await h.key();

const search = (key: string, query: string, conversation_id?: string) =>
  h.call("POST", `/v1/knowledge_bases/${DEFAULT_KB_ID}/search`, { key, json: { query, conversation_id } });

async function conversationOf(key: string, message: string): Promise<string> {
  const r = await h.call("POST", "/v1/chat", { key, json: { message } });
  expectStatus(r, 200);
  return r.json.conversation_id;
}

const byTerm = (terms: QueryTerm[]) => new Map(terms.map((t) => [t.term, t]));

describe("the effective query", () => {
  test("alone: every term from the message, with its weight; a word the knowledge base lacks is unknown", async () => {
    const r = await search(alice, "How do I sign cookies with a zqxwvunknownword?");
    expectStatus(r, 200);
    const terms = byTerm(r.json.query.terms);
    expect(terms.get("cooki")).toMatchObject({ from: "message", known: true });
    expect(terms.get("cooki")!.weight).toBeGreaterThan(0);
    expect(terms.get("zqxwvunknownword")).toMatchObject({ from: "message", known: false });
    expect(r.json.query.terms.every((t) => t.from === "message")).toBe(true);
  });

  test("with conversation_id: the conversation's latest question joins as history, weighted below the message", async () => {
    const conversation = await conversationOf(alice, "How do I use cookies in Wren?");
    const alone = await search(alice, "How do I sign it?");
    const r = await search(alice, "How do I sign it?", conversation);
    expectStatus(r, 200);
    const terms = byTerm(r.json.query.terms);
    expect(terms.get("sign")).toMatchObject({ from: "message" });
    expect(terms.get("cooki")).toMatchObject({ from: "history", known: true });
    // The history's weight is a fraction of what the same term weighs in a message.
    const asMessage = byTerm((await search(alice, "cookies")).json.query.terms).get("cooki")!;
    expect(terms.get("cooki")!.weight).toBeLessThan(asMessage.weight);
    expect(r.json.data[0]?.url).toBe("https://wren.example/docs/cookies");
    expect(alone.json.query.terms.some((t) => t.from === "history")).toBe(false);
  });

  test("another key's conversation is not found for a chat key; an admin key may explain it", async () => {
    const conversation = await conversationOf(alice, "How do I use cookies in Wren?");
    expectError(await search(bob, "How do I sign it?", conversation), 404, "not_found");
    const r = await search(admin, "How do I sign it?", conversation);
    expectStatus(r, 200);
    expect(r.json.query.terms.some((t) => t.from === "history")).toBe(true);
  });

  test("a conversation id that is no id, or names none: 404 naming conversation_id", async () => {
    for (const id of ["nope", "conv_01jd5x8r7mf6sb1b2k3n4p5q6r"]) {
      const r = await search(alice, "cookies", id);
      expectError(r, 404, "not_found");
      expect(r.json.error.param).toBe("conversation_id");
    }
  });
});
