/**
 * Deno smoke test of the model agent: the plugin with `llmAgent` on PGlite, served by
 * Deno.serve, answering through loopback OpenAI-compatible and Anthropic servers (the tests'
 * fakes, also served by Deno.serve): streamed tokens, usage, cited source, a provider error.
 * Run: deno run -A tests/deno/llm-smoke.ts
 */

import { createClient, ParleyError } from "../../src/client/index.ts";
import { createParley, type LlmProvider, llmAgent } from "../../src/mod.ts";
import { anthropicProtocol } from "../helpers/fake-anthropic.ts";
import { openaiProtocol } from "../helpers/fake-openai.ts";
import { type FakeProvider, fakeHandler, type Protocol } from "../helpers/fake-provider.ts";
import { checker, smokeStore } from "./setup.ts";

const check: (cond: unknown, what: string) => asserts cond = checker("deno llm smoke");

const { store, secret } = await smokeStore();
const servers: Deno.HttpServer[] = [];
const closers: (() => Promise<void>)[] = [];
const ac = new AbortController();

function serveFake(protocol: Protocol): FakeProvider & { url: string } {
  const fake = {
    received: [],
    script: [],
    fallback: { tokens: ["Parley", " runs", " on", " Deno", " [1]."], usage: { input: 30, output: 5 } },
  } as unknown as FakeProvider;
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} },
    fakeHandler(protocol, fake),
  );
  servers.push(server);
  fake.url = `http://127.0.0.1:${server.addr.port}`;
  return fake;
}

try {
  for (const [provider, protocol] of [
    ["openai-compatible", openaiProtocol],
    ["anthropic", anthropicProtocol],
  ] as [LlmProvider, Protocol][]) {
    const fake = serveFake(protocol);
    const agent = llmAgent(store.db, { provider, model: "deno-model", baseUrl: `${fake.url}/v1`, apiKey: "sk-deno" });
    const app = createParley({ store, agent });
    closers.push(() => app.close());
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} }, app.fetch);
    servers.push(server);
    const client = createClient({ baseUrl: `http://127.0.0.1:${server.addr.port}`, apiKey: secret });

    let text = "";
    let end: unknown;
    let sources: string[] = [];
    for await (const e of client.chatStream({ message: "Does Parley run on Deno?" })) {
      if (e.type === "token") text += e.content;
      if (e.type === "sources") sources = e.sources;
      if (e.type === "end") end = e.usage;
    }
    check(
      text === "Parley runs on Deno [1]." && JSON.stringify(end) === '{"inputTokens":30,"outputTokens":5}',
      `${provider}: streamed reply with usage`,
    );
    check(sources[0] === "https://smoke.test/deno", `${provider}: the cited source`);
    check(JSON.stringify(fake.received[0]?.body).includes("Deno.serve"), `${provider}: the provider got the passage`);

    fake.script.push({ status: 401, errorMessage: "bad key sk-deno" });
    const refused = await client.chat({ message: "Does Parley run on Deno?" }).then(
      () => null,
      (e: ParleyError) => e,
    );
    check(
      refused instanceof ParleyError &&
        refused.status === 502 &&
        refused.code === "upstream_error" &&
        !refused.message.includes("sk-deno"),
      `${provider}: 401 upstream → 502 upstream_error`,
    );
  }
} finally {
  ac.abort();
  await Promise.all(servers.map((s) => s.finished));
  for (const close of closers) await close();
  await store.close();
}
