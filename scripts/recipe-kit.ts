/**
 * What scripts/recipes.ts runs README's recipes with: the README parser, a temp workspace with a
 * fresh clone, bash with its transcript, a background server, and small transcript readers.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const ROOT = join(import.meta.dir, "..");
export const PORT = 3000;
/** Temp folders of the run going on now: removed when it passes, kept to look at when it fails. */
export const made: string[] = [];

export interface Block {
  lang: string;
  file?: string;
  text: string;
}

/** The README's recipe blocks, by name, in the order they first appear. */
export function recipes(readme: string): Map<string, Block[]> {
  const found = new Map<string, Block[]>();
  const re = /<!-- recipe: ([\w-]+)(?: file=(\S+))? -->\n```(\w*)\n([\s\S]*?)\n```/g;
  for (const m of readme.matchAll(re)) {
    const [, name, file, lang, text] = m;
    found.set(name!, [...(found.get(name!) ?? []), { lang: lang!, file, text: `${text}\n` }]);
  }
  return found;
}

export const log = (line: string) => console.log(`\n### ${line}`);

/**
 * Where recipes run: `work`, a temp folder, holding `clone`, a fresh clone of the repository.
 * One per recipe, or one for the whole story (then `installed` saves the later `bun install`s).
 */
export interface Workspace {
  work: string;
  clone: string;
  installed: boolean;
}

export function workspace(name: string): Workspace {
  const work = mkdtempSync(join(tmpdir(), `parley-recipe-${name}-`));
  made.push(work);
  const clone = join(work, "parley");
  const r = Bun.spawnSync(["git", "clone", "-q", ROOT, clone], { stdout: "inherit", stderr: "inherit" });
  if (r.exitCode !== 0) throw new Error("git clone failed");
  console.log(`(a fresh clone of the repository in ${clone})`);
  return { work, clone, installed: false };
}

/** `bun install` in the clone, as README's sections assume ("after `bun install`"), once per workspace. */
export async function install(ws: Workspace): Promise<void> {
  if (ws.installed) return;
  await bash("bun install --silent\n", ws.clone);
  ws.installed = true;
}

/** Runs a bash script in `cwd` (its own process group, ended afterwards), echoing each command and its output. */
export async function bash(script: string, cwd: string, env: Record<string, string> = {}): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "parley-recipe-sh-"));
  const file = join(dir, "recipe.sh");
  writeFileSync(file, script);
  const proc = Bun.spawn(["bash", "-x", file], {
    cwd,
    env: { ...process.env, PS4: "$ ", ...env },
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  let out = "";
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      out += text;
      process.stdout.write(text);
    }
  };
  await Promise.all([pump(proc.stdout), pump(proc.stderr), proc.exited]);
  endGroup(proc.pid);
  rmSync(dir, { recursive: true, force: true });
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
export function background(cmd: string[], cwd: string, env: Record<string, string> = {}) {
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

/** Runs `body` while `bun start` serves from `clone` (a recipe that says "with the server running"). */
export async function withServer<T>(clone: string, body: () => Promise<T>): Promise<T> {
  const srv = background(["bun", "start"], clone);
  try {
    await answers(`http://127.0.0.1:${PORT}/healthz`);
    return await body();
  } finally {
    await srv.stop();
  }
}

export async function portFree(): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${PORT}/`, { signal: AbortSignal.timeout(1_000) });
    return false;
  } catch {
    return true;
  }
}

/** Waits until `url` answers (any status), up to `ms`. */
export async function answers(url: string, ms = 180_000): Promise<Response> {
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

/** The recipe's shell blocks, in order, as one script. */
export const shell = (blocks: Block[]) =>
  blocks
    .filter((b) => !b.file)
    .map((b) => b.text)
    .join("\n");

/** The text of the recipe's block written to `path`. */
export const fileBlock = (blocks: Block[], path: string) => {
  const b = blocks.find((x) => x.file === path);
  if (!b) throw new Error(`README has no recipe block file=${path}`);
  return b.text;
};

export function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.log(`(README's ${path.split("/").slice(-2).join("/")} written verbatim)`);
}
