/** The typed client's `admin` namespace against a real server: knowledge bases, documents, search, keys. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { createClient, ParleyError } from "../src/client/index.ts";
import { harness, listen } from "./helpers/app.ts";

setDefaultTimeout(60_000); // per file: see bunfig.toml

const h = await harness();
const { url } = listen(h.app);
const parley = createClient({ baseUrl: url, apiKey: await h.admin() });
const uniq = () => crypto.randomUUID().slice(0, 8);

describe("client.admin", () => {
  test("a public key: its widget settings go in camelCase and come back under `widget`", async () => {
    const k = await parley.admin.keys.create({
      name: `w-${uniq()}`,
      plan: "pro",
      role: "public",
      allowedOrigins: ["https://docs.c.test"],
      visitorRpm: 4,
      requireProofOfWork: true,
    });
    expect(k.secret).toStartWith("pk_");
    expect(k.widget).toEqual({
      allowedOrigins: ["https://docs.c.test"],
      visitorRpm: 4,
      visitorRpd: 200,
      ipRpm: 30,
      ipRpd: 600,
      requireProofOfWork: true,
      userTokens: false,
    });
    const changed = await parley.admin.keys.update(k.id, { userTokenSecret: "x".repeat(32) });
    expect(changed.widget?.userTokens).toBe(true);
  });

  test("knowledge bases and documents: create, add, upload (ndjson, files), iterate pages, search, delete", async () => {
    const kb = await parley.admin.knowledgeBases.create({ name: `client-${uniq()}` });
    expect(kb).toMatchObject({ documentCount: 0, passageCount: 0 });
    const one = await parley.admin.documents.add(kb.id, {
      url: "https://c.test/one",
      content: "# One\n\nquetzalword",
      metadata: { a_b: 1 },
    });
    expect(one).toMatchObject({ created: true, knowledgeBaseId: kb.id, metadata: { a_b: 1 } });
    expect(
      (await parley.admin.documents.add(kb.id, { url: "https://c.test/one", content: "# One\n\nquetzalword" })).created,
    ).toBe(false);
    const bulk = await parley.admin.documents.upload(
      kb.id,
      Array.from({ length: 5 }, (_, i) => ({ url: `https://c.test/n${i}`, content: `# N${i}\n\ntext ${i}` })),
    );
    expect(bulk).toMatchObject({ created: 5, replaced: 0, failed: 0 });
    const files = await parley.admin.documents.uploadFiles(kb.id, [new File(["# F\n\nfile body"], "f.md")], {
      baseUrl: "https://c.test/files/",
      urlStyle: "html",
    });
    expect(files.results[0]).toMatchObject({ file: "f.md", url: "https://c.test/files/f.html", status: "created" });
    const urls: string[] = [];
    for await (const d of parley.admin.documents.list(kb.id, { limit: 2 })) urls.push(d.url);
    expect(urls.sort()).toEqual([
      "https://c.test/files/f.html",
      "https://c.test/n0",
      "https://c.test/n1",
      "https://c.test/n2",
      "https://c.test/n3",
      "https://c.test/n4",
      "https://c.test/one",
    ]);
    const hits = await parley.admin.knowledgeBases.search(kb.id, { query: "quetzalword" });
    expect(hits.map((x) => x.documentId)).toEqual([one.id]);
    await parley.admin.documents.delete(kb.id, one.id);
    expect(await parley.admin.knowledgeBases.search(kb.id, { query: "quetzalword" })).toEqual([]);
    const names: string[] = [];
    for await (const k of parley.admin.knowledgeBases.list({ limit: 1 })) names.push(k.name);
    expect(names).toContain(kb.name);
    await parley.admin.knowledgeBases.delete(kb.id);
    const gone = await parley.admin.knowledgeBases.get(kb.id).catch((e) => e);
    expect(gone).toBeInstanceOf(ParleyError);
    expect(gone).toMatchObject({ status: 404, code: "not_found" });
  });

  test("keys: create (secret once), iterate, update, revoke; a chat key is refused admin calls", async () => {
    const k = await parley.admin.keys.create({ name: `c-${uniq()}`, plan: "pro", rpm: 30 });
    expect(k.secret).toMatch(/^prl_/);
    expect(k).toMatchObject({ role: "chat", rpm: 30, knowledgeBaseIds: expect.any(Array) });
    const ids: string[] = [];
    for await (const x of parley.admin.keys.list({ limit: 3 })) ids.push(x.id);
    expect(ids).toContain(k.id);
    expect(await parley.admin.keys.update(k.id, { rpm: null, name: "renamed" })).toMatchObject({
      rpm: null,
      name: "renamed",
    });
    const chat = createClient({ baseUrl: url, apiKey: k.secret, maxRetries: 0 });
    expect(await chat.admin.keys.get(k.id).catch((e) => e)).toMatchObject({ status: 403, code: "permission_denied" });
    expect((await parley.admin.keys.revoke(k.id)).revokedAt).toEqual(expect.any(String));
  });
});
