/**
 * `deno run -A scripts/request-files.ts`: the source files under src/ that one request runs code
 * in, each named once — the map's "a chat request, end to end", measured instead of recalled.
 * The standalone app (createApp: access log, the plugin, the retrieval agent) on an in-memory
 * PGlite store with one document answers one warm-up request of each kind, then the measured
 * ones; V8's precise coverage (call counts, reset at every take) names the files whose functions
 * ran between the request and the end of its answer's body. Deno, because Bun's inspector has no
 * precise coverage. A development aid: nothing imports it.
 */
import { Session } from "node:inspector";
import process from "node:process";
import { fileURLToPath } from "node:url";

const session = new Session();
session.connect();
const post = <T>(method: string, params: object = {}) =>
  new Promise<T>((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r as T))));
// Counting from before the modules load: a function compiled before it would go uncounted.
await post("Profiler.enable");
await post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
const { createApp } = await import("../src/app/app.ts");
const { createLogger } = await import("../src/config/logger.ts");
const { createKey, ingestDocuments, migrate, openPglite } = await import("../src/mod.ts");

interface Coverage {
  result: { url: string; functions: { functionName: string; ranges: { startOffset: number; count: number }[] }[] }[];
}

const store = await openPglite();
await migrate(store);
await ingestDocuments(store.db, [
  {
    url: "https://trace.test/keys",
    title: "Keys",
    content: "# API keys\nCreate an API key with `parley keys create`.",
  },
]);
const { secret } = await createKey(store.db, { name: "trace", plan: "pro" });
const app = createApp({ store, logger: createLogger("info", "json", () => {}) });
/** `--functions`: each file's functions that ran, after its name. */
const verbose = process.argv.includes("--functions");
const src = new URL("../src/", import.meta.url).href;

const chat = (body: object) =>
  app.handle(
    new Request("http://local/v1/chat", {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "How do I create an API key?", ...body }),
    }),
  );

/** The src files whose functions ran during `request` (its answer's body read to the end). */
async function filesOf(request: () => Promise<Response>): Promise<string[]> {
  await (await request()).text(); // warm-up: module state, prepared statements, lazy imports
  await new Promise((r) => setTimeout(r, 50));
  await post("Profiler.takePreciseCoverage"); // resets the counts
  await (await request()).text();
  await new Promise((r) => setTimeout(r, 50)); // the run's last write and the access log's line
  const { result } = await post<Coverage>("Profiler.takePreciseCoverage");
  // A function that ran, other than the module's body (which ran when it was imported).
  const ranIn = (s: Coverage["result"][number]) =>
    s.functions.filter((f) => f.ranges[0]!.startOffset > 0 && f.ranges[0]!.count > 0);
  const name = (url: string) => fileURLToPath(url).slice(fileURLToPath(src).length);
  return result
    .filter((s) => s.url.startsWith(src) && ranIn(s).length > 0)
    .map((s) => {
      const functions = [...new Set(ranIn(s).map((f) => f.functionName || "(anonymous)"))];
      return verbose ? `${name(s.url)}: ${functions.join(", ")}` : name(s.url);
    })
    .sort();
}

for (const [name, body] of [
  ["POST /v1/chat (stream: false)", {}],
  ["POST /v1/chat (stream: true)", { stream: true }],
] as const) {
  const files = await filesOf(() => chat(body));
  console.log(`${name}: ${files.length} files\n${files.map((f) => `  ${f}`).join("\n")}`);
}
await app.parley.close();
await store.close();
session.disconnect();
