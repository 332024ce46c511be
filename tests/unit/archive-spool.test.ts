import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { spooled } from "../../src/db/archive/spool.ts";

const leftovers = () => readdirSync(tmpdir()).filter((f) => f.startsWith("parley-archive-"));

describe("spooled archive", () => {
  test("the source is read to its end before the first byte is handed out; the bytes are the same; no file stays", async () => {
    const before = leftovers().length;
    const chunks = Array.from({ length: 50 }, (_, i) => new Uint8Array(10_000).fill(i));
    let read = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(c) {
        if (read === chunks.length) return c.close();
        c.enqueue(chunks[read++]!);
      },
    });
    const reader = spooled(source).getReader();
    const first = await reader.read();
    expect(read).toBe(chunks.length); // spooled whole, whatever the reader's pace
    const parts = [first.value!];
    for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
    const all = new Uint8Array(await new Blob(parts as Uint8Array<ArrayBuffer>[]).arrayBuffer());
    expect(all).toEqual(new Uint8Array(await new Blob(chunks).arrayBuffer()));
    expect(leftovers().length).toBe(before);
  });

  test("a source that fails fails the stream, and no file stays", async () => {
    const before = leftovers().length;
    const source = new ReadableStream<Uint8Array>({
      pull(c) {
        c.error(new Error("snapshot failed"));
      },
    });
    expect(new Response(spooled(source)).arrayBuffer()).rejects.toThrow("snapshot failed");
    await Bun.sleep(0);
    expect(leftovers().length).toBe(before);
  });
});
