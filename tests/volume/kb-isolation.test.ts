/**
 * Knowledge-base isolation as a model-based property (fast-check): two tenants, each a knowledge
 * base and a chat key scoped to it, under random sequences of uploads, replacements, deletions,
 * searches, chats and reads — over HTTP, on whichever store the run uses (PGlite, or PostgreSQL
 * with DATABASE_URL). After every step: no key reads, searches or is cited the other tenant's
 * documents, and each tenant sees exactly its own live documents (the model).
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import type { DocumentList, SearchResults } from "../../src/contract/index.ts";
import { harness, type Reply } from "../helpers/app.ts";
import { onPostgres } from "../helpers/store.ts";

setDefaultTimeout(600_000); // per file: see bunfig.toml

const h = await harness();
const admin = await h.admin();
/** Shared vocabulary: both tenants use the same words, so only the scoping can keep them apart. */
const WORDS = ["quokka", "marmot", "ibex", "tapir", "okapi"];
const RUNS = 40;

interface Tenant {
  kb: string;
  key: string;
  /** The model: URL → the word its document is about, for the tenant's live documents. */
  docs: Map<string, string>;
  ids: Map<string, string>;
}
type Real = { tenants: [Tenant, Tenant]; prefix: string };
type Model = { docs: [Map<string, string>, Map<string, string>] };

const ok = <T>(r: Reply<T>, ...status: number[]) => {
  if (!status.includes(r.status)) throw new Error(`unexpected ${r.status}: ${r.text}`);
  return r;
};
const urlsOf = (r: Reply<DocumentList | SearchResults>): string[] => ok(r, 200).json.data.map((d) => d.url);
const other = (t: 0 | 1) => (1 - t) as 0 | 1;

/** Every URL a tenant must never see: the other tenant's namespace. */
function checkOwn(real: Real, t: 0 | 1, urls: string[]) {
  const foreign = `${real.prefix}/t${other(t)}/`;
  for (const u of urls) expect(u.startsWith(foreign), `tenant ${t} saw ${u}`).toBe(false);
}

class Upload implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly t: 0 | 1,
    readonly n: number,
    readonly word: string,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const tenant = r.tenants[this.t];
    const url = `${r.prefix}/t${this.t}/doc${this.n}`;
    const res = ok(
      await h.call("POST", `/v1/knowledge_bases/${tenant.kb}/documents`, {
        key: admin,
        json: { url, content: `# ${this.word} notes\n\nAll about the ${this.word}: where the ${this.word} lives.` },
      }),
      200,
      201,
    );
    expect(res.status).toBe(m.docs[this.t].has(url) ? 200 : 201);
    m.docs[this.t].set(url, this.word);
    tenant.ids.set(url, res.json.id);
  }
  toString = () => `upload(t${this.t}, doc${this.n}, ${this.word})`;
}

class Delete implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly t: 0 | 1,
    readonly n: number,
  ) {}
  check = (m: Readonly<Model>) => m.docs[this.t].size > 0;
  async run(m: Model, r: Real) {
    const tenant = r.tenants[this.t];
    const urls = [...m.docs[this.t].keys()];
    const url = urls[this.n % urls.length]!;
    // Through the other tenant's knowledge base: the document is not there (404), and stays.
    const id = tenant.ids.get(url)!;
    ok(
      await h.call("DELETE", `/v1/knowledge_bases/${r.tenants[other(this.t)].kb}/documents/${id}`, { key: admin }),
      404,
    );
    ok(await h.call("DELETE", `/v1/knowledge_bases/${tenant.kb}/documents/${id}`, { key: admin }), 204);
    m.docs[this.t].delete(url);
  }
  toString = () => `delete(t${this.t}, #${this.n})`;
}

