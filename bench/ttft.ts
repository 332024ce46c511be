/**
 * Time to first token added by Parley: the same loopback OpenAI-compatible provider (own process),
 * called directly (a streamed Chat Completions request, until the first content delta) and through
 * Parley (POST /v1/chat stream:true with LLM_PROVIDER pointing at it, until the first `token`
 * event: auth, limiter, conversation and message writes, knowledge search, the AI SDK call).
 * Sequential requests, alternating, so the two see the same machine; p50/p99 of each. For the
 * split, the same chat through Parley with an instant agent (no search, no provider): Parley's
 * own request path (auth, limiter, the conversation and message writes, on PostgreSQL). And the
 * same chat through the OpenAI-compatible door (POST /v1/chat/completions), until its first
 * content delta, against POST /v1/chat on the same server and model fake.
 */
import { percentile, startServer } from "./lib.ts";

const ROUNDS = Number(process.env.BENCH_TTFT_ROUNDS ?? 300);

/** Milliseconds from sending `req` to the first chunk whose text so far matches `first`. */
async function ttft(url: string, init: RequestInit, first: RegExp): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, init);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let at = Number.NaN;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (Number.isNaN(at) && first.test(text)) at = performance.now() - t0; // then drain: the reply completes as usual
  }
  if (Number.isNaN(at)) throw new Error(`no first token from ${url}: ${text.slice(0, 200)}`);
  return at;
}

export async function benchTtft(dbUrl: string, key: string) {
  const provider = await startServer("bench/fake-provider.ts", { BENCH_FAKE_TOKENS: "20" });
  const parley = await startServer("bench/server.ts", {
    DATABASE_URL: dbUrl,
    BENCH_AGENT: "llm",
    LLM_PROVIDER: "openai-compatible",
    LLM_BASE_URL: `${provider.url}/v1`,
    LLM_MODEL: "bench-model",
    LLM_API_KEY: "sk-bench",
  });
  const instant = await startServer("bench/server.ts", { DATABASE_URL: dbUrl, BENCH_AGENT: "instant:20" });
  try {
    const direct = () =>
      ttft(
        `${provider.url}/v1/chat/completions`,
        {
          method: "POST",
          headers: { authorization: "Bearer sk-bench", "content-type": "application/json" },
          body: JSON.stringify({
            model: "bench-model",
            stream: true,
            stream_options: { include_usage: true },
            messages: [{ role: "user", content: "How do rate limits work?" }],
          }),
        },
        /"delta":\{"content":"[^"]/,
      );
    const through = (server = parley) =>
      ttft(
        `${server.url}/v1/chat`,
        {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ message: "How do rate limits work?", stream: true }),
        },
        /"type":"token"/,
      );
    // The same chat through the OpenAI-compatible door (POST /v1/chat/completions, stream: true),
    // until its first content delta: what the door adds on top of the chat service.
    const completions = () =>
      ttft(
        `${parley.url}/v1/chat/completions`,
        {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({
            model: "default",
            stream: true,
            messages: [{ role: "user", content: "How do rate limits work?" }],
          }),
        },
        /"delta":\{"content":"[^"]/,
      );
    for (let i = 0; i < 20; i++) await Promise.all([direct(), through(), through(instant), completions()]); // warm-up (JIT, connections)
    const a: number[] = [];
    const b: number[] = [];
    const c: number[] = [];
    const e: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      a.push(await direct());
      b.push(await through());
      c.push(await through(instant));
      e.push(await completions());
    }
    const stats = (xs: number[]) => ({ p50: percentile(xs, 50), p99: percentile(xs, 99) });
    const d = stats(a);
    const p = stats(b);
    return {
      rounds: ROUNDS,
      directMs: d,
      parleyMs: p,
      addedMs: { p50: p.p50 - d.p50, p99: p.p99 - d.p99 },
      instantAgentMs: stats(c),
      completionsMs: stats(e),
    };
  } finally {
    await Promise.all([parley.stop(), instant.stop(), provider.stop()]);
  }
}
