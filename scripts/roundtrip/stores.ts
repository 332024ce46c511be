/**
 * The round trip's stores and moves: a PGlite in a temporary folder, a PostgreSQL database made
 * for the run (and dropped after it), an export to a file and an import from one, each timed,
 * with the process's peak RSS sampled while it runs.
 */
import { cpSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { type ArchiveTrailer, exportArchive, importArchive, openArchive } from "../../src/db/archive/index.ts";
import { openPglite, openPostgres, type Store } from "../../src/mod.ts";

export interface OwnStore {
  store: Store;
  /** Closes the store and removes it (folder or database). */
  drop(): Promise<void>;
}

let template: Promise<string> | undefined;
let templateDir: string | undefined;

/** A folder initdb'd once per run (PGlite's initdb takes seconds): each new store starts as a copy. */
function initialized(): Promise<string> {
  template ??= (async () => {
    templateDir = mkdtempSync(join(tmpdir(), "parley-template-"));
    await (await openPglite(join(templateDir, "data"))).close();
    return join(templateDir, "data");
  })();
  return template;
}

/** Removes the initdb'd folder (at the end of the run). */
export function removeTemplate(): void {
  if (templateDir) rmSync(templateDir, { recursive: true, force: true });
}

/** A PGlite in a new temporary folder (not migrated: an import migrates it). */
export async function pgliteIn(prefix: string): Promise<OwnStore> {
  const dir = mkdtempSync(join(tmpdir(), `parley-${prefix}-`));
  cpSync(await initialized(), join(dir, "data"), { recursive: true });
  const store = await openPglite(join(dir, "data"));
  return {
    store,
    async drop() {
      await store.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A new PostgreSQL database on `adminUrl`'s server, named `name`. `timeZone` sets the database's
 * default TimeZone, as a server set up in a local time zone has it (initdb takes the system's).
 */
export async function postgresDb(adminUrl: string, name: string, timeZone?: string): Promise<OwnStore> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`bad database name ${name}`);
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  if (timeZone) await admin.unsafe(`alter database ${name} set timezone to '${timeZone.replace(/'/g, "")}'`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const store = openPostgres(url.toString(), { max: 10 });
  return {
    store,
    async drop() {
      await store.close().catch(() => {});
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** Samples the process's RSS every 20 ms while `fn` runs: its result, milliseconds and peak RSS. */
export async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; peakRss: number }> {
  let peakRss = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 20);
  const started = performance.now();
  try {
    const value = await fn();
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    return { value, ms: performance.now() - started, peakRss };
  } finally {
    clearInterval(timer);
  }
}

export interface Exported {
  file: string;
  bytes: number;
  ms: number;
  peakRss: number;
  /** RSS just before the export started. */
  rssBefore: number;
  trailer: ArchiveTrailer;
}

/** Exports `store` to `file`, then reads the file back through the archive reader (checked). */
export async function exportTo(store: Store, file: string): Promise<Exported> {
  Bun.gc(true);
  const rssBefore = process.memoryUsage().rss;
  const { ms, peakRss } = await measured(async () => {
    const sink = Bun.file(file).writer();
    for await (const chunk of exportArchive(store)) {
      sink.write(chunk);
      await sink.flush();
    }
    await sink.end();
  });
  return { file, bytes: statSync(file).size, ms, peakRss, rssBefore, trailer: await trailerOf(file) };
}

/** The archive's trailer, read through `openArchive` (which checks every line, count and checksum). */
export async function trailerOf(file: string): Promise<ArchiveTrailer> {
  const { parts } = await openArchive(Bun.file(file).stream());
  for await (const part of parts) if (part.kind === "end") return part.trailer;
  throw new Error(`${file}: no trailer`);
}

/** Imports `file` into `store` (empty): milliseconds and rows per table. */
export async function importFrom(store: Store, file: string): Promise<{ ms: number; counts: Record<string, number> }> {
  const { value, ms } = await measured(() => importArchive(store, Bun.file(file).stream()));
  return { ms, counts: value.counts };
}
