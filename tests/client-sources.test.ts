/** The typed client's `admin.sources` against a real server crawling a site this file serves. */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { createClient } from "../src/client/index.ts";
import { harness, listen } from "./helpers/app.ts";
import { docPage, serveDocsSite } from "./helpers/docs-site.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const site = serveDocsSite({
  "/": docPage("Home", "<p>Sprockets are gears for chains.</p>", ["/sizes"]),
  "/sizes": docPage("Sizes", "<p>Sprockets come in 12, 16 and 20 teeth.</p>"),
});
afterAll(() => site.stop());
const h = await harness({ options: { sources: { allowPrivateNetworks: true, politeness: false } } });
const { url } = listen(h.app);
const parley = createClient({ baseUrl: url, apiKey: await h.admin() });

test("create (camelCase in, sync running), get, list, sync (304s), delete with its documents", async () => {
  const kb = await parley.admin.knowledgeBases.create({ name: `client-sources-${crypto.randomUUID().slice(0, 8)}` });
  const source = await parley.admin.sources.create(kb.id, {
    url: `${site.origin}/`,
    maxPages: 50,
    keepQueryStrings: false,
  });
  expect(source).toMatchObject({
    knowledgeBaseId: kb.id,
    maxPages: 50,
    keepQueryStrings: false,
    lastSync: { status: "running" },
  });
  await h.app.parley.sources.idle();
  const done = await parley.admin.sources.get(kb.id, source.id);
  expect(done.lastSync).toMatchObject({ status: "completed", pages: { created: 2, notModified: 0 } });
  expect((await parley.admin.sources.list(kb.id)).map((s) => s.id)).toEqual([source.id]);
  const sync = await parley.admin.sources.sync(kb.id, source.id);
  expect(sync).toMatchObject({ sourceId: source.id, trigger: "manual" });
  await h.app.parley.sources.idle();
  expect((await parley.admin.sources.get(kb.id, source.id)).lastSync?.pages.notModified).toBe(2);
  const docs = [];
  for await (const d of parley.admin.documents.list(kb.id)) docs.push(d);
  expect(docs.map((d) => d.sourceId)).toEqual([source.id, source.id]);
  await parley.admin.sources.delete(kb.id, source.id);
  expect((await parley.admin.knowledgeBases.get(kb.id)).documentCount).toBe(0);
  expect(await parley.admin.sources.get(kb.id, source.id).catch((e) => e)).toMatchObject({
    status: 404,
    code: "not_found",
  });
});
