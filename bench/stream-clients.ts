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

async function one(): Promise<void> {
  const res = await fetch(`${url}/v1/chat`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ message: "hold", stream: true }),
  });
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  const parser = createParser({
    onEvent: (e) => {
      const ev = JSON.parse(e.data);
      if (ev.type === "start" && ++opened === n) console.log("open");
      if (ev.type === "token") delays.push(performance.timeOrigin + performance.now() - Number(ev.content));
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) parser.feed(decoder.decode(chunk, { stream: true }));
}

// Open gradually: a burst of N connects at once measures the accept queue, not idle streams.
const all: Promise<void>[] = [];
for (let i = 0; i < n; i++) {
  all.push(one());
  if (i % 50 === 49) await Bun.sleep(20);
}
await Promise.all(all);
console.log(JSON.stringify({ delays }));
