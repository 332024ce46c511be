/**
 * Property-based fuzzing of the whole in-process app (fast-check): thousands of generated
 * requests — random and malformed bodies, content types, header sets, ids, cursors (valid,
 * tampered, another key's, another conversation's), limits, unicode and control characters —
 * sent as key B against a store where key A has data. Invariants, for every request:
 *   - never a 5xx;
 *   - every non-2xx is the JSON error body, with the request id of the X-Request-Id header;
 *   - a rejected request writes nothing (B's conversations and messages counted before/after);
 *   - no response carries A's data (its message text, message ids, title or key id).
 * Every route: chat, the conversation list, one conversation, its messages, delete, a reply's
 * events (resume) and stop, plus unknown routes and methods; and (fuzz-targets.ts, sent mostly
 * as the admin key C) knowledge bases, documents, search, keys, feedback, usage, the
 * OpenAI-compatible door, MCP (single messages and JSON-RPC batches, some as a key whose minute
 * a batch runs past) and the operational routes. "Writes nothing" then covers every table a
 * request can change. MCP batch answers are each checked as a JSON-RPC response, and tallied.
 * FUZZ_RUNS sets the number of cases (default 500, to keep `bun test` fast; .ci/run sets 2,000
 * for each store; README gives the 10,000-case command); a failure prints the shrunk request.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import type { CreatedApiKey, Document, KnowledgeBase } from "../../src/contract/index.ts";
import { scriptedAgent } from "../helpers/agents.ts";
import { harness, keyIdOf, type Reply } from "../helpers/app.ts";
import { adminTargets } from "./fuzz-targets.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 500);
/** Printed first, so that even a run cut short can be replayed (FUZZ_SEED). */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
console.log(`fuzz: seed ${SEED} (FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} replays this run)`);
/** A case that has not answered by then hangs. */
const CASE_MS = 10_000;
// Setup, then up to ~100 ms a case on a busy machine.
const BUDGET_MS = 120_000 + RUNS * 100;
setDefaultTimeout(BUDGET_MS + 60_000);
const h = await harness({ agent: scriptedAgent(["fuzz ", "reply"], { sources: ["https://fuzz.example/"] }) });

// Key A: the victim, with data B must never see. Key B: the one the fuzzer acts as.
const SECRET = `A-secret-${crypto.randomUUID()}`;
const keyA = await h.key();
const keyB = await h.key();
const idA = await keyIdOf(h.store, keyA);
// Key C: an admin, with a knowledge base, a document and a spare key the fuzzer may change.
const keyC = await h.admin();
// Key D: 10 requests a minute, for MCP batches that run past it (fuzz-targets.ts).
const keyD = await h.key("enterprise", { rpm: 10, rpd: 1_000_000 });
async function created(path: string, json: unknown): Promise<string> {
  // A key, a knowledge base or a document: each answers its id.
  const r = await h.call<CreatedApiKey | KnowledgeBase | Document>("POST", path, { key: keyC, json });
  if (r.status !== 201 && r.status !== 200) throw new Error(`seed ${path} failed: ${r.text}`);
  return r.json.id;
}
const spareKeyId = await created("/v1/keys", { name: "spare", plan: "pro" });
const kbId = await created("/v1/knowledge_bases", { name: "fuzz-kb" });
const docId = await created(`/v1/knowledge_bases/${kbId}/documents`, {
  url: "https://fuzz.example/doc",
  content: "# Wombats\n\nWombats dig burrows with strong claws.",
});

async function chatAs(key: string, message: string, conversationId?: string) {
  const r = await h.call("POST", "/v1/chat", { key, json: { message, conversation_id: conversationId } });
  if (r.status !== 200) throw new Error(`seed chat failed: ${r.text}`);
  return r.json;
}

// A: three conversations, one long enough to have a message cursor.
const convA = (await chatAs(keyA, `${SECRET} first`)).conversation_id;
const idsA: string[] = [];
for (let i = 0; i < 3; i++) idsA.push((await chatAs(keyA, `${SECRET} turn ${i}`, convA)).id);
for (let i = 0; i < 2; i++) await chatAs(keyA, `${SECRET} other ${i}`);
const listCursorA = (await h.call("GET", "/v1/conversations?limit=1", { key: keyA })).json.pagination
  .next_cursor as string;
