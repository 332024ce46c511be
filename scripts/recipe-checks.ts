/**
 * What README's recipes promise, read from their transcripts (stdout and stderr of the recipe's
 * bash, commands echoed). Each check prints `ok: …` or throws naming what it got.
 */
import { log } from "./recipe-kit.ts";

/** The built-in agent's refusal (src/agent/retrieval.ts): an answer from the samples must not be it. */
const REFUSAL = "I could not find anything";
const SAMPLE = "https://parley.example/";

export function expectIn(text: string, ...wanted: (string | RegExp)[]) {
  for (const w of wanted) {
    const ok = typeof w === "string" ? text.includes(w) : w.test(text);
    if (!ok) throw new Error(`expected the output to contain ${w}`);
  }
}

/**
 * The JSON value a transcript line starts with (curl prints no newline, so a server log line may
 * follow on the same line): the shortest prefix that parses.
 */
function leadingJson(line: string): unknown {
  for (let i = line.indexOf("}"); i !== -1; i = line.indexOf("}", i + 1)) {
    try {
      return JSON.parse(line.slice(0, i + 1));
    } catch {
      // not yet the end of the value
    }
  }
  throw new Error(`no JSON at the start of: ${line}`);
}

/** The JSON answers in a transcript whose line starts with `prefix`, in order. */
// biome-ignore lint/suspicious/noExplicitAny: transcript answers are checked field by field
const answersStarting = (out: string, prefix: string): any[] =>
  out
    .split("\n")
    .filter((l) => l.startsWith(prefix))
    .map(leadingJson);

function check(ok: boolean, what: string, got: unknown) {
  if (!ok) throw new Error(`${what}; got ${JSON.stringify(got)}`);
  console.log(`  ok: ${what}`);
}

/** Sources that are all the sample documents' (an answer, where a refusal cites none). */
const fromSamples = (urls: string[] | undefined) =>
  urls !== undefined && urls.length > 0 && urls.every((u) => u.startsWith(SAMPLE));

export function checkFirstSession(out: string) {
  log("checks");
  expectIn(out, '"type":"start"', '"type":"end"', "Wombats", '"code":"unauthorized"', "204");
  const [first] = answersStarting(out, '{"conversation_id":');
  check(fromSamples(first?.sources), "the first reply answers from the sample documents", first?.sources);
}

export function checkOperate(out: string) {
  log("checks");
  expectIn(
    out,
    /parley_http_requests_total\{route="\/v1\/chat",method="POST",status="200"\} 3/,
    /parley_replies_total\{status="completed"\} 3/,
    '"chat_turns":3',
    "x-ratelimit-limit-tokens: 200000",
    '"rating":"down"',
    '"question":"How do I stream replies?"',
    '"code":"permission_denied"',
    /POST \/v1\/chat .*\n {2}auth\+ratelimit .*\n {2}reply .*\n {4}reply\.create/,
    "knowledge.search",
  );
  const rated = answersStarting(out, '{"data":[').find((a) => a.data?.[0]?.rating === "down")?.data[0];
  check(fromSamples(rated?.sources), "the reply rated down is an answer with sources, not a refusal", rated);
}

/** What README's backups recipe promises: both backups whole, the restore serving the same conversation. */
export function checkBackups(out: string) {
  log("checks");
  expectIn(
    out,
    /archive written: backup\.parley \(\d+\.\d MB in \d+\.\d s\)/,
    "the HTTP backup is a whole gzip stream",
    "dry run: it would load",
    /conversations: [1-9]\d* rows/,
    "imported",
  );
  const [list] = answersStarting(out, '{"data":[');
  check(list?.data?.length >= 1, "the restored store lists the key's conversation", list);
}

