/** Graceful shutdown: running replies finish within the grace period, or end with an error event. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { scriptedAgent, stuckAgent } from "./helpers/agents.ts";
import { harness, listen } from "./helpers/app.ts";
import { readSse } from "./helpers/sse.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

async function streamingServer(
  delayMs: number,
  tokens: number,
  agent = scriptedAgent(
    Array.from({ length: tokens }, (_, i) => ` w${i}`),
    { delayMs },
  ),
) {
  const h = await harness({ agent });
  const { url } = listen(h.app);
  const key = await h.key();
  const open = () =>
    fetch(`${url}/v1/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "go", stream: true }),
    });
  return { h, key, open };
}

describe("drain", () => {
  test("replies that finish within the grace period end normally", async () => {
    const { h, open } = await streamingServer(5, 10);
    const reading = readSse(await open());
    await h.replies.drain(2_000);
    const { events } = await reading;
    expect(events.at(-1).type).toBe("end");
    expect(h.replies.running).toBe(0);
  });

  test("replies still running after the grace period end with one error event and are stored as failed", async () => {
    const { h, key, open } = await streamingServer(20, 500);
    const reading = readSse(await open());
    await h.replies.drain(150);
    // Every run ended within the store wait (none left behind): no clock needed to tell.
    expect(h.replies.running).toBe(0);
    const { events } = await reading;
    expect(events.at(-1)).toMatchObject({ type: "error", error: { code: "service_unavailable" } });
    expect(events.filter((e) => e.type === "end" || e.type === "error")).toHaveLength(1);
    const conv = await h.call("GET", `/v1/conversations/${events[0].conversation_id}`, { key });
    expect(conv.json.messages[1]?.status).toBe("failed");
    expect(conv.json.messages[1]?.content).toBe(
      events
        .filter((e) => e.type === "token")
        .map((e) => e.content)
        .join(""),
    );
  });

  test("an agent that ignores its abort signal cannot hold shutdown: its reply is cut off and stored", async () => {
    const { h, key, open } = await streamingServer(0, 0, stuckAgent(["half", " a reply"]));
    const reading = readSse(await open());
    await h.replies.drain(150, 2_000);
    // The cut-off ended it although the agent never looked at its signal: no run is left behind.
    expect(h.replies.running).toBe(0);
    const { events } = await reading;
    expect(events.map((e) => e.type)).toEqual(["start", "token", "token", "error"]);
    const conv = await h.call("GET", `/v1/conversations/${events[0].conversation_id}`, { key });
    expect(conv.json.messages[1]).toMatchObject({ status: "failed", content: "half a reply" });
  });
});
