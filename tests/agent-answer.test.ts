/**
 * What the built-in agent quotes from the page that answers, its words read as search reads them:
 * the section that answers even when search ranked other passages of the page higher, a sentence
 * chosen with its section's heading, and the page's usage code (every cited page's: the block
 * using what its prose names in code, with its first block while both fit). Each test builds its
 * own knowledge base.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { retrievalAgent } from "../src/agent/retrieval.ts";
import type { AgentChunk } from "../src/agent/types.ts";
import { createKnowledgeBase, deleteKnowledgeBase } from "../src/knowledge/bases.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import type { KnowledgeDoc } from "../src/knowledge/parse.ts";
import { searchPassages, withWholeBestPage } from "../src/knowledge/retrieve.ts";
import { SAMPLE_DOCS } from "../src/knowledge/sample.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const store = await testStore();
const created: string[] = [];
afterAll(async () => {
  for (const id of created) await deleteKnowledgeBase(store.db, id);
});

async function baseOf(docs: KnowledgeDoc[]): Promise<string> {
  const kb = await createKnowledgeBase(store.db, { name: `answer-${crypto.randomUUID()}` });
  created.push(kb.id);
  await ingestDocuments(store.db, docs, { kbId: kb.id });
  return kb.id;
}

async function ask(kbId: string, message: string) {
  const chunks: AgentChunk[] = [];
  const input = { message, history: [], signal: new AbortController().signal, knowledgeBaseId: kbId };
  for await (const c of retrievalAgent(store.db).respond(input)) chunks.push(c);
  const text = chunks.flatMap((c) => (c.type === "token" ? [c.content] : [])).join("");
  // The sources grow as the answer goes: the last chunk holds them all.
  const last = chunks.findLast((c) => c.type === "sources");
  const sources = last?.type === "sources" ? last.sources : [];
  return { text, sources };
}

const filler = (topic: string) =>
  `## ${topic}\n\nThe ${topic.toLowerCase()} settings are read once at start and apply to every route of the app.\n`;

describe("the built-in agent's answer", () => {
  test("the best page is read whole: every passage, in document order, before the other pages' hits", async () => {
    const sections = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"].map(filler).join("\n");
    const kbId = await baseOf([
      { url: "https://t.example/settings", title: "Settings", content: `Settings of the app.\n\n${sections}` },
      { url: "https://t.example/other", title: "Other", content: "Other settings of the app are elsewhere." },
    ]);
    const hits = await searchPassages(store.db, "alpha settings", [], { kbId });
    expect(hits[0]!.url).toBe("https://t.example/settings");
    expect(hits.filter((h) => h.url === hits[0]!.url).length).toBeLessThan(7);
    const whole = await withWholeBestPage(store.db, hits);
    const page = whole.filter((h) => h.url === "https://t.example/settings");
    expect(page.map((h) => h.heading)).toEqual(["Settings", "Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"]);
    expect(whole.slice(0, page.length)).toEqual(page);
    expect(whole.slice(page.length).every((h) => h.url !== "https://t.example/settings")).toBe(true);
    expect(await withWholeBestPage(store.db, [])).toEqual([]);
  });

  test("a sentence is chosen with its section's heading: the one under 'Change the port number'", async () => {
    const kbId = await baseOf([
      {
        url: "https://t.example/server",
        title: "Server",
        content: [
          "The server listens for requests.",
          "## Logs\n\nEach log line shows the port number of the server.",
          "## Change the port number\n\nExport an object with `listen: 4000` from your entry file.",
        ].join("\n\n"),
      },
    ]);
    const { text, sources } = await ask(kbId, "How do I change the port number?");
    expect(sources).toEqual(["https://t.example/server"]);
    expect(text).toContain("listen: 4000");
  });

  test("sentences are chosen by the words search ranked with: stemmed, stop words weighing nothing", async () => {
    const kbId = await baseOf(SAMPLE_DOCS);
    // "does" is rare among the page's sentences ("…like one that does not exist"), but a stop word.
    const paging = await ask(kbId, "How does pagination work?");
    expect(paging.text).toContain("paginated with an opaque cursor");
    expect(paging.text).not.toContain("does not exist");
    // "revoke" meets "revoke" and "revoked" alike; the command is in the sentence that says how.
    const revoke = await ask(kbId, "How do I revoke a key?");
    expect(revoke.text).toContain("parley keys revoke KEY_ID");
  });

  test("the page's usage code joins a quote that holds no code", async () => {
    const kbId = await baseOf([
      {
        url: "https://t.example/plugins/tracing",
        title: "Tracing plugin",
        content: [
          "Adds request tracing to an app.",
          "Install with:\n\n```sh\nbun add wren-tracing\n```",
          "## sampleRate\n\nThe share of requests traced, from 0 to 1: tracing every request of a busy app costs time.",
        ].join("\n\n"),
      },
    ]);
    const { text } = await ask(kbId, "How can I trace only some of the requests of a busy app?");
    expect(text).toContain("share of requests traced");
    expect(text).toContain("```sh\nbun add wren-tracing\n```");
  });

  test("the usage code joins a quote that has other code, once, after it; never twice", async () => {
    const kbId = await baseOf([
      {
        url: "https://t.example/plugins/cache",
        title: "Cache plugin",
        content: [
          "Install with:\n\n```sh\nbun add wren-cache\n```",
          "## Expiry\n\nSet how long a cached response lives:\n\n```ts\ncache({ expiresIn: 60 })\n```",
        ].join("\n\n"),
      },
    ]);
    const { text } = await ask(kbId, "How long does a cached response live, and how do I set its expiry?");
    expect(text).toContain("expiresIn: 60");
    // The quote's code shares the question's words; the page's install command rarely does.
    expect(text.indexOf("bun add wren-cache")).toBeGreaterThan(text.indexOf("expiresIn: 60"));
    expect(text.split("bun add wren-cache")).toHaveLength(2);
    // Asked about installing, the usage code is the quote's own code: not repeated.
    const install = await ask(kbId, "How do I install the cache plugin?");
    expect(install.text.split("bun add wren-cache")).toHaveLength(2);
  });

  test("the usage is the block using what the prose names in code, with the first block while both fit", async () => {
    // The page opens with the code it replaces, naming nothing the prose names: quotable (under
    // 1,500 characters) but too long to join the usage in one block's room.
    let before = "let field0 = read(0);";
    for (let i = 1; before.length < 1_440; i++) before += `\nlet field${i} = read(${i});`;
    before = `${before}\n//`.padEnd(1_480, "-"); // its block: 1,490 characters with its fences
    const kbId = await baseOf([
      {
        url: "https://t.example/state/stores",
        title: "Sharing state",
        content: [
          "Several screens often need the same values, and passing them down by hand gets tedious.",
          `## The long way\n\nMany apps begin so:\n\n\`\`\`js\n${before}\n\`\`\``,
          "## With a store\n\nCall `useStore` in each view: `useStore` returns one copy of the data, and `useStore` updates it for all.",
          "```js\nconst cart = useStore('cart')\n```",
        ].join("\n\n"),
      },
      {
        url: "https://t.example/state/sync",
        title: "Syncing state",
        content: [
          "Keep two tabs of the same app in agreement about what the visitor chose.",
          "```sh\nbun add wren-sync\n```",
          "Tabs talk over `syncChannel`; `syncChannel` sends each change to the others.",
          "```js\nsyncChannel('prefs').send(prefs)\n```",
        ].join("\n\n"),
      },
    ]);
    const shared = await ask(kbId, "How can several screens share the same values without passing them down?");
    expect(shared.text).toContain("const cart = useStore('cart')");
    expect(shared.text).not.toContain("field0 ="); // the two would not fit in one block's room
    const synced = await ask(kbId, "How do I keep two tabs in agreement about what the visitor chose?");
    expect(synced.text).toContain("syncChannel('prefs').send(prefs)");
    expect(synced.text.indexOf("bun add wren-sync")).toBeLessThan(synced.text.indexOf("syncChannel('prefs')"));
    expect(synced.text.indexOf("bun add wren-sync")).toBeGreaterThan(-1);
  });

  test("another cited page whose quote holds no code brings the first code block of its passage", async () => {
    const kbId = await baseOf([
      {
        url: "https://t.example/uploads",
        title: "Limiting the size of uploads",
        content:
          "To limit the size of uploaded files, set a limit on the upload route.\n\n```ts\napp.post('/up', upload())\n```",
      },
      {
        url: "https://t.example/body-limit",
        title: "Body limit",
        content:
          "```ts\nbodyLimit({ maxSize: 1024 })\n```\n\nThe body limit plugin can limit the size of uploaded files.",
      },
    ]);
    const { text, sources } = await ask(kbId, "How do I limit the size of uploaded files?");
    expect(sources).toEqual(["https://t.example/uploads", "https://t.example/body-limit"]);
    // Its code shares none of the question's words and comes before the quote: the page's usage all the same.
    expect(text).toContain("```ts\nbodyLimit({ maxSize: 1024 })\n```");
    expect(text.split("app.post('/up', upload())")).toHaveLength(2);
  });

  test("the best page's passages that answer at least half as well as its best are quoted, three at most", async () => {
    const ways = ["header", "query string", "form field", "cookie"].map(
      (where, i) =>
        `## Reading the token from a ${where}\n\nThe bearer token can be read from a ${where} with readToken(${i + 1}).\n`,
    );
    const kbId = await baseOf([
      { url: "https://t.example/tokens", title: "Tokens", content: `Tokens of the app.\n\n${ways.join("\n")}` },
    ]);
    const { text } = await ask(kbId, "How do I read the bearer token?");
    const quoted = [1, 2, 3, 4].filter((n) => text.includes(`readToken(${n})`));
    expect(quoted).toHaveLength(3);
  });

  test("asked how much, a best page whose quoted passages hold no number brings its passage that does", async () => {
    // The price's passage shares one common word with the question: the opening and the
    // template, sharing four, answer more than twice as well.
    const content = [
      "SMS reminders cut no-shows: each client gets one reminder message with the visit's date and a cancel link.",
      "## Message template\n\nEdit the reminder message text in settings; the client sees one line.",
      "## Pricing\n\nEach reminder segment is billed at 1.20 UAH from the account balance.",
    ].join("\n\n");
    const kbId = await baseOf([{ url: "https://t.example/sms", title: "SMS reminders", content }]);
    const { text } = await ask(kbId, "How much does one reminder message to a client cost?");
    expect(text).toContain("billed at 1.20 UAH");
    // Asked no quantity, the opening and the template answer; the price stays out.
    const plain = await ask(kbId, "Can a client cancel from the reminder message?");
    expect(plain.text).not.toContain("1.20 UAH");
  });

  test("a page with one passage as good as the best page's is cited only when search ranks its page nearly as high", async () => {
    const cookies = (n: number) =>
      Array.from(
        { length: n },
        (_, i) =>
          `## Signed cookies ${i + 1}\n\nSign a cookie with a secret so that nobody can tamper with it (way ${i + 1}).\n`,
      ).join("\n");
    const other = ["Routing", "Logging", "Static files"].map(filler).join("\n");
    const docs = (n: number): KnowledgeDoc[] => [
      { url: "https://t.example/cookies", title: "Cookies", content: `Cookies of the app.\n\n${cookies(3)}` },
      { url: "https://t.example/guide", title: "Guide", content: `The guide.\n\n${cookies(n)}\n${other}` },
    ];
    // One matching passage against the best page's three: its page scores under 0.6 of the best.
    const side = await ask(await baseOf(docs(1)), "How do I sign a cookie so nobody can tamper with it?");
    expect(side.sources).toEqual(["https://t.example/cookies"]);
    // Two of them: its page scores nearly as high, and it is cited too.
    const near = await ask(await baseOf(docs(2)), "How do I sign a cookie so nobody can tamper with it?");
    expect(near.sources).toEqual(["https://t.example/cookies", "https://t.example/guide"]);
  });
});
