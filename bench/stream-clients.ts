/**
 * Holds N chat streams open against a server running the `hold` agent. Prints `open` once every
 * stream has its `start` event, then, after the broadcast, one JSON line with each stream's
 * delay between the broadcast and the token's arrival here (ms). Run with a raised
 * BUN_CONFIG_MAX_HTTP_REQUESTS so Bun's fetch keeps N connections.
 */
import { createParser } from "eventsource-parser";

const [url, key, nArg] = process.argv.slice(2);
const n = Number(nArg);
let opened = 0;
const delays: number[] = [];

async function one(started: () => void): Promise<void> {
  const res = await fetch(`${url}/v1/chat`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ message: "hold", stream: true }),
  });
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  const parser = createParser({
    onEvent: (e) => {
      const ev = JSON.parse(e.data);
      if (ev.type === "start") {
        started();
        if (++opened === n) console.log("open");
      }
      if (ev.type === "token") delays.push(performance.timeOrigin + performance.now() - Number(ev.content));
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) parser.feed(decoder.decode(chunk, { stream: true }));
}

// Open gradually, at most OPENING streams waiting for their `start` at a time: a burst of N
// requests measures the accept queue and the database pool's wait bound (10,000 at once got 503s
// after 5 s in the pool's queue), not idle streams.
const OPENING = 64;
let waiting = 0;
let wake = () => {};
const all: Promise<void>[] = [];
for (let i = 0; i < n; i++) {
  while (waiting >= OPENING) await new Promise<void>((r) => (wake = r));
  waiting++;
  all.push(
    one(() => {
      waiting--;
      wake();
    }),
  );
}
await Promise.all(all);
console.log(JSON.stringify({ delays }));
