/** GET /v1/knowledge_bases/:id/documents/:doc_id/passages: a document's passages, in order, for admin keys. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Document, KnowledgeBase } from "../src/contract/index.ts";
import { expectError, expectStatus, harness } from "./helpers/app.ts";

setDefaultTimeout(60_000);

const h = await harness();
const admin = await h.admin();

async function knowledgeBaseWithDocument() {
  const kb = await h.call<KnowledgeBase>("POST", "/v1/knowledge_bases", {
    key: admin,
    json: { name: `passages ${crypto.randomUUID()}`, description: "cut into passages", language: "english" },
  });
  expectStatus(kb, 201);
  const content = [
    "# Leave policy",
    "",
    "Staff get thirty days of paid leave a year.",
    "",
    "## Carry-over",
    "",
    "Up to five unused days carry over into the next year.",
    "",
    "## Sick leave",
    "",
    "Sick days are not taken from paid leave.",
  ].join("\n");
  const doc = await h.call<Document>("POST", `/v1/knowledge_bases/${kb.json.id}/documents`, {
    key: admin,
    json: { url: "https://handbook.example.com/leave", content },
  });
  expectStatus(doc, 201);
  return { kb: kb.json, doc: doc.json };
}

describe("a document's passages", () => {
  test("every passage in document order, with its heading, joining up to the document's text", async () => {
    const { kb, doc } = await knowledgeBaseWithDocument();
    const r = await h.call("GET", `/v1/knowledge_bases/${kb.id}/documents/${doc.id}/passages`, { key: admin });
    expectStatus(r, 200);
    expect(r.json.document_id).toBe(doc.id);
    expect(r.json.data.length).toBe(doc.passage_count);
    expect(r.json.data.map((p) => p.position)).toEqual(r.json.data.map((_, i) => i));
    const text = r.json.data.map((p) => p.content).join(" ");
    for (const words of ["thirty days of paid leave", "five unused days", "Sick days are not taken"])
      expect(text).toContain(words);
    expect(r.json.data.map((p) => p.heading)).toEqual(expect.arrayContaining(["Carry-over", "Sick leave"]));
    expect(Object.keys(r.json.data[0]!).sort()).toEqual(["content", "heading", "id", "position"]);
  });

  test("chat keys are refused; another knowledge base's document and unknown ids are 404 naming the parameter", async () => {
    const { kb, doc } = await knowledgeBaseWithDocument();
    const other = await knowledgeBaseWithDocument();
    const path = (k: string, d: string) => `/v1/knowledge_bases/${k}/documents/${d}/passages`;
    expectError(await h.call("GET", path(kb.id, doc.id), { key: await h.key() }), 403, "permission_denied");
    const foreign = await h.call("GET", path(kb.id, other.doc.id), { key: admin });
    expectError(foreign, 404, "not_found");
    expect(foreign.json.error.param).toBe("doc_id");
    const noKb = await h.call("GET", path("kb_01jd5x8r7mf6sb1b2k3n4p5q6r", doc.id), { key: admin });
    expectError(noKb, 404, "not_found");
    expect(noKb.json.error.param).toBe("id");
    expectError(await h.call("GET", path(kb.id, "nope"), { key: admin }), 404, "not_found");
    await h.call("DELETE", `/v1/knowledge_bases/${kb.id}/documents/${doc.id}`, { key: admin });
    expectError(await h.call("GET", path(kb.id, doc.id), { key: admin }), 404, "not_found");
  });
});
