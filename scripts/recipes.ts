/**
 * `bun scripts/recipes.ts [name…]` (CI: .ci/run): README's recipes, run verbatim, each in a temp
 * folder outside the repository, on a fresh `git clone` of it (so: what is committed).
 *
 * A recipe is a README code block preceded by `<!-- recipe: NAME -->` (shell, run in order as
 * one bash script) or `<!-- recipe: NAME file=PATH -->` (written to PATH). This script only adds
 * what a reader would do around them — start the server the recipe says is running, look at the
 * result, stop what was started — and checks what the recipe promises. The transcript is stdout.
 * The recipes use port 3000: run by hand under `flock` (see /work/notes/guide.md or any lock file).
 *
 * Also checked: `npm publish --dry-run` for the server and client packages (names, no data/,
 * no binary, no .git).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const ROOT = join(import.meta.dir, "..");
/** Temp folders of the recipe running now: removed when it passes, kept to look at when it fails. */
const made: string[] = [];
const PORT = 3000;

interface Block {
  lang: string;
  file?: string;
  text: string;
}

/** The README's recipe blocks, by name, in order. */
export function recipes(readme: string): Map<string, Block[]> {
  const found = new Map<string, Block[]>();
  const re = /<!-- recipe: ([\w-]+)(?: file=(\S+))? -->\n```(\w*)\n([\s\S]*?)\n```/g;
  for (const m of readme.matchAll(re)) {
    const [, name, file, lang, text] = m;
    found.set(name!, [...(found.get(name!) ?? []), { lang: lang!, file, text: `${text}\n` }]);
  }
  return found;
}

const log = (line: string) => console.log(`\n### ${line}`);

/** Runs a bash script in `cwd` (its own process group, ended afterwards), echoing each command and its output. */
async function bash(script: string, cwd: string, env: Record<string, string> = {}): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), "parley-recipe-sh-")), "recipe.sh");
  writeFileSync(file, script);
  const proc = Bun.spawn(["bash", "-x", file], {
    cwd,
    env: { ...process.env, PS4: "$ ", ...env },
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  let out = "";
  const pump = async (stream: ReadableStream<Uint8Array>, to: NodeJS.WriteStream) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      out += text;
      to.write(text);
    }
  };
  await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stdout), proc.exited]);
  endGroup(proc.pid);
  if (proc.exitCode !== 0) throw new Error(`the recipe exited ${proc.exitCode}`);
  return out;
}

/** Ends what a recipe left running in its process group (a server started with `&`). */
function endGroup(pid: number) {
  try {
    process.kill(-pid, "SIGTERM");
  } catch {
    // the group is already gone
  }
}

/** A background process (a server the recipe says is running), in its own process group. */
function background(cmd: string[], cwd: string, env: Record<string, string> = {}) {
  console.log(`$ ${cmd.join(" ")} &`);
  const proc = Bun.spawn(cmd, {
    cwd,
    env: { ...process.env, ...env },
    stdout: "inherit",
    stderr: "inherit",
    detached: true,
  });
  return {
    async stop() {
      endGroup(proc.pid);
      await proc.exited;
    },
  };
}

async function portFree(): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${PORT}/`, { signal: AbortSignal.timeout(1_000) });
    return false;
  } catch {
    return true;
  }
}

/** Waits until `url` answers (any status), up to `ms`. */
async function answers(url: string, ms = 180_000): Promise<Response> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await fetch(url, { signal: AbortSignal.timeout(2_000) });
    } catch {
      if (Date.now() > until) throw new Error(`${url} did not answer within ${ms} ms`);
      await Bun.sleep(250);
    }
  }
}

function expectIn(text: string, ...wanted: (string | RegExp)[]) {
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

/** What README's knowledge-base walkthrough promises, step by step, read from its transcript. */
function checkKbWalkthrough(out: string) {
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
  const [before, after] = out
    .split("\n")
    .filter((l) => l.startsWith('data: {"type":"sources"'))
    .map((l) => leadingJson(l.slice("data: ".length)) as { sources: string[] });
  check(
    before !== undefined && zoo(before.sources) && before.sources.includes("https://zoo.example/numbats"),
    "4-5. the zoo-scoped chat key's reply cites the new knowledge base's documents only, numbats among them",
    before,
  );
  const [found, gone] = answersStarting(out, '{"data":[');
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
  const deleted = out.match(/^DELETE doc_\w+ \d+$/gm) ?? [];
  check(
    deleted.length > 0 && deleted.every((l) => l.endsWith(" 204")),
    `8. the sample documents are deleted (${deleted.length}, each 204)`,
    deleted,
  );
  const def = answersStarting(out, '{"id":"kb_').find((k) => k.name === "default");
  check(
    def?.document_count === 0 && def.passage_count === 0,
    "8. the default knowledge base then holds 0 documents and 0 passages",
    def,
  );
}

/** A new folder for one recipe with a fresh clone of the repository in it (`parley`). */
function workspace(name: string): { work: string; clone: string } {
  const work = mkdtempSync(join(tmpdir(), `parley-recipe-${name}-`));
  made.push(work);
  const clone = join(work, "parley");
  const r = Bun.spawnSync(["git", "clone", "-q", ROOT, clone], { stdout: "inherit", stderr: "inherit" });
  if (r.exitCode !== 0) throw new Error("git clone failed");
  console.log(`(a fresh clone of the repository in ${clone})`);
  return { work, clone };
}

const shell = (blocks: Block[]) =>
  blocks
    .filter((b) => !b.file)
    .map((b) => b.text)
    .join("\n");
const fileBlock = (blocks: Block[], path: string) => {
  const b = blocks.find((x) => x.file === path);
  if (!b) throw new Error(`README has no recipe block file=${path}`);
  return b.text;
};
function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.log(`(README's ${path.split("/").slice(-2).join("/")} written verbatim)`);
}

