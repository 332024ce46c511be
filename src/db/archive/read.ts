/**
 * Reads an archive (format.ts) a line at a time, checking it as it goes: the header first, rows
 * only under a table the header lists, the tables in its order, the trailer last with the counts
 * and the SHA-256 of what came before. Anything else — not gzip, cut short, edited, lines after
 * the end — is an ArchiveError saying what. A loader runs inside its transaction while reading,
 * so a bad archive is refused before anything it carried is committed.
 */
import { createHash } from "node:crypto";
import {
  ARCHIVE_FORMAT,
  ArchiveError,
  type ArchiveHeader,
  type ArchiveTrailer,
  MARKER_PREFIX,
  type TableMarker,
  TRAILER_PREFIX,
} from "./format.ts";

export type ArchivePart =
  | { kind: "table"; marker: TableMarker }
  | { kind: "row"; table: string; line: string }
  | { kind: "end"; trailer: ArchiveTrailer };

/** The longest line read: a row of the store (a large passage, its vectors) is far below. */
const MAX_LINE_CHARS = 64 * 1024 * 1024;

/** The archive's header, then its parts, checked (the iterator throws ArchiveError). */
export async function openArchive(
  source: ReadableStream<Uint8Array>,
): Promise<{ header: ArchiveHeader; parts: AsyncGenerator<ArchivePart> }> {
  const lines = linesOf(source);
  const first = await lines.next();
  if (first.done) throw new ArchiveError("the archive is empty");
  const header = parseHeader(first.value);
  return { header, parts: partsOf(header, first.value, lines) };
}

async function* partsOf(header: ArchiveHeader, headerLine: string, lines: AsyncGenerator<string>) {
  const hash = createHash("sha256").update(`${headerLine}\n`);
  const rowsHash = createHash("sha256");
  const counts: Record<string, number> = {};
  let table: string | undefined;
  let next = 0; // index in header.tables of the next table expected
  for await (const line of lines) {
    if (line.startsWith(TRAILER_PREFIX)) {
      const trailer = parseJson(line, "the trailer") as ArchiveTrailer;
      if (trailer.sha256 !== hash.digest("hex") || trailer.rows_sha256 !== rowsHash.digest("hex"))
        throw new ArchiveError("the archive's checksum does not match its content: it was edited or damaged");
      for (const name of header.tables)
        if ((counts[name] ?? -1) !== trailer.counts?.[name])
          throw new ArchiveError(`the archive's count for ${name} does not match its rows`);
      if (!(await lines.next()).done) throw new ArchiveError("the archive goes on after its end");
      yield { kind: "end", trailer } as const;
      return;
    }
    hash.update(`${line}\n`);
    rowsHash.update(`${line}\n`);
    if (line.startsWith(MARKER_PREFIX)) {
      const marker = parseJson(line, "a table marker") as TableMarker;
      if (marker.parley_table !== header.tables[next] || !Array.isArray(marker.columns))
        throw new ArchiveError(
          `the archive's table ${String(marker.parley_table)} is not the one its header lists next`,
        );
      table = marker.parley_table;
      counts[table] = 0;
      next++;
      yield { kind: "table", marker } as const;
    } else {
      if (!table || !line.startsWith("{")) throw new ArchiveError("the archive has a row outside any table");
      counts[table]!++;
      yield { kind: "row", table, line } as const;
    }
  }
  throw new ArchiveError("the archive is cut short: it has no end (an interrupted copy?)");
}

function parseHeader(line: string): ArchiveHeader {
  const header = parseJson(line, "the header") as Partial<ArchiveHeader>;
  if (header.parley_archive === undefined) throw new ArchiveError("this is not a Parley archive");
  if (header.parley_archive !== ARCHIVE_FORMAT)
    throw new ArchiveError(
      `the archive's format ${String(header.parley_archive)} is not one this release reads (${ARCHIVE_FORMAT}): import it with the release that wrote it (${String(header.parley_version)}) or a newer one`,
    );
  if (!header.schema?.hash || !Array.isArray(header.tables) || typeof header.parley_version !== "string")
    throw new ArchiveError("the archive's header is incomplete");
  return header as ArchiveHeader;
}

function parseJson(line: string, what: string): any {
  try {
    const value: unknown = JSON.parse(line);
    if (value && typeof value === "object" && !Array.isArray(value)) return value;
  } catch {}
  throw new ArchiveError(`${what} of the archive is not valid JSON: it was edited or damaged`);
}

/** The decompressed text, line by line; a stream that is not gzip or is cut is an ArchiveError. */
async function* linesOf(source: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = source
    .pipeThrough(new DecompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>)
    .pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>)
    .getReader();
  let rest = "";
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch {
        throw new ArchiveError("the archive is not a gzip stream, or is cut short");
      }
      if (chunk.done) break;
      rest += chunk.value;
      let start = 0;
      for (let at = rest.indexOf("\n"); at >= 0; at = rest.indexOf("\n", start)) {
        yield rest.slice(start, at);
        start = at + 1;
      }
      rest = rest.slice(start);
      if (rest.length > MAX_LINE_CHARS) throw new ArchiveError("the archive has a line longer than any row");
    }
    if (rest) throw new ArchiveError("the archive is cut short: its last line is incomplete");
  } finally {
    reader.releaseLock();
  }
}
