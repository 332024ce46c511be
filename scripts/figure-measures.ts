/**
 * The measurements behind README's figures (scripts/readme-figures.ts): each reads or makes the
 * artefact a reader would have and measures it the way README states it.
 */
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startToFirst200 } from "./binary-start.ts";
import { buildClient, CLIENT_PACKAGE } from "./build-client.ts";

const ROOT = join(import.meta.dir, "..");
const BINARY = join(ROOT, "dist/parley");

/** A figure: what it is (for the transcript), its kind (for the tolerance), how it is measured and written. */
export interface Figure {
  what: string;
  kind: "size" | "time";
  /** The measurement, as README writes it ("128 MiB", "1.1 s"). */
  measure(): Promise<string>;
}

const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
const kb = (bytes: number) => `${Math.round(bytes / 1000)} KB`;
const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const fastest = (ms: number[]) => seconds(Math.min(...ms));

function binary(): string {
  if (!existsSync(BINARY)) throw new Error("dist/parley is missing: `bun run build` makes it");
  return BINARY;
}

/**
 * Start to first 200, three times each; the figure is the fastest: the run least slowed by other
 * jobs on a shared machine, so the figure that moves least with the load (a median does more).
 */
let startTimes: Promise<{ fresh: number[]; existing: number[] }> | undefined;
function measureStarts() {
  startTimes ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "parley-figures-"));
    try {
      const folders = [1, 2, 3].map((i) => join(dir, `data-${i}`));
      const fresh: number[] = [];
      const existing: number[] = [];
      for (const f of folders) fresh.push(await startToFirst200(binary(), f));
      for (const f of folders) existing.push(await startToFirst200(binary(), f));
      return { fresh, existing };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();
  return startTimes;
}

function run(cmd: string[], cwd: string): string {
  const r = Bun.spawnSync(cmd, {
    cwd,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed:\n${r.stderr}`);
  return r.stdout.toString();
}

/** Bytes of the regular files under `dir` (apparent sizes, each file once however often it is linked). */
function treeBytes(dir: string, seen = new Set<string>()): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += treeBytes(p, seen);
    else if (e.isFile()) {
      const s = lstatSync(p);
      const id = `${s.dev}:${s.ino}`;
      if (!seen.has(id)) total += s.size;
      seen.add(id);
    }
  }
  return total;
}

export const FIGURES: Record<string, Figure> = {
  "binary-size": {
    what: "dist/parley, the single binary (`bun run build`)",
    kind: "size",
    measure: async () => mib(statSync(binary()).size),
  },
  "binary-start-existing": {
    what: "the binary's start to first 200 on an existing data folder (fastest of 3)",
    kind: "time",
    measure: async () => fastest((await measureStarts()).existing),
  },
  "binary-start-new": {
    what: "the binary's start to first 200 on a new data folder, PGlite initdb (fastest of 3)",
    kind: "time",
    measure: async () => fastest((await measureStarts()).fresh),
  },
  "client-unpacked": {
    what: "parley-client's unpacked size (`npm pack --dry-run` after `bun run build:client`)",
    kind: "size",
    async measure() {
      await buildClient();
      const out = run(["npm", "pack", "--dry-run", "--json", "--ignore-scripts"], CLIENT_PACKAGE);
      return kb(JSON.parse(out.slice(out.indexOf("[")))[0].unpackedSize);
    },
  },
  "server-install": {
    what: "an app's node_modules after installing parley-server and elysia (README, Embedding)",
    kind: "size",
    async measure() {
      const app = mkdtempSync(join(tmpdir(), "parley-figures-app-"));
      try {
        const tgz = run(["npm", "pack", "--ignore-scripts", "--silent", "--pack-destination", app], ROOT).trim();
        run(["bun", "add", `./${tgz.split("\n").at(-1)}`, "elysia"], app);
        return mb(treeBytes(join(app, "node_modules")));
      } finally {
        rmSync(app, { recursive: true, force: true });
      }
    },
  },
};