const msgCursorA = (await h.call("GET", `/v1/conversations/${convA}/messages?limit=2`, { key: keyA })).json.pagination
  .next_cursor as string;
// B: its own conversations and cursors, for valid requests.
const convB = (await chatAs(keyB, "b first")).conversation_id;
for (let i = 0; i < 3; i++) await chatAs(keyB, `b turn ${i}`, convB);
await chatAs(keyB, "b other");
const listCursorB = (await h.call("GET", "/v1/conversations?limit=1", { key: keyB })).json.pagination.next_cursor!;
const msgCursorB = (await h.call("GET", `/v1/conversations/${convB}/messages?limit=2`, { key: keyB })).json.pagination
  .next_cursor!;
const aMessageIds = (await h.call("GET", `/v1/conversations/${convA}`, { key: keyA })).json.messages.map((m) => m.id);
/** B's replies (finished), for the events and stop routes; A's reply ids are in aMessageIds. */
const bReplyIds = (await h.call("GET", `/v1/conversations/${convB}`, { key: keyB })).json.messages
  .filter((m) => m.role === "assistant")
  .map((m) => m.id);
/** Strings that only A's data contains. */
const FORBIDDEN = [SECRET, idA, ...aMessageIds];

/** What a request can change, in one value: counts and digests of every table a route writes. */
async function stateOfStore(): Promise<string> {
  const res = await h.store.db.execute(sql`
    select concat_ws('|',
      (select count(*) from conversations), (select count(*) from messages),
      (select count(*) from knowledge_bases), (select max(updated_at)::text from knowledge_bases),
      (select count(*) from documents), (select max(updated_at)::text from documents),
      (select md5(string_agg(concat_ws(',', id, name, plan, role, rpm, rpd, tpd, expires_at, revoked_at), ';' order by id))
        from api_keys),
      (select md5(string_agg(concat_ws(',', message_id, rating, comment), ';' order by message_id)) from message_feedback),
      (select md5(string_agg(key_id || ',' || kb_id, ';' order by key_id, kb_id)) from key_knowledge_bases)
    ) as n`);
  return String(((res as any).rows ?? res)[0].n);
}

// ---------- generators ----------

const tamper = (c: string) =>
  fc.nat({ max: c.length - 1 }).map((i) => c.slice(0, i) + (c[i] === "A" ? "B" : "A") + c.slice(i + 1));
const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: "binary" }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\u202e",
    "\ud800",
    "%",
    "%zz",
    "%00",
    "..",
    "../..",
    "\r\n",
    "💥",
    "a".repeat(300),
  ),
);
/** Any string, made safe to put in a URL (lone surrogates cannot be percent-encoded). */
const enc = (s: string) => encodeURIComponent(s.toWellFormed());
const id = fc.oneof(
  fc.constantFrom(convB, convA, "conv_01jd5x8r7mf6sb1b2k3n4p5q6r", "conv_", "msg_01jd5x8r7mf6sb1b2k3n4p5q6r"),
  nasty.map(enc),
  fc.constantFrom("%zz", "%E0%A4%A", "%00", "conv_%41", "%2e%2e"),
  fc.string().map((s) => s.replace(/[/?#%]/g, "")),
);
const cursor = fc.oneof(
  fc.constantFrom(listCursorB, msgCursorB, listCursorA, msgCursorA),
  tamper(listCursorB),
  tamper(msgCursorB),
  fc.base64String(),
  nasty,
);
const limit = fc.oneof(
  fc.integer({ min: -5, max: 205 }).map(String),
  fc.constantFrom("", "1e1", "0x10", " 5", "5.0", "100", "1"),
  nasty,
);
const query = fc.record({ limit, cursor, extra: nasty }, { requiredKeys: [] }).map((q) => {
  const p = new URLSearchParams();
  if (q.limit !== undefined) p.append("limit", q.limit);
  if (q.cursor !== undefined) p.append("cursor", q.cursor);
  if (q.extra !== undefined) p.append("x", q.extra);
  const s = p.toString();
  return s ? `?${s}` : "";
});
const idOrB = fc.oneof({ weight: 2, arbitrary: fc.constant(convB) }, { weight: 3, arbitrary: id });
/** A message id: mostly B's replies, else A's messages, B's conversation id, or anything. */
const messageId = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...bReplyIds) },
  { weight: 1, arbitrary: fc.constantFrom(...aMessageIds, convB, "msg_01jd5x8r7mf6sb1b2k3n4p5q6r") },
  { weight: 2, arbitrary: id },
);
const after = fc.oneof(
  fc.constant(""),
  fc.integer({ min: -3, max: 12 }).map((n) => `?after=${n}`),
  fc.constantFrom("?after=1e3", "?after=0x1", "?after=", "?after=99999999999", "?after=1&after=2"),
  limit.map((s) => `?after=${enc(s)}`),
);
/** A route and, most of the time, its own method (else any method: 405/404 paths). */
const route = (method: fc.Arbitrary<string>, p: fc.Arbitrary<string>) =>
  fc.record({ method, path: p, body: fc.constant<string | undefined>(undefined), admin: fc.constant(false) });
