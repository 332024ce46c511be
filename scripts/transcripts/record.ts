/**
 * What a transcript holds (per client: its calls, each with the request, the answer text, the
 * citations as that client exposes them, or the error as it surfaces it), the checks that turn
 * Parley misbehaving into findings, and the Markdown it is written as (keys masked, ids numbered
 * in order of appearance so a regenerated file differs only where behaviour does).
 */
import type { Served } from "./server.ts";

export interface ErrorView {
  class: string;
  status?: unknown;
  message: string;
  param?: unknown;
  code?: unknown;
}

export interface Step {
  title: string;
  /** The call, as code: the client's method and the arguments it was given. */
  request: string;
  text?: string;
  /** Where the client puts the citations (e.g. `message.annotations`), and what it holds there. */
  citationsAt?: string;
  citations?: unknown;
  error?: ErrorView;
  notes: string[];
}

export interface Transcript {
  title: string;
  /** The client and the door it uses, one line. */
  about: string;
  steps: Step[];
}

/** Parley behaving wrongly, as seen by a client: listed at the top of the document. */
export const findings: string[] = [];

/** The server the transcripts run against (set once it is up). */
export const ctx = { served: undefined as unknown as Served };

export const step = (title: string, request: string, more: Partial<Step> = {}): Step => ({
  title,
  request,
  notes: [],
  ...more,
});

/** A value as JSON, one line where it fits in 100 columns, else one line per member. */
function json(value: unknown, indent = ""): string {
  const flat = JSON.stringify(value);
  if (flat === undefined || typeof value !== "object" || value === null || indent.length + flat.length <= 100)
    return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((v) => inner + json(v, inner)).join(",\n")}\n${indent}]`;
  const members = Object.entries(value).filter(([, v]) => v !== undefined);
  return `{\n${members.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${json(v, inner)}`).join(",\n")}\n${indent}}`;
}

/** Runs a call that must be refused; its error as the client surfaces it (class, status, message, param). */
export async function refused(s: Step, where: string, call: () => Promise<unknown>): Promise<Step> {
  try {
    await call();
    findings.push(`${where}: "${s.title}" was not refused`);
    s.notes.push("NOT refused: the call succeeded");
  } catch (e) {
    s.error = errorView(e);
    const status = Number(s.error.status);
    if (!(status >= 400 && status < 500) && !/^McpError$/.test(s.error.class))
      findings.push(`${where}: the refusal is not a 4xx (${s.error.class} ${s.error.status}: ${s.error.message})`);
  }
  return s;
}

export function errorView(e: unknown): ErrorView {
  const x = e as Record<string, unknown> & Error;
  let body: { error?: Record<string, unknown> } = {};
  try {
    body = typeof x.responseBody === "string" ? JSON.parse(x.responseBody) : {};
  } catch {
    // not JSON: the message says it
  }
  const view: ErrorView = { class: x?.constructor?.name ?? typeof e, message: String(x?.message ?? e) };
  const status = x.status ?? x.statusCode;
  if (status !== undefined) view.status = status;
  const param = x.param ?? body.error?.param;
  if (param !== undefined) view.param = param;
  const code = x.code ?? body.error?.code;
  if (code !== undefined) view.code = code;
  return view;
}

/** A citation check: none at all is a finding unless the client is known to drop them (`dropped`). */
export function expectCited(s: Step, where: string, count: number, dropped?: string) {
  if (count > 0) return;
  if (dropped) s.notes.push(`No citations exposed: ${dropped}`);
  else findings.push(`${where}: "${s.title}" exposes no citation`);
}

/**
 * The stored conversation a follow-up went to, read back from Parley's own API: a follow-up
 * that continues it holds four messages (question, answer, follow-up, answer).
 */
export async function expectContinued(s: Step, where: string, conversationId: string | undefined) {
  if (!conversationId) {
    findings.push(`${where}: "${s.title}" names no conversation`);
    return;
  }
  const conv = (await ctx.served.get(`/v1/conversations/${conversationId}`)) as { messages: { role: string }[] };
  const roles = conv.messages.map((m) => m.role);
  s.notes.push(`Parley stored it in ${conversationId}: ${roles.join(", ")}`);
  if (roles.join() !== "user,assistant,user,assistant")
    findings.push(`${where}: the follow-up did not continue the conversation (${conversationId}: ${roles.join(", ")})`);
}

/** The id of the newest stored conversation of the key (for clients that do not expose one). */
export async function newestConversation(): Promise<string | undefined> {
  const list = (await ctx.served.get("/v1/conversations?limit=1")) as { data: { id: string }[] };
  return list.data[0]?.id;
}

const MAX_TEXT = 400;
const MAX_STRING = 200;

const cut = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max)} …[${text.length - max} more chars]`;

/** Long strings inside a value (a history sent back, a content block's text) cut short. */
/** A value as shown in the document (a call's arguments, citations, an error): `json`, long strings cut. */
export const show = (value: unknown) =>
  json(JSON.parse(JSON.stringify(value ?? null, (_k, v) => (typeof v === "string" ? cut(v, MAX_STRING) : v))));

function renderStep(s: Step): string {
  const out = [`#### ${s.title}`, "", "```ts", s.request, "```", ""];
  if (s.text !== undefined) out.push("Answer text:", "", "```text", cut(s.text, MAX_TEXT), "```", "");
  if (s.citationsAt) out.push(`Citations (\`${s.citationsAt}\`):`, "", "```json", show(s.citations), "```", "");
  if (s.error) out.push("Error as the client surfaces it:", "", "```json", show(s.error), "```", "");
  for (const n of s.notes) out.push(`- ${n}`);
  if (s.notes.length) out.push("");
  return out.join("\n");
}

