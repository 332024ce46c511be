/** A host app's pino instance works as Parley's logger: same `(fields, msg)` order, no secrets. */
import { expect, setDefaultTimeout, test } from "bun:test";
import pino from "pino";
import { scriptedAgent } from "./helpers/agents.ts";
import { expectStatus, harness, send, testApp } from "./helpers/app.ts";
import { lineSink } from "./helpers/log.ts";

setDefaultTimeout(30_000);
const h = await harness();

test("pino as the logger: access lines with fields, never the key", async () => {
  const sink = lineSink();
  const logger = pino({ level: "info" }, { write: (s: string) => sink.write(s) });
  const app = testApp({ store: h.store, logger, agent: scriptedAgent(["hi"]) });
  const key = await h.key();
  expectStatus(await send(app, "POST", "/v1/chat", { key, json: { message: "hello" } }), 200);
  await sink.waitFor((e) => e.msg === "request"); // the after-response hook runs on the next turn
  const access = sink.entries().filter((e) => e.msg === "request");
  expect(access).toHaveLength(1);
  expect(access[0]).toMatchObject({ level: 30, method: "POST", route: "/v1/chat", status: 200 });
  expect(access[0]!.key_id).toMatch(/^key_/);
  expect(sink.lines.join("")).not.toContain(key);
});
