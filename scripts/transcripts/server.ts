/**
 * The real server the transcripts are taken against: `bun src/main.ts serve` as its own process
 * on a temp data folder and a free port, ready once /healthz and /readyz answer 200; then what the
 * README's walkthrough does (scripts/recipes.ts runs it): an admin key from the CLI, a knowledge
 * base and its documents over HTTP, and a chat key that may use only that knowledge base.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cli, launch, root, tempDir } from "../../tests/helpers/process.ts";
import { answers } from "../recipe-kit.ts";

/** The knowledge base the clients ask (their `model`), and the fixture documents put in it. */
export const KB = "wren";
const FIXTURE = "tests/fixtures/kb.jsonl";
const DOCS = ["quick-start", "routing", "validation", "cookies", "streaming", "errors"];

export interface Served {
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  /** A chat key granted the `wren` knowledge base only. */
  key: string;
  /** Parley's own API, with the chat key (what the transcripts check follow-ups against). */
  get(path: string): Promise<unknown>;
  stop(): Promise<void>;
}

/** A port nothing listens on now (the OS picks it). */
function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

async function call(url: string, key: string, path: string, body?: string, type = "application/json") {
  const res = await fetch(`${url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": type }) },
    body,
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export async function startParley(): Promise<Served> {
  const dir = tempDir("parley-transcripts-");
  const port = freePort();
  const srv = launch(["bun", "src/main.ts", "serve"], { DATA_DIR: dir, PORT: String(port), LOG_LEVEL: "warn" });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (srv.proc.exitCode !== null || srv.proc.signalCode !== null) return;
    srv.proc.kill("SIGTERM");
    // A shutdown that hangs (it should not) is cut short.
    const timer = setTimeout(() => srv.proc.kill("SIGKILL"), 15_000);
    await srv.proc.exited;
    clearTimeout(timer);
  };
  // Interrupted (Ctrl-C, a CI timeout), even while starting: the server is stopped all the same.
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => void stop().finally(() => process.exit(130)));
  try {
    // Up: /healthz answers (a new data folder runs initdb first), or the process ended.
    const died = srv.proc.exited.then(async (code) => {
      throw new Error(`the server exited ${code} before answering: ${(await srv.exited()).stderr}`);
    });
    const health = await Promise.race([answers(`${url}/healthz`), died]);
    const ready = await fetch(`${url}/readyz`);
    if (health.status !== 200 || ready.status !== 200)
      throw new Error(`not ready: /healthz ${health.status}, /readyz ${ready.status} ${await ready.text()}`);

    const made = await cli(["keys", "create", "--name", "transcripts-admin", "--plan", "pro", "--admin"], {
      DATA_DIR: dir,
    });
    const admin = made.stdout.trim();
    if (made.code !== 0 || !admin.startsWith("prl_")) throw new Error(`keys create --admin: ${made.stderr}`);
    const kb = await call(url, admin, "/v1/knowledge_bases", JSON.stringify({ name: KB, description: "Wren docs" }));
    const lines = readFileSync(join(root, FIXTURE), "utf8")
      .split("\n")
      .filter((l) => DOCS.some((d) => l.includes(`"https://wren.example/docs/${d}"`)));
    const ingested = await call(
      url,
      admin,
      `/v1/knowledge_bases/${kb.id}/documents`,
      lines.join("\n"),
      "application/x-ndjson",
    );
    if (ingested.created !== DOCS.length) throw new Error(`ingest: ${JSON.stringify(ingested)}`);
    const chat = await call(
      url,
      admin,
      "/v1/keys",
      JSON.stringify({ name: "transcripts", plan: "pro", knowledge_base_ids: [kb.id] }),
    );
    const key = String(chat.secret);
    return { url, key, get: (path) => call(url, key, path), stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** What was ingested, for the transcript's header. */
export const fixtureNote = () =>
  `${DOCS.length} documents of \`${FIXTURE}\` (${DOCS.map((d) => `https://wren.example/docs/${d}`).join(", ")})`;
