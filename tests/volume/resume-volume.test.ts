/** Resume under load: 200 clients following one reply from random points, on two instances. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { conversation, eventsPath, get, post, readEvents, tokensOf, twoSlow } from "../helpers/instances.ts";

setDefaultTimeout(60_000); // per file: see bunfig.toml

describe("200 clients resuming at random points", () => {
  test("each reconstructs exactly the stored reply", async () => {
    const { a, b, key } = await twoSlow(150, 15);
    const first = await readEvents(await post(a.base, key, "/v1/chat", { message: "many", stream: true }), 1);
    const { conversation_id: convId, message_id: msgId } = first[0]!.data;
    const path = eventsPath(convId, msgId);
    const client = async (i: number) => {
      await new Promise((r) => setTimeout(r, Math.random() * 1_500));
      const [one, two] = i % 2 ? [a, b] : [b, a];
      const head = await readEvents(await get(one.base, key, path), 1 + Math.floor(Math.random() * 120));
      const last = head.at(-1)!;
      if (last.data.type === "end") return head;
      const tail = await readEvents(await get(two.base, key, path, { "last-event-id": String(last.id) }));
      return [...head, ...tail];
    };
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => client(i)));
    const stored = (await conversation(a.base, key, convId)).messages[1];
    expect(stored.status).toBe("completed");
    let exact = 0;
    for (const events of results) {
      const ids = events.map((e) => e.id);
      if (
        tokensOf(events) === stored.content &&
        ids.every((id, i) => id === i + 1) &&
        events.at(-1)!.data.type === "end"
      )
        exact++;
    }
    expect(exact).toBe(200);
  });
});