/** The document: the header, the findings, one section per client; secrets masked, ids numbered. */
export function render(header: string, transcripts: Transcript[], served: Pick<Served, "url" | "key">): string {
  const body = [
    header,
    "## Findings",
    "",
    ...(findings.length
      ? findings.map((f) => `- ${f}`)
      : ["- None: every client got its citations, continued its conversation and was refused with a 4xx."]),
    "",
    ...transcripts.flatMap((t) => [`## ${t.title}`, "", t.about, "", ...t.steps.map(renderStep)]),
  ].join("\n");
  const numbers = new Map<string, string>();
  const counts = new Map<string, number>();
  return body
    .replaceAll(served.key, "prl_…(masked)")
    .replace(/prl_[A-Za-z0-9_-]{8,}/g, "prl_…(masked)")
    .replaceAll(served.url, "http://127.0.0.1:PORT")
    .replace(/\b(resp|conv|msg|kb|key|req)_[0-9a-z]{26}\b/g, (id, prefix: string) => {
      if (!numbers.has(id)) {
        counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
        numbers.set(id, `${prefix}_‹${counts.get(prefix)}›`);
      }
      return numbers.get(id)!;
    });
}

/** The question every client asks, and its follow-up (which needs the first turn to make sense). */
export const QUESTION = "How do I use cookies in Wren?";
export const FOLLOW_UP = "How do I sign them?";

/** Each citation that points into the text (start/end) must span a `[k](url)` link to its own URL. */
export function expectAnchored(
  s: Step,
  where: string,
  text: string,
  spans: { start: number; end: number; url: string }[],
) {
  const wrong = spans.filter(
    (a) => !/^\[\d+\]\(/.test(text.slice(a.start, a.end)) || !text.slice(a.start, a.end).includes(`(${a.url})`),
  );
  if (wrong.length)
    findings.push(`${where}: "${s.title}": ${wrong.length} citation(s) whose span is not their link in the text`);
  else if (spans.length) s.notes.push(`each of the ${spans.length} spans is its \`[k](url)\` link in the text`);
}

/** Each source without a span must be linked from the text (the AI SDK's `sources`). */
export function expectLinked(s: Step, where: string, text: string, urls: string[]) {
  const missing = urls.filter((u) => !text.includes(`](${u})`));
  if (missing.length) findings.push(`${where}: "${s.title}": sources the text does not link: ${missing.join(", ")}`);
  else if (urls.length) s.notes.push(`the text links each of the ${urls.length} sources`);
}
