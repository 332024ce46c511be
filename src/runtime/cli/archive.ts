/**
 * `export`/`backup` and `import`: a store's archive to a file (or stdout), and an archive into an
 * empty store (src/db/archive). An export is written beside its name and renamed when whole, so
 * a file with the archive's name is never a half-written one. Bun/Node-only: CLI and server only.
 */
import { createWriteStream } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { Writable } from "node:stream";
import { type ArchiveHeader, importArchive } from "../../db/archive/index.ts";
import type { Db, Store } from "../../db/client.ts";
import { prepareVectorStore } from "../../knowledge/index.ts";
import type { Io } from "./io.ts";

export const EXPORT_USAGE = "usage: parley export|backup [--out FILE]   (without --out: to stdout)";
export const IMPORT_USAGE = "usage: parley import FILE [--dry-run]   (FILE - reads stdin)";

/** Writes `archive` to --out (whole or not at all) or to stdout; its exit code. */
export async function writeArchive(archive: ReadableStream<Uint8Array>, rest: string[], io: Io): Promise<number> {
  const out = rest.length === 2 && rest[0] === "--out" && !rest[1]!.startsWith("-") ? rest[1] : undefined;
  if (rest.length && !out) {
    io.err(EXPORT_USAGE);
    return 2;
  }
  const started = performance.now();
  if (!out) {
    await archive.pipeTo(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>);
    return 0;
  }
  const partial = `${out}.partial`;
  try {
    await archive.pipeTo(Writable.toWeb(createWriteStream(partial, { mode: 0o600 })) as WritableStream<Uint8Array>);
    await rename(partial, out);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  const { size } = await stat(out);
  io.out(
    `archive written: ${out} (${(size / 1e6).toFixed(1)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  return 0;
}

/** `import FILE [--dry-run]` into `store`; its exit code (1 when a dry run finds problems). */
export async function importCommand(store: Store, rest: string[], io: Io): Promise<number> {
  const dryRun = rest.includes("--dry-run");
  const files = rest.filter((a) => a !== "--dry-run");
  if (files.length !== 1 || (files[0]!.startsWith("-") && files[0] !== "-")) {
    io.err(IMPORT_USAGE);
    return 2;
  }
  const source = files[0] === "-" ? Bun.stdin.stream() : Bun.file(files[0]!).stream();
  const report = await importArchive(store, source, {
    dryRun,
    prepare: prepareVectors,
    onTable: (table) => io.err(`loading ${table}…`),
  });
  const { header } = report;
  io.out(
    `archive of Parley ${header.parley_version} (${header.store}, schema ${header.schema.last}, ${header.created_at})${
      header.embeddings ? `, embeddings ${header.embeddings.model} (${header.embeddings.dimensions})` : ""
    }`,
  );
  for (const [table, n] of Object.entries(report.counts)) io.out(`  ${table}: ${n} rows`);
  for (const problem of report.problems) io.err(`problem: ${problem}`);
  io.out(dryRun ? (report.problems.length ? "dry run: it would be refused" : "dry run: it would load") : "imported");
  return report.problems.length ? 1 : 0;
}

/** The vectors' table is made at start, not by a migration: made here from the archive's model. */
async function prepareVectors(header: ArchiveHeader, db: Db): Promise<void> {
  if (header.embeddings) await prepareVectorStore(db, header.embeddings.dimensions);
}
