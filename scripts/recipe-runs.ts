/**
 * How each README recipe is run: what a reader does around its blocks (install, start the server
 * the section says is running, write the files it says to save, stop what was started), then its
 * checks. Every run takes the workspace it runs in, so the same run serves a recipe alone (a
 * fresh clone) and the whole README in order (scripts/recipe-story.ts: one clone, one data folder).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  checkBackups,
  checkClientNode,
  checkFirstSession,
  checkKbWalkthrough,
  checkMcp,
  checkOpenAI,
  checkOperate,
  checkWebSources,
  checkWidget,
} from "./recipe-checks.ts";
import {
  answers,
  type Block,
  background,
  bash,
  fileBlock,
  install,
  log,
  PORT,
  ROOT,
  shell,
  type Workspace,
  withServer,
  write,
} from "./recipe-kit.ts";

/** An unknown key: the plugin looks it up in the store (a 401, not a 503, says the store works). */
const UNKNOWN_KEY = { authorization: "Bearer prl_0000000000000000000000000000000000000000000" };

/** `git status --porcelain` of the clone: what differs from the commit. */
const statusOf = (clone: string) => Bun.spawnSync(["git", "status", "--porcelain"], { cwd: clone }).stdout.toString();

/**
 * The sections run from the repository must leave it as they found it (`data/` is ignored). In
 * the story, earlier sections' files (ask.mjs, mcp.mjs) are there already: only new ones count.
 */
function expectClean(clone: string, before: string) {
  log("git status --porcelain (nothing new)");
  const seen = new Set(before.split("\n"));
  const added = statusOf(clone)
    .split("\n")
    .filter((line) => line && !seen.has(line));
  console.log(added.join("\n") || "(nothing new)");
  if (added.length) throw new Error("the recipe left files in the repository");
}

/** A section that starts (and stops) its own server: its blocks as one script, then its checks. */
async function selfServed(blocks: Block[], ws: Workspace, checks: (out: string) => void) {
  await install(ws);
  const before = statusOf(ws.clone);
  const out = await bash(`${shell(blocks)}\nwait\n`, ws.clone);
  checks(out);
  expectClean(ws.clone, before);
}

/** A section run "with the server running", with the files it says to save written first. */
async function served(blocks: Block[], ws: Workspace, files: Record<string, string>, checks: (out: string) => void) {
  await install(ws);
  for (const [path, to] of Object.entries(files)) write(to, fileBlock(blocks, path));
  checks(await withServer(ws.clone, () => bash(shell(blocks), ws.clone)));
}

export const RUNS: Record<string, (blocks: Block[], ws: Workspace) => Promise<void>> = {
  /** The server, keys, chat, resume, stop, ingest, revoke; the clone stays clean. */
  "first-session": (blocks, ws) => selfServed(blocks, ws, checkFirstSession),

  /** Metrics, usage, feedback and traces as promised. */
  operate: (blocks, ws) => selfServed(blocks, ws, checkOperate),

  /** A backup while serving (CLI and HTTP), a dry run, a restore into a new folder that serves it. */
  backups: (blocks, ws) => selfServed(blocks, ws, checkBackups),

  /** The knowledge-base walkthrough: each promised step, checked in its answer. */
  "kb-walkthrough": (blocks, ws) => selfServed(blocks, ws, checkKbWalkthrough),

  /** A web source against the repository's example site: first sync, answers, a re-sync with 304s. */
  "web-sources": (blocks, ws) => selfServed(blocks, ws, checkWebSources),

  /** A public key, a visitor session and what its token may not do, with curl as the page. */
  widget: (blocks, ws) => selfServed(blocks, ws, checkWidget),

  /** Chat Completions over curl, then the `openai` SDK on Node (ask.mjs in the repository). */
  "openai-clients": (blocks, ws) => served(blocks, ws, { "ask.mjs": join(ws.clone, "ask.mjs") }, checkOpenAI),

  /** The MCP SDK's client on Node (mcp.mjs in the repository). */
  "mcp-clients": (blocks, ws) => served(blocks, ws, { "mcp.mjs": join(ws.clone, "mcp.mjs") }, checkMcp),

  /** The packed server package in a new app, its data folder created by the library. */
  async "embed-bun"(blocks, ws) {
    await bash(shell(blocks), ws.clone);
    const app = join(ws.work, "my-app");
    write(join(app, "app.ts"), fileBlock(blocks, "app.ts"));
    const srv = background(["bun", "app.ts"], app);
    try {
      const home = await answers(`http://127.0.0.1:${PORT}/`);
      const text = await home.text();
      console.log(`GET / → ${home.status} ${text}`);
      if (text !== "my app") throw new Error("the app's own route did not answer");
      const api = await fetch(`http://127.0.0.1:${PORT}/chat-api/v1/conversations`, { headers: UNKNOWN_KEY });
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

  /** The Deno workspace recipe from a new, empty folder, then README's app/main.ts on Deno. */
  async "deno-workspace"(blocks, ws) {
    const dir = join(ws.work, "deno-app");
    mkdirSync(dir);
    // The one placeholder: where the repository is cloned from.
    await bash(shell(blocks).replace("<parley repository>", ROOT), dir);
    write(join(dir, "app/main.ts"), fileBlock(blocks, "app/main.ts"));
    const srv = background(["deno", "run", "-A", "app/main.ts"], dir);
    try {
      const url = `http://127.0.0.1:${PORT}/chat-api/v1/conversations`;
      await answers(url);
      const res = await fetch(url, { headers: UNKNOWN_KEY });
      const body = await res.text();
      console.log(`GET /chat-api/v1/conversations (unknown key) → ${res.status} ${body}`);
      if (res.status !== 401 || !body.includes('"unauthorized"')) throw new Error("Parley on Deno did not answer");
    } finally {
      await srv.stop();
    }
  },

  /** The packed client on Node (client-demo next to the clone) against the server running in the clone. */
  "client-node": (blocks, ws) =>
    served(blocks, ws, { "demo.mjs": join(ws.work, "client-demo/demo.mjs") }, checkClientNode),
};
