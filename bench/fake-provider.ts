/**
 * A loopback OpenAI-compatible provider in its own process for the bench (the tests' fake):
 * replies with BENCH_FAKE_TOKENS deltas, BENCH_FAKE_FIRST_MS before the first. Prints `ready <port>`.
 */
import { startFakeOpenAI } from "../tests/helpers/fake-openai.ts";

const tokens = Array.from({ length: Number(process.env.BENCH_FAKE_TOKENS ?? 20) }, (_, i) => ` w${i}`);
const fake = startFakeOpenAI({
  tokens,
  firstTokenDelayMs: Number(process.env.BENCH_FAKE_FIRST_MS ?? 0),
  usage: { input: 500, output: tokens.length },
});
// The bench sends thousands of requests: keep no record of them.
setInterval(() => {
  fake.received.length = 0;
}, 1_000);
console.log(`ready ${fake.port}`);
process.on("SIGTERM", async () => {
  await fake.stop();
  process.exit(0);
});
