/**
 * An upload over a real socket that lasts longer than the server's idle timeout completes while
 * its chunks keep coming: the upload route lifts Bun's cut-off (counted from the request's
 * start) and bounds the pause between chunks instead (`uploadIdleMs`). In this lane because it
 * waits out real time: Bun's cut-off is counted in ticks of 4 s, so an idleTimeout of 5 s cuts
 * a request 4 to 8 s after it began, and this upload lasts 8.5 s.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { createApp } from "../../src/app/app.ts";
import { createLogger } from "../../src/config/logger.ts";
import { expectStatus, harness } from "../helpers/app.ts";

setDefaultTimeout(60_000);

const h = await harness();
const admin = await h.admin();

test("over a socket, an upload longer than the server's idle timeout completes while its chunks keep coming", async () => {
  const created = await h.call("POST", "/v1/knowledge_bases", {
    key: admin,
    json: { name: `kb-${crypto.randomUUID().slice(0, 8)}` },
  });
  expectStatus(created, 201);
  const slow = createApp({ store: h.store, logger: createLogger("silent"), options: { uploadIdleMs: 2_000 } });
  afterAll(() => slow.parley.close());
  const srv = slow.listen({ port: 0, hostname: "127.0.0.1", idleTimeout: 5 });
  try {
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (i === 10) return c.close();
        await new Promise((r) => setTimeout(r, 850));
        c.enqueue(new TextEncoder().encode(`${JSON.stringify({ url: `https://sock.test/${i++}`, content: "x" })}\n`));
      },
    });
    const res = await fetch(`http://127.0.0.1:${srv.server!.port}/v1/knowledge_bases/${created.json.id}/documents`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/x-ndjson" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { created: number }).created).toBe(10);
  } finally {
    await srv.stop(true);
  }
});