class Search implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly t: 0 | 1,
    readonly word: string,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const me = r.tenants[this.t];
    const mine = urlsOf(
      await h.call("POST", `/v1/knowledge_bases/${me.kb}/search`, {
        key: me.key,
        json: { query: this.word, limit: 50 },
      }),
    );
    checkOwn(r, this.t, mine);
    // Exactly the live documents about that word (each is the only page holding it fully).
    const expected = [...m.docs[this.t]].filter(([, w]) => w === this.word).map(([u]) => u);
    expect(new Set(mine)).toEqual(new Set(expected));
    // The other tenant's knowledge base is not this key's: 404, like an unknown id.
    ok(
      await h.call("POST", `/v1/knowledge_bases/${r.tenants[other(this.t)].kb}/search`, {
        key: me.key,
        json: { query: this.word },
      }),
      404,
    );
  }
  toString = () => `search(t${this.t}, ${this.word})`;
}

class Chat implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly t: 0 | 1,
    readonly word: string,
    readonly foreign: boolean,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const me = r.tenants[this.t];
    const json = {
      message: `Where does the ${this.word} live?`,
      ...(this.foreign ? { knowledge_base_id: r.tenants[other(this.t)].kb } : {}),
    };
    const res = await h.call("POST", "/v1/chat", { key: me.key, json });
    if (this.foreign) {
      ok(res, 404);
      return;
    }
    ok(res, 200);
    const conv = ok(await h.call("GET", `/v1/conversations/${res.json.conversation_id}`, { key: me.key }), 200);
    const sources = conv.json.messages.at(-1)?.sources ?? [];
    checkOwn(r, this.t, sources);
    for (const s of sources) expect(m.docs[this.t].has(s), `cited ${s}, not live`).toBe(true);
  }
  toString = () => `chat(t${this.t}, ${this.word}${this.foreign ? ", other kb" : ""})`;
}

class List implements fc.AsyncCommand<Model, Real> {
  constructor(readonly t: 0 | 1) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const listed = urlsOf(
      await h.call("GET", `/v1/knowledge_bases/${r.tenants[this.t].kb}/documents?limit=100`, { key: admin }),
    );
    expect(new Set(listed)).toEqual(new Set(m.docs[this.t].keys()));
  }
  toString = () => `list(t${this.t})`;
}

const tenant = fc.constantFrom<0 | 1>(0, 1);
const word = fc.constantFrom(...WORDS);
const commands = fc.commands(
  [
    fc.tuple(tenant, fc.nat(5), word).map(([t, n, w]) => new Upload(t, n, w)),
    fc.tuple(tenant, fc.nat(20)).map(([t, n]) => new Delete(t, n)),
    fc.tuple(tenant, word).map(([t, w]) => new Search(t, w)),
    fc.tuple(tenant, word, fc.boolean()).map(([t, w, f]) => new Chat(t, w, f)),
    tenant.map((t) => new List(t)),
  ],
  { maxCommands: 25 },
);

async function setup(): Promise<Real> {
  const id = crypto.randomUUID().slice(0, 8);
  const make = async (i: number): Promise<Tenant> => {
    const kb = ok(await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name: `iso-${id}-${i}` } }), 201)
      .json.id;
    const key = ok(
      await h.call("POST", "/v1/keys", {
        key: admin,
        json: { name: `iso-${i}`, plan: "enterprise", rpm: 1_000_000, rpd: 10_000_000, knowledge_base_ids: [kb] },
      }),
      201,
    ).json.secret;
    return { kb, key, docs: new Map(), ids: new Map() };
  };
  return { tenants: [await make(0), await make(1)], prefix: `https://iso-${id}.test` };
}

describe(`knowledge-base isolation (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  test(`no key reads, searches or is cited another tenant's documents: ${RUNS} runs of up to 25 steps`, async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        runs++;
        const real = await setup();
        try {
          await fc.asyncModelRun(() => ({ model: { docs: [new Map(), new Map()] as Model["docs"] }, real }), cmds);
        } finally {
          for (const t of real.tenants) ok(await h.call("DELETE", `/v1/knowledge_bases/${t.kb}`, { key: admin }), 204);
        }
      }),
      { numRuns: RUNS, verbose: true },
    );
    console.log(`isolation property: ${runs} runs passed on ${onPostgres ? "PostgreSQL" : "PGlite"}`);
    expect(runs).toBe(RUNS);
  });
});