const RUNS: Record<string, (blocks: Block[]) => Promise<void>> = {
  /** README's first session, in a clone: the server, keys, chat, resume, stop, ingest, revoke; the clone stays clean. */
  async "first-session"(blocks) {
    const { clone } = workspace("first-session");
    await bash("bun install --silent\n", clone);
    const out = await bash(`${shell(blocks)}\nwait\n`, clone);
    expectIn(out, '"type":"start"', '"type":"end"', "Wombats", '"code":"unauthorized"', "204");
    log("git status --porcelain (must be empty)");
    const status = Bun.spawnSync(["git", "status", "--porcelain"], { cwd: clone }).stdout.toString();
    console.log(status || "(clean)");
    if (status.trim()) throw new Error("the first session left files in the repository");
  },

  /** README's knowledge-base walkthrough, in a clone: each promised step, checked in its answer. */
  async "kb-walkthrough"(blocks) {
    const { clone } = workspace("kb-walkthrough");
    await bash("bun install --silent\n", clone);
    const out = await bash(`${shell(blocks)}\nwait\n`, clone);
    checkKbWalkthrough(out);
    log("git status --porcelain (must be empty)");
    const status = Bun.spawnSync(["git", "status", "--porcelain"], { cwd: clone }).stdout.toString();
    console.log(status || "(clean)");
    if (status.trim()) throw new Error("the walkthrough left files in the repository");
  },

  /** README's "Operate it", in a clone: metrics, usage, feedback and traces as promised. */
  async operate(blocks) {
    const { clone } = workspace("operate");
    await bash("bun install --silent\n", clone);
    const out = await bash(`${shell(blocks)}\nwait\n`, clone);
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
    log("git status --porcelain (must be empty)");
    const status = Bun.spawnSync(["git", "status", "--porcelain"], { cwd: clone }).stdout.toString();
    console.log(status || "(clean)");
    if (status.trim()) throw new Error("the recipe left files in the repository");
  },

  /** The embedding snippet on Bun: the packed server package in a new app, its data folder created by the library. */
  async "embed-bun"(blocks) {
    const { work, clone } = workspace("embed-bun");
    await bash(shell(blocks), clone);
    const app = join(work, "my-app");
    write(join(app, "app.ts"), fileBlock(blocks, "app.ts"));
    const srv = background(["bun", "app.ts"], app);
    try {
      const home = await answers(`http://127.0.0.1:${PORT}/`);
      const text = await home.text();
      console.log(`GET / → ${home.status} ${text}`);
      if (text !== "my app") throw new Error("the app's own route did not answer");
      const api = await fetch(`http://127.0.0.1:${PORT}/chat-api/v1/conversations`, {
        headers: { authorization: "Bearer prl_0000000000000000000000000000000000000000000" },
      });
      const body = await api.text();
      console.log(`GET /chat-api/v1/conversations (unknown key) → ${api.status} ${body}`);
      if (api.status !== 401 || !body.includes('"unauthorized"')) throw new Error("Parley's routes did not answer");
    } finally {
      await srv.stop();
    }
    if (!existsSync(join(app, "data/pg/PG_VERSION"))) throw new Error("no PGlite store in my-app/data/pg");
    console.log("my-app/data/pg holds the store; node_modules/parley-server:");
    const pkg = join(app, "node_modules/parley-server");
    for (const bad of ["data", "dist", ".git"])
      if (existsSync(join(pkg, bad))) throw new Error(`the installed package contains ${bad}/`);
    console.log("  no data/, dist/ or .git");
  },

  /** The Deno workspace recipe from a clean folder, then README's app/main.ts on Deno. */
  async "deno-workspace"(blocks) {
    const work = mkdtempSync(join(tmpdir(), "parley-recipe-deno-workspace-"));
    made.push(work);
    // The one placeholder: where the repository is cloned from.
    await bash(shell(blocks).replace("<parley repository>", ROOT), work);
    write(join(work, "app/main.ts"), fileBlock(blocks, "app/main.ts"));
    const srv = background(["deno", "run", "-A", "app/main.ts"], work);
    try {
      const url = `http://127.0.0.1:${PORT}/chat-api/v1/conversations`;
      await answers(url);
      // An unknown key: the plugin looks it up in the store (a 401, not a 503, says the store works).
      const res = await fetch(url, {
        headers: { authorization: "Bearer prl_0000000000000000000000000000000000000000000" },
      });
      const body = await res.text();
      console.log(`GET /chat-api/v1/conversations (unknown key) → ${res.status} ${body}`);
      if (res.status !== 401 || !body.includes('"unauthorized"')) throw new Error("Parley on Deno did not answer");
    } finally {
      await srv.stop();
    }
  },

  /** The packed client on Node against the server running in a clone. */
  async "client-node"(blocks) {
    const { work, clone } = workspace("client-node");
    await bash("bun install --silent\n", clone);
    write(join(work, "client-demo/demo.mjs"), fileBlock(blocks, "demo.mjs"));
    const srv = background(["bun", "start"], clone);
    try {
      await answers(`http://127.0.0.1:${PORT}/healthz`);
      const out = await bash(shell(blocks), clone);
      expectIn(out, /request req_\w+ remaining this minute \d+/, "assistant completed", "404 not_found req_");
    } finally {
      await srv.stop();
    }
  },
};

