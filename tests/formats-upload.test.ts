/**
 * PDF and OpenAPI files through the doors users take: a multipart upload (each file's results,
 * the stored text searchable) and the CLI's `ingest` (a file named or found in a folder).
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ingestCommand } from "../src/runtime/cli/ingest.ts";
import { bufferIo } from "../src/runtime/cli/io.ts";
import { expectStatus, harness } from "./helpers/app.ts";

setDefaultTimeout(60_000); // per file: see bunfig.toml

const h = await harness();
const admin = await h.admin();
const FIXTURES = join(import.meta.dir, "fixtures/formats");
const fixture = (name: string) => new File([readFileSync(join(FIXTURES, name))], name);

async function newKb() {
  const r = await h.call("POST", "/v1/knowledge_bases", {
    key: admin,
    json: { name: `formats-${crypto.randomUUID().slice(0, 8)}` },
  });
  expectStatus(r, 201);
  return { id: r.json.id as string, name: r.json.name as string };
}

const search = (kb: string, query: string) =>
  h.call("POST", `/v1/knowledge_bases/${kb}/search`, { key: admin, json: { query } });

describe("multipart upload", () => {
  test("a PDF becomes a searchable document at base_url + its name, headed by its outline", async () => {
    const kb = await newKb();
    const form = new FormData();
    form.append("files", fixture("guide.pdf"), "manuals/guide.pdf");
    form.append("files", fixture("broken.pdf"));
    form.append("files", fixture("locked.pdf"));
    form.append("base_url", "https://docs.test/");
    const r = await h.call("POST", `/v1/knowledge_bases/${kb.id}/documents`, { key: admin, body: form });
    expectStatus(r, 200);
    expect(r.json).toMatchObject({ created: 1, failed: 2 });
    const [guide, broken, locked] = r.json.results;
    expect(guide).toMatchObject({ file: "manuals/guide.pdf", url: "https://docs.test/manuals/guide.pdf" });
    expect(broken?.error).toMatchObject({ code: "invalid_request", param: "content" });
    expect(broken?.error?.message).toContain("damaged or truncated");
    expect(locked?.error?.message).toContain("encrypted with a password");

    const doc = await h.call("GET", `/v1/knowledge_bases/${kb.id}/documents/${guide!.id}`, { key: admin });
    expect(doc.json.title).toBe("Wombat Field Guide");
    expect(doc.json.content).toContain("## Burrows\n\nA wombat digs its burrow");
    const hits = await search(kb.id, "burrow claws");
    expectStatus(hits, 200);
    expect(hits.json.data[0]).toMatchObject({ url: "https://docs.test/manuals/guide.pdf", heading: "Burrows" });
  });

  test("an OpenAPI spec becomes one document per operation; other .json/.yaml files are refused", async () => {
    const kb = await newKb();
    const form = new FormData();
    form.append("files", fixture("petstore.yaml"), "api/petstore.yaml");
    form.append("files", new File(['{"name": "app"}'], "package.json"));
    form.append("files", fixture("guide.pdf"), "guide.pdf");
    const r = await h.call("POST", `/v1/knowledge_bases/${kb.id}/documents`, { key: admin, body: form });
    expectStatus(r, 200);
    // No base_url: a spec or a PDF has no front matter to name its address.
    expect(r.json).toMatchObject({ created: 0, failed: 3 });
    expect(r.json.results[0]?.error).toMatchObject({ code: "invalid_request", param: "base_url" });
    expect(r.json.results[1]?.error).toMatchObject({ code: "unsupported_media_type" });

    form.append("base_url", "https://docs.test/");
    const again = await h.call("POST", `/v1/knowledge_bases/${kb.id}/documents`, { key: admin, body: form });
    expect(again.json).toMatchObject({ created: 7, failed: 1 });
    const urls = again.json.results.filter((i) => i.file === "api/petstore.yaml").map((i) => i.url);
    expect(urls).toEqual([
      "https://docs.test/api/petstore.yaml",
      "https://docs.test/api/petstore.yaml#operation/listPets",
      "https://docs.test/api/petstore.yaml#operation/createPet",
      "https://docs.test/api/petstore.yaml#get-pets-petid",
      "https://docs.test/api/petstore.yaml#operation/deletePet",
      "https://docs.test/api/petstore.yaml#operation/getLoop",
    ]);
    const hits = await search(kb.id, "pet id not found 404");
    expect(hits.json.data.map((d: { url: string }) => d.url)).toContain(
      "https://docs.test/api/petstore.yaml#get-pets-petid",
    );
  });
});

describe("CLI ingest", () => {
  test("PDFs and specs named or in a folder; a folder's other .json/.yaml files are passed over", async () => {
    const kb = await newKb();
    const dir = mkdtempSync(join(tmpdir(), "parley-formats-"));
    try {
      mkdirSync(join(dir, "docs/api"), { recursive: true });
      copyFileSync(join(FIXTURES, "plain.pdf"), join(dir, "docs/notes.pdf"));
      copyFileSync(join(FIXTURES, "swagger.json"), join(dir, "docs/api/orders.json"));
      writeFileSync(join(dir, "docs/config.yaml"), "name: site\n");
      const io = bufferIo();
      const args = ["--kb", kb.name, "--base-url", "https://cli.test/"];
      expect(await ingestCommand(h.store, [...args, join(dir, "docs")], io)).toBe(0);
      expect(io.stderr).toEqual([]);
      expect(io.stdout).toEqual(["ingested 4 document(s)"]);
      const named = bufferIo();
      expect(await ingestCommand(h.store, [...args, join(dir, "docs/config.yaml")], named)).toBe(1);
      expect(named.stderr.join("\n")).toContain("config.yaml: not an OpenAPI");
      const hits = await search(kb.id, "platypus importer");
      expect(hits.json.data[0]).toMatchObject({ url: "https://cli.test/notes.pdf", heading: "Page 2" });
      const order = await search(kb.id, "ship date order");
      expect(order.json.data.map((d: { url: string }) => d.url)).toContain(
        "https://cli.test/api/orders.json#operation/placeOrder",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
