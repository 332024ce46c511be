/**
 * `client.admin` (an admin key): knowledge bases, their documents and web sources, search and API keys. Paged
 * lists are async iterators that fetch page after page as the loop asks (`page()` reads one).
 */
import type { Send, SendExtra } from "./transport.ts";
import type {
  ApiKey,
  BulkResult,
  CreatedApiKey,
  Document,
  DocumentInput,
  DocumentSummary,
  KeyInput,
  KnowledgeBase,
  Page,
  RequestOptions,
  SearchResult,
  Source,
  SourceInput,
  SourceSync,
} from "./types.ts";
import { isWire, pagination, readJson, type Wire } from "./wire.ts";

/** snake_case keys to camelCase, deeply — except inside `metadata`, which is the caller's own JSON. */
function camel(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(camel);
  if (!isWire(v)) return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [
      k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
      k === "metadata" ? x : camel(x),
    ]),
  );
}
/** camelCase keys of an input to the wire's snake_case (top level; `metadata` untouched). */
const snake = (v: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), x]),
  );

type PageQuery = { limit?: number; cursor?: string };
const enc = encodeURIComponent;

function query(q: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== "") params.set(k, String(v));
  return params.toString() ? `?${params}` : "";
}

export function admin(send: Send) {
  const json = async <T>(method: string, path: string, body?: unknown, opts?: RequestOptions, extra?: SendExtra) =>
    camel(await readJson(await send(method, path, body, opts, extra), () => true)) as T;
  // Creating is not safe to repeat: a lost answer may hide a key made (or a name taken: 409).
  const once: SendExtra = { idempotent: false };
  const none = async (method: string, path: string, opts?: RequestOptions) => {
    const call = await send(method, path, undefined, opts);
    call.end();
    await call.res.body?.cancel().catch(() => {});
  };
  async function page<T>(path: string, q: Record<string, string | number | undefined>, opts?: RequestOptions) {
    const r = await readJson<{ data: Wire[]; pagination: Wire }>(
      await send("GET", `${path}${query(q)}`, undefined, opts),
      (v) => Array.isArray(v.data) && isWire(v.pagination),
    );
    return { data: r.data.map(camel) as T[], ...pagination(r.pagination) } as Page<T>;
  }
  async function* all<T>(path: string, q: Record<string, string | number | undefined>, opts?: RequestOptions) {
    let cursor: string | undefined;
    do {
      const p = await page<T>(path, { ...q, cursor }, opts);
      yield* p.data;
      cursor = p.hasMore ? (p.nextCursor ?? undefined) : undefined;
    } while (cursor);
  }
  const kbPath = (id: string) => `/knowledge_bases/${enc(id)}`;

  const documents = {
    /** Adds one document; the same URL replaces the old one (`created` tells which). */
    async add(kbId: string, doc: DocumentInput, opts?: RequestOptions): Promise<Document & { created: boolean }> {
      const call = await send("POST", `${kbPath(kbId)}/documents`, doc, opts);
      const created = call.res.status === 201;
      return { ...(camel(await readJson(call, () => true)) as Document), created };
    },
    /** Many documents in one request, as ndjson: one result per document, a bad one fails alone. */
    async upload(kbId: string, docs: Iterable<DocumentInput>, opts?: RequestOptions): Promise<BulkResult> {
      const body = [...docs].map((d) => JSON.stringify(d)).join("\n");
      const call = await send("POST", `${kbPath(kbId)}/documents`, undefined, opts, {
        raw: { body, contentType: "application/x-ndjson" },
      });
      return camel(await readJson(call, (v) => Array.isArray(v.results))) as BulkResult;
    },
    /**
     * Files (.md, .txt, .html, .jsonl, .pdf, OpenAPI .json/.yaml) as multipart; `baseUrl` (the
     * folder's address) names files without a `url` (a PDF or a spec has none), as a docs site serves them: `urlStyle` `clean` (default: `guide/setup.md` →
     * `guide/setup`), `slash`, `html` or `keep`.
     */
    async uploadFiles(
      kbId: string,
      files: File[],
      o: RequestOptions & { baseUrl?: string; urlStyle?: "clean" | "slash" | "html" | "keep" } = {},
    ): Promise<BulkResult> {
      const form = new FormData();
      for (const f of files) form.append("files", f, f.name);
      if (o.baseUrl) form.append("base_url", o.baseUrl);
      if (o.urlStyle) form.append("url_style", o.urlStyle);
      const call = await send("POST", `${kbPath(kbId)}/documents`, undefined, o, { raw: { body: form } });
      return camel(await readJson(call, (v) => Array.isArray(v.results))) as BulkResult;
    },
    page: (kbId: string, q: PageQuery & { urlPrefix?: string } = {}, opts?: RequestOptions) =>
      page<DocumentSummary>(
        `${kbPath(kbId)}/documents`,
        { limit: q.limit, cursor: q.cursor, url_prefix: q.urlPrefix },
        opts,
      ),
    /** Every document of the knowledge base (newest first), page after page. */
    list: (kbId: string, q: { limit?: number; urlPrefix?: string } = {}, opts?: RequestOptions) =>
      all<DocumentSummary>(`${kbPath(kbId)}/documents`, { limit: q.limit, url_prefix: q.urlPrefix }, opts),
    get: (kbId: string, docId: string, opts?: RequestOptions) =>
      json<Document>("GET", `${kbPath(kbId)}/documents/${enc(docId)}`, undefined, opts),
    delete: (kbId: string, docId: string, opts?: RequestOptions) =>
      none("DELETE", `${kbPath(kbId)}/documents/${enc(docId)}`, opts),
  };

  return {
    knowledgeBases: {
      create: (input: { name: string; description?: string }, opts?: RequestOptions) =>
        json<KnowledgeBase>("POST", "/knowledge_bases", input, opts, once),
      page: (q: PageQuery = {}, opts?: RequestOptions) => page<KnowledgeBase>("/knowledge_bases", q, opts),
      /** Every knowledge base (newest first), page after page. */
      list: (q: { limit?: number } = {}, opts?: RequestOptions) => all<KnowledgeBase>("/knowledge_bases", q, opts),
      get: (id: string, opts?: RequestOptions) => json<KnowledgeBase>("GET", kbPath(id), undefined, opts),
      update: (id: string, changes: { name?: string; description?: string }, opts?: RequestOptions) =>
        json<KnowledgeBase>("PATCH", kbPath(id), changes, opts),
      delete: (id: string, opts?: RequestOptions) => none("DELETE", kbPath(id), opts),
      /** Ranked passages (any key that may use the knowledge base). */
      search: async (id: string, q: { query: string; limit?: number }, opts?: RequestOptions) =>
        (await json<{ data: SearchResult[] }>("POST", `${kbPath(id)}/search`, q, opts)).data,
    },
    documents,
    /** Web sources: sites a knowledge base crawls and keeps in sync. */
    sources: {
      /** Adds a site; its first sync starts at once (`lastSync.status` is `running`). */
      create: (kbId: string, input: SourceInput, opts?: RequestOptions) =>
        json<Source>("POST", `${kbPath(kbId)}/sources`, snake({ ...input }), opts, once),
      list: async (kbId: string, opts?: RequestOptions) =>
        (await json<{ data: Source[] }>("GET", `${kbPath(kbId)}/sources`, undefined, opts)).data,
      get: (kbId: string, id: string, opts?: RequestOptions) =>
        json<Source>("GET", `${kbPath(kbId)}/sources/${enc(id)}`, undefined, opts),
      /** Starts a sync, or answers the running one. */
      sync: (kbId: string, id: string, opts?: RequestOptions) =>
        json<SourceSync>("POST", `${kbPath(kbId)}/sources/${enc(id)}/sync`, undefined, opts),
      /** Deletes the source and the documents its syncs stored. */
      delete: (kbId: string, id: string, opts?: RequestOptions) =>
        none("DELETE", `${kbPath(kbId)}/sources/${enc(id)}`, opts),
    },
    keys: {
      create: (input: KeyInput, opts?: RequestOptions) =>
        json<CreatedApiKey>("POST", "/keys", snake({ ...input }), opts, once),
      page: (q: PageQuery = {}, opts?: RequestOptions) => page<ApiKey>("/keys", q, opts),
      /** Every key (newest first, revoked ones included), page after page. */
      list: (q: { limit?: number } = {}, opts?: RequestOptions) => all<ApiKey>("/keys", q, opts),
      get: (id: string, opts?: RequestOptions) => json<ApiKey>("GET", `/keys/${enc(id)}`, undefined, opts),
      update: (
        id: string,
        changes: Partial<Omit<KeyInput, "rpm" | "rpd">> & { rpm?: number | null; rpd?: number | null },
        opts?: RequestOptions,
      ) => json<ApiKey>("PATCH", `/keys/${enc(id)}`, snake({ ...changes }), opts),
      revoke: (id: string, opts?: RequestOptions) => json<ApiKey>("POST", `/keys/${enc(id)}/revoke`, undefined, opts),
    },
  };
}
