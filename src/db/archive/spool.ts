/**
 * An archive read at full speed into a temporary file, then handed out from there. On PGlite
 * the snapshot holds the store's only connection: streamed straight to a slow reader (a backup
 * downloaded over a thin link) it would hold every request for as long as the download takes;
 * spooled, requests wait only while the rows are read. The file is private (0600, in a 0700
 * folder) and unlinked as soon as it is open, so nothing is left behind, even by a crash.
 * `node:fs` (Bun and Deno both have it), as db/migrate.ts uses it.
 */
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const READ_BYTES = 64 * 1024;

export function spooled(source: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let file: Awaited<ReturnType<typeof open>> | undefined;
  return new ReadableStream<Uint8Array>({
    async start() {
      const dir = await mkdtemp(join(tmpdir(), "parley-archive-"));
      const path = join(dir, "archive");
      try {
        const out = await open(path, "w", 0o600);
        try {
          for await (const chunk of source as unknown as AsyncIterable<Uint8Array>) await out.write(chunk);
        } finally {
          await out.close();
        }
        file = await open(path, "r");
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    async pull(controller) {
      const buffer = new Uint8Array(READ_BYTES);
      const { bytesRead } = await file!.read(buffer, 0, READ_BYTES, null);
      if (bytesRead === 0) {
        await file!.close();
        controller.close();
      } else controller.enqueue(buffer.subarray(0, bytesRead));
    },
    async cancel() {
      await file?.close();
    },
  });
}