const anyMethod = fc.constantFrom("GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD");
const target = fc.oneof(
  // Half the cases: the other routes, each with bodies shaped like its own.
  {
    weight: 20,
    arbitrary: adminTargets({ kbId, docId, spareKeyId, convB, bReplyIds, id, query, nasty }),
  },
  { weight: 5, arbitrary: route(fc.constant("POST"), fc.constant("/v1/chat")) },
  {
    weight: 3,
    arbitrary: route(
      fc.constant("GET"),
      query.map((q) => `/v1/conversations${q}`),
    ),
  },
  {
    weight: 3,
    arbitrary: route(
      fc.constant("GET"),
      fc.tuple(idOrB, query).map(([i, q]) => `/v1/conversations/${i}${q}`),
    ),
  },
  // Rarely B's own conversation (gone after the first delete), mostly ids that are not B's.
  {
    weight: 1,
    arbitrary: route(
      fc.constant("DELETE"),
      id.map((i) => `/v1/conversations/${i}`),
    ),
  },
  {
    weight: 3,
    arbitrary: route(
      fc.constant("GET"),
      fc.tuple(idOrB, query).map(([i, q]) => `/v1/conversations/${i}/messages${q}`),
    ),
  },
  {
    weight: 2,
    arbitrary: route(
      fc.constant("GET"),
      fc.tuple(idOrB, messageId, after).map(([c, m, a]) => `/v1/conversations/${c}/messages/${m}/events${a}`),
    ),
  },
  {
    weight: 1,
    arbitrary: route(
      fc.constant("POST"),
      fc.tuple(idOrB, messageId).map(([c, m]) => `/v1/conversations/${c}/messages/${m}/stop`),
    ),
  },
  {
    weight: 2,
    arbitrary: route(
      anyMethod,
      fc.oneof(
        fc.constantFrom(
          "/v1/chat",
          "/v1/conversations",
          `/v1/conversations/${convB}`,
          `/v1/conversations/${convB}/messages`,
          `/v1/conversations/${convB}/messages/${bReplyIds[0]}/events`,
          `/v1/conversations/${convB}/messages/${bReplyIds[0]}/stop`,
        ),
        fc.constantFrom("/v1/nope", "/v1/", "/v1", "/healthz", "/readyz", "/v1/chat/", "/v1/conversations/"),
        nasty.map((s) => `/v1/${enc(s)}`),
      ),
    ),
  },
);
const message = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 40, unit: "grapheme" }) },
  { weight: 2, arbitrary: nasty },
  { weight: 1, arbitrary: fc.constantFrom<unknown>("hello", 42, null, [], {}, true) },
);
const chatBody = fc.record(
  {
    message,
    conversation_id: fc.oneof(idOrB, fc.constant(null), fc.integer()),
    stream: fc.oneof(fc.boolean(), fc.constant("yes"), fc.constant(null)),
    extra: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  { weight: 4, arbitrary: chatBody.map((b) => JSON.stringify(b)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: nasty },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => new TextDecoder("latin1").decode(b)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("{", '{"message":', "[]", "null", '{"message":"\\ud800"}', '{"message":"a\\u0000b"}'),
  },
);
const contentType = fc.oneof(
  { weight: 3, arbitrary: fc.constant("application/json") },
  {
    weight: 2,
    arbitrary: fc.option(
      fc.constantFrom(
        "application/json",
        "application/json; charset=utf-8",
        "text/plain",
        "application/vnd.api+json",
        "multipart/form-data",
        "application/x-www-form-urlencoded",
        "application/x-ndjson",
        "json",
        "",
      ),
      { nil: undefined },
    ),
  },
);
const authorization = fc.oneof(
  { weight: 6, arbitrary: fc.constant(`Bearer ${keyB}`) },
  { weight: 1, arbitrary: fc.constant(`bearer  ${keyB} `) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      undefined,
      "",
      "Bearer",
      "Basic Zm9vOmJhcg==",
      `Bearer ${keyB.slice(0, -1)}x`,
      `Bearer ${"prl_"}${"A".repeat(43)}`,
    ),
  },
  { weight: 1, arbitrary: nasty.filter((s) => /^[\t\x20-\x7e]*$/.test(s)).map((s) => `Bearer ${s}`) },
);
const extraHeaders = fc.record(
  {
    "x-request-id": fc.oneof(
      fc.constant("client-supplied-id-123"),
      nasty.filter((s) => /^[\t\x20-\x7e]*$/.test(s)),
    ),
    "idempotency-key": fc.string({ maxLength: 20 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
    "last-event-id": fc.constantFrom("0", "-1", "abc"),
    accept: fc.constantFrom("text/event-stream", "application/json", "*/*"),
    origin: fc.constantFrom("https://evil.example", "null"),
  },
  { requiredKeys: [] },
);
const request = fc.record({
  target,
  body: fc.option(body, { nil: undefined, freq: 3 }),
  contentType,
  authorization,
  headers: extraHeaders,
});

type Req = typeof request extends fc.Arbitrary<infer T> ? T : never;

async function send(r: Req): Promise<Reply> {
  const { method, path } = r.target;
  const headers = new Headers();
  for (const [k, v] of Object.entries(r.headers)) if (v !== undefined) headers.set(k, v);
  // The admin routes' cases act as C where the others act as B (same header shapes); some MCP
  // batches as D. MCP cases bring their own Accept.
  const target = r.target as { admin: boolean; limited?: boolean; accept?: string; contentType?: string };
  const { admin, limited, accept } = target;
  const authorization = limited
    ? r.authorization?.replace(keyB, keyD)
    : admin
      ? r.authorization?.replace(keyB, keyC)
      : r.authorization;
  if (authorization !== undefined) headers.set("authorization", authorization);
  if (accept !== undefined) headers.set("accept", accept);
  const contentType = target.contentType ?? r.contentType;
  if (contentType !== undefined) headers.set("content-type", contentType);
  const body = r.target.body ?? r.body;
  const withBody = body !== undefined && method !== "GET" && method !== "HEAD";
  // Every answer comes and ends, streams included: a hang is a failure, not a stuck suite.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const [res, text] = await Promise.race([
    h.app
      .handle(new Request(`http://localhost${path}`, { method, headers, body: withBody ? body : undefined }))
      .then(async (res) => [res, await res.text()] as const),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${CASE_MS} ms: ${method} ${path}`)), CASE_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, text, json };
}

const hasApiError = (json: unknown) => typeof (json as { error?: { code?: unknown } })?.error?.code === "string";

type RpcAnswer = {
  jsonrpc?: unknown;
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; data?: { code?: unknown; request_id?: unknown } };
};

/**
 * An MCP batch's answers: each a JSON-RPC response (a result, or an error with a numeric code);
 * a call refused by the key's limits carries the API's code and the request id. Tallied by
 * outcome: `result`, a JSON-RPC error code, or the API code of a refused call.
 */
function checkBatch(answers: RpcAnswer[], res: Reply, show: string, tally: Map<string, number>) {
  for (const a of answers) {
    expect(a?.jsonrpc, show).toBe("2.0");
    const refused = typeof a.error?.data?.code === "string" ? (a.error.data.code as string) : undefined;
    if (refused) expect(a.error?.data?.request_id, show).toBe(res.headers.get("x-request-id"));
    if (!("result" in a)) expect(typeof a.error?.code, show).toBe("number");
    const outcome = "result" in a ? "result" : (refused ?? `rpc ${String(a.error?.code)}`);
    tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
  }
}

describe("fuzz", () => {
  test(`${RUNS} generated requests keep every invariant`, async () => {
    let cases = 0;
    // B's rows after the previous case: one count per case instead of two.
    let known = await stateOfStore();
    const statuses = new Map<number, number>();
    const batches = { mcp: 0, sent: 0, statuses: new Map<number, number>(), answers: new Map<string, number>() };
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        cases++;
        const res = await send(r);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const show = `${r.target.method} ${r.target.path} → ${res.status} ${res.text.slice(0, 300)}`;
        expect(res.status, show).toBeLessThan(500);
        const body = r.target.body ?? r.body;
        if (r.target.path === "/mcp") batches.mcp++;
        if (r.target.path === "/mcp" && body?.startsWith("[")) {
          batches.sent++;
          batches.statuses.set(res.status, (batches.statuses.get(res.status) ?? 0) + 1);
          if (res.status === 200 && Array.isArray(res.json)) checkBatch(res.json, res, show, batches.answers);
        }
        if (res.status >= 300 && r.target.method !== "HEAD" && r.target.path === "/mcp" && !hasApiError(res.json)) {
          // The MCP transport's own refusals are JSON-RPC errors, the request id in error.data.
          const rpc = res.json as {
            jsonrpc?: unknown;
            error?: { code?: unknown; message?: unknown; data?: { request_id?: unknown } };
          };
          expect(rpc?.jsonrpc, show).toBe("2.0");
          expect(typeof rpc.error?.code, show).toBe("number");
          expect(typeof rpc.error?.message, show).toBe("string");
          expect(rpc.error?.data?.request_id, show).toBe(res.headers.get("x-request-id"));
        } else if (res.status >= 300 && r.target.method !== "HEAD") {
          const err = res.json as {
            error?: { code?: unknown; message?: unknown; type?: unknown };
            request_id?: unknown;
          };
          expect(typeof err?.error?.code, show).toBe("string");
          expect(typeof err?.error?.message, show).toBe("string");
          expect(typeof err?.error?.type, show).toBe("string");
          expect(err.request_id, show).toBe(res.headers.get("x-request-id"));
          expect(res.headers.get("content-type"), show).toContain("application/json");
        }
        // What the store held before this case, and after: kept even when the check fails, so that
        // shrinking compares each smaller case with its own before, not with the failing case's.
        const [before, now] = [known, await stateOfStore()];
        known = now;
        if (res.status >= 400) expect(now, `a rejected request wrote: ${show}`).toBe(before);
        // (An id the request itself sent may be echoed back, e.g. in a 404 naming the path.)
        // An admin lists every key: A's key id is not a leak there.
        for (const s of r.target.admin ? FORBIDDEN.filter((x) => x !== idA) : FORBIDDEN)
          if (!r.target.path.includes(s)) expect(res.text.includes(s), `A's data leaked: ${show}`).toBe(false);
      }),
      // Shrinking a hang costs CASE_MS a step: it stops at the budget and reports the smallest
      // failing case found so far rather than letting the test's own timeout hide it.
      { numRuns: RUNS, seed: SEED, interruptAfterTimeLimit: BUDGET_MS, markInterruptAsFailure: true },
    );
    const sorted = <K extends number | string>(m: Map<K, number>) =>
      JSON.stringify(Object.fromEntries([...m].sort((a, b) => (a[0] < b[0] ? -1 : 1))));
    console.log(`fuzz: ${cases} cases run; statuses ${sorted(statuses)}`);
    console.log(
      `fuzz: ${batches.mcp} MCP requests, ${batches.sent} of them batches; statuses ${sorted(batches.statuses)}; their answers ${sorted(batches.answers)}`,
    );
    expect(cases).toBeGreaterThanOrEqual(RUNS);
  });
});