/** What README's knowledge-base walkthrough promises, step by step. */
export function checkKbWalkthrough(out: string) {
  log("checks");
  const zoo = (urls: string[]) => urls.length > 0 && urls.every((u) => u.startsWith("https://zoo.example/"));
  check(/created key_\w+ \(pro, admin\)/.test(out), "1. keys create --admin made an admin key", "");
  const kb = out.split("\n").find((l) => /^kb_\w+$/.test(l));
  check(kb !== undefined, "2. the new knowledge base's id is printed", kb);
  const [files, lines] = answersStarting(out, '{"created":');
  const fileUrls = (files?.results ?? []).map((r: { file: string; url: string }) => `${r.file} ${r.url}`).sort();
  check(
    files?.created === 2 &&
      files.failed === 0 &&
      fileUrls.join() === "quokkas.md https://zoo.example/quokkas,wombats.md https://zoo.example/wombats",
    "3. the Markdown folder over multipart: 2 created, one result per file with its front-matter URL (YAML and TOML)",
    files,
  );
  check(
    lines?.created === 2 && lines.failed === 0 && lines.results.map((r: { line: number }) => r.line).join() === "1,2",
    "3. the JSONL file as ndjson: 2 created, one result per line",
    lines,
  );
  // Each reply's sources: its last `sources` event before its `end` (the list grows as it cites).
  const replies: { sources: string[] }[] = [];
  let last: { sources: string[] } | undefined;
  for (const l of out.split("\n")) {
    if (l.startsWith('data: {"type":"sources"')) last = leadingJson(l.slice("data: ".length)) as { sources: string[] };
    else if (l.startsWith('data: {"type":"end"') && last) replies.push(last);
  }
  const [before, after] = replies;
  check(
    before !== undefined && zoo(before.sources) && before.sources.includes("https://zoo.example/numbats"),
    "4-5. the zoo-scoped chat key's reply cites the new knowledge base's documents only, numbats among them",
    before,
  );
  const datas = answersStarting(out, '{"data":[');
  const [found, gone] = datas.filter((a) => "query" in a);
  check(
    found?.data?.[0]?.url === "https://zoo.example/numbats" && zoo(found.data.map((p: { url: string }) => p.url)),
    "6. search ranks the numbats passage first, from this knowledge base only",
    found,
  );
  check(/^DELETE 204$/m.test(out), "7. the numbats document is deleted (204)", "");
  check(
    gone !== undefined && !JSON.stringify(gone).includes("numbats"),
    "7. after the delete, search finds no numbats passage",
    gone,
  );
  check(
    after !== undefined && !after.sources.includes("https://zoo.example/numbats"),
    "7. after the delete, a new reply does not cite it",
    after,
  );
  check(/^DELETE kb 204$/m.test(out), "8. the knowledge base is deleted (204)", "");
  const list = datas.find((a) => a.data?.[0]?.name !== undefined)?.data as { id: string; name: string }[];
  const def = list?.find((k) => k.name === "default") as { document_count?: number } | undefined;
  check(
    list !== undefined && !list.some((k) => k.id === kb) && (def?.document_count ?? 0) > 0,
    "8. the list then holds no zoo, and default keeps its documents",
    list,
  );
}

export function checkOpenAI(out: string) {
  log("checks");
  const [completion] = answersStarting(out, '{"id":"chatcmpl-');
  const cited = (completion?.choices?.[0]?.message?.annotations ?? []).map(
    (a: { url_citation: { url: string } }) => a.url_citation.url,
  );
  check(fromSamples(cited), "the completion answers with url_citation annotations of the sample documents", completion);
  expectIn(out, '"usage":{"prompt_tokens"', "data: [DONE]");
  console.log("  ok: the streamed completion ends with a usage chunk and [DONE]");
  const [models] = answersStarting(out, '{"object":"list"');
  check(
    models?.data?.some((m: { id: string }) => m.id === "default"),
    "the models are the knowledge bases this key may use (default)",
    models,
  );
  check(
    /^[^\n]+: https:\/\/parley\.example\/\S+$/m.test(out) && !out.includes(REFUSAL),
    "ask.mjs prints the answer and its citations (title: url)",
    "",
  );
}

export function checkMcp(out: string) {
  log("checks");
  expectIn(out, "'search'", "'ask'", "'list_knowledge_bases'");
  console.log("  ok: the three tools are listed");
  check(/^\d+(\.\d+)? https:\/\/parley\.example\//m.test(out), "search ranks sample passages (score url)", "");
  check(out.includes("Sources:") && !out.includes(REFUSAL), "ask answers, with its sources", "");
  check(out.includes("true 2026-07-28"), "a follow-up continues the conversation, on the current revision", "");
}

export function checkClientNode(out: string) {
  log("checks");
  expectIn(out, /request req_\w+ remaining this minute \d+/, "assistant completed", "404 not_found req_");
  check(!out.includes(REFUSAL), "the client's first reply is an answer, not a refusal", "");
}

export function checkWebSources(out: string) {
  log("checks");
  const sources = answersStarting(out, '{"id":"src_');
  const [first, second] = sources.filter((s) => s.last_sync?.status !== "running");
  check(
    first?.last_sync?.status === "completed" &&
      first.last_sync.pages.created === 6 &&
      first.last_sync.pages.failed === 0,
    "1. the first sync stored the site's six pages (the sitemap-only changelog among them)",
    first?.last_sync,
  );
  const replies = out.split("\n").filter((l) => l.includes('"content":'));
  check(
    replies[0]?.includes("20 dollars") === true,
    "2. the Team plan's price is answered from the crawled page",
    replies[0],
  );
  check(
    /previous ten versions/.test(replies[1] ?? ""),
    "2. the changelog, found through the sitemap only, answers",
    replies[1],
  );
  const pages = second?.last_sync?.pages;
  check(
    second?.last_sync?.status === "completed" &&
      pages?.not_modified === 4 &&
      pages.updated === 1 &&
      pages.deleted === 1 &&
      pages.created === 0,
    "3. the re-sync: four pages answered 304, the edited one updated, the removed one deleted",
    pages,
  );
  check(replies[2]?.includes("25 dollars") === true, "3. the reply follows the change", replies[2]);
  expectIn(out, "DELETE source 204", "DELETE kb 204");
}

export function checkWidget(out: string) {
  log("checks");
  const [reply] = answersStarting(out, '{"id":"msg_');
  check(fromSamples(reply?.sources), "2. the visitor's question is answered from the sample documents", reply?.sources);
  const refusals = answersStarting(out, '{"error":');
  check(
    refusals.length === 3 && refusals.every((r) => r.error?.code === "permission_denied"),
    "3. another origin, the public key as a chat key, the visitor token on an admin route: 403 each",
    refusals,
  );
}