/** `npm publish --dry-run` of both packages: their names, and nothing that must not ship. */
async function publishDryRun(): Promise<void> {
  const { clone } = workspace("publish");
  await bash("bun install --silent && bun run build:client\n", clone);
  for (const dir of [clone, join(clone, "packages/client")]) {
    log(`npm publish --dry-run (${dir === clone ? "server" : "client"} package)`);
    const r = Bun.spawnSync(["npm", "publish", "--dry-run", "--ignore-scripts", "--json"], {
      cwd: dir,
      stderr: "pipe",
      stdout: "pipe",
      env: { ...process.env, npm_config_update_notifier: "false" },
    });
    const text = r.stdout.toString();
    const warnings = r.stderr
      .toString()
      .split("\n")
      .filter((l) => l.startsWith("npm warn") && !/nodedir|requires you to be logged in/.test(l));
    if (r.exitCode !== 0) throw new Error(`npm publish --dry-run failed:\n${r.stderr}`);
    const info = JSON.parse(text.slice(text.indexOf("{")));
    const pack = info[Object.keys(info)[0]!] ?? info;
    const files: string[] = (pack.files ?? []).map((f: { path: string }) => f.path);
    console.log(`${pack.name}@${pack.version}: ${files.length} files, ${pack.size} bytes packed`);
    const bad = files.filter((f) => /^(data|\.git)\//.test(f) || /^dist\/parley$/.test(f) || f.endsWith(".tgz"));
    if (bad.length) throw new Error(`the tarball contains ${bad.join(", ")}`);
    if (warnings.length) throw new Error(`npm warned:\n${warnings.join("\n")}`);
  }
}

if (import.meta.main) {
  const all = recipes(readFileSync(join(ROOT, "README.md"), "utf8"));
  const wanted = process.argv.slice(2);
  const names = wanted.length ? wanted : [...Object.keys(RUNS), "publish"];
  let failed = 0;
  for (const name of names) {
    log(`recipe ${name}`);
    try {
      if (name === "publish") await publishDryRun();
      else {
        const blocks = all.get(name);
        if (!blocks || !RUNS[name]) throw new Error(`no recipe ${name} in README.md or here`);
        if (!(await portFree())) throw new Error(`port ${PORT} is in use: the recipes need it`);
        await RUNS[name](blocks);
      }
      console.log(`### recipe ${name}: ok`);
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    } catch (e) {
      failed++;
      console.log(`### recipe ${name}: FAILED — ${(e as Error).message}`);
    }
  }
  const unknown = [...all.keys()].filter((n) => !RUNS[n]);
  if (unknown.length) {
    failed++;
    console.log(`### README recipes this script does not run: ${unknown.join(", ")}`);
  }
  console.log(`recipes: ${names.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
