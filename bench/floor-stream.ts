/**
 * The streaming floor: a bare Bun.serve that answers every request with an SSE stream of bytes —
 * a start event, keep-alives every second, and on SIGUSR2 one token carrying the broadcast time
 * then end. No framework, no database, no run: what 1,000 idle streams and a broadcast cost at
 * the bottom of our own stack, for the same client (bench/stream-clients.ts).
 */
const encoder = new TextEncoder();
const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
const frame = (e: unknown) => encoder.encode(`data: ${JSON.stringify(e)}\n\n`);

setInterval(() => {
  for (const c of streams) c.enqueue(encoder.encode(": ping\n\n"));
}, 1_000);

process.on("SIGUSR1", () => Bun.gc(true));
process.on("SIGUSR2", () => {
  const at = String(performance.timeOrigin + performance.now());
  for (const c of streams) {
    c.enqueue(frame({ type: "token", content: at }));
    c.enqueue(frame({ type: "end", message_id: "msg_floor" }));
    c.close();
  }
  streams.clear();
});

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  idleTimeout: 30,
  async fetch(req) {
    await req.text();
    let ctrl: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        ctrl = c;
        streams.add(c);
        c.enqueue(frame({ type: "start", conversation_id: "conv_floor" }));
      },
      cancel: () => void streams.delete(ctrl),
    });
    return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  },
});
console.log(`ready ${server.port}`);
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
