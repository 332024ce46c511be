/**
 * POST /v1/responses, GET and DELETE /v1/responses/:id through the official `openai` SDK
 * (responses.create streamed and not, retrieve, delete, previous_response_id, typed errors) over a
 * real listening server, with the retrieval agent.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import OpenAI from "openai";
import { scriptedAgent } from "./helpers/agents.ts";
import { type Harness, harness, listen } from "./helpers/app.ts";

setDefaultTimeout(30_000);

const QUESTION = "How do I validate a request body?";
let h: Harness;
let url: string;
let key: string;

beforeAll(async () => {
  h = await harness();
  url = listen(h.app).url;
  key = await h.key();
}, 120_000);

const client = (apiKey = key) => new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0 });

/** The output text's links, each annotated exactly. */
function expectLinked(
  text: string,
  annotations: { type: string; start_index: number; end_index: number; url: string; title: string }[],
) {
  const links = [...text.matchAll(/\[(\d+)\]\(([^)\s]+)\)/g)];
  expect(links.length).toBeGreaterThan(0);
  expect(annotations).toHaveLength(links.length);
  for (const [i, a] of annotations.entries()) {
    expect(a.type).toBe("url_citation");
    expect(text.slice(a.start_index, a.end_index)).toBe(links[i]![0]);
    expect(links[i]![2]).toBe(a.url);
    expect(a.title.length).toBeGreaterThan(0);
  }
}

describe("openai SDK: responses", () => {
  test("create: one message with output_text, url_citation annotations, usage; retrieve gives it back", async () => {
    const r = await client().responses.create({ model: "default", input: QUESTION });
    expect(r.id).toMatch(/^resp_/);
    expect(r.object).toBe("response");
    expect(r.status).toBe("completed");
    expect(r.model).toBe("default");
    expect(r.output).toHaveLength(1);
    const item = r.output[0]! as OpenAI.Responses.ResponseOutputMessage;
    expect(item).toMatchObject({ type: "message", role: "assistant", status: "completed" });
    expect(item.id).toMatch(/^msg_/);
    const part = item.content[0] as OpenAI.Responses.ResponseOutputText;
    expect(part.type).toBe("output_text");
    expectLinked(part.text, part.annotations as never);
    expect(r.output_text).toBe(part.text);
    expect(r.usage).toMatchObject({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });
    expect(r.id).toBe(`resp_${item.id.slice(4)}`);

    const again = await client().responses.retrieve(r.id);
    expect(again.output).toEqual(r.output);
    expect(again.status).toBe("completed");
  });

  test("stream: the documented events in order, sequence numbers, text = deltas, annotations", async () => {
    const stream = await client().responses.create({
      model: "default",
      input: [{ role: "user", content: [{ type: "input_text", text: QUESTION }] }],
      instructions: "Be brief.",
      stream: true,
    });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const e of stream) events.push(e);
    const types = [...new Set(events.map((e) => e.type))];
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.annotation.added",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const text = events.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : [])).join("");
    const done = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(done.response.instructions).toBe("Be brief.");
    const part = (done.response.output[0] as OpenAI.Responses.ResponseOutputMessage)
      .content[0] as OpenAI.Responses.ResponseOutputText;
    expect(part.text).toBe(text);
    expectLinked(text, part.annotations as never);
    const added = events.filter((e) => e.type === "response.output_text.annotation.added");
    expect(added.map((e) => (e as { annotation: unknown }).annotation)).toEqual(part.annotations);
  });

  test("previous_response_id continues the conversation; parley_citations: markers keeps plain markers", async () => {
    const first = await client().responses.create({ model: "default", input: "What is a plugin?" });
    const next = await client().responses.create({
      model: "default",
      input: "How do I add a prefix to it?",
      previous_response_id: first.id,
      // @ts-expect-error Parley's own option
      parley_citations: "markers",
    });
    expect(next.previous_response_id).toBe(first.id);
    expect(next.output_text).not.toMatch(/\]\(/);
    expect(next.output_text).toMatch(/\[1\]/);
    const conversations = await h.call("GET", "/v1/conversations?limit=1", { key });
    const conv = await h.call("GET", `/v1/conversations/${conversations.json.data[0]!.id}`, { key });
    expect(conv.json.messages.map((m: { role: string; content: string }) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(conv.json.messages[2]!.content).toBe("How do I add a prefix to it?");
    expect(`resp_${conv.json.messages[1]!.id.slice(4)}`).toBe(first.id);
  });

  test("delete removes it (retrieve then 404); store: false keeps nothing", async () => {
    const r = await client().responses.create({ model: "default", input: QUESTION });
    await client().responses.delete(r.id);
    const gone = await client()
      .responses.retrieve(r.id)
      .catch((x) => x);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    expect(gone.param).toBe("response_id");

    const unstored = await client().responses.create({ model: "default", input: QUESTION, store: false });
    expect((unstored as { store?: boolean }).store).toBe(false);
    expect(
      await client()
        .responses.retrieve(unstored.id)
        .catch((x) => x),
    ).toBeInstanceOf(OpenAI.NotFoundError);
    const streamed = await client().responses.create({ model: "default", input: QUESTION, store: false, stream: true });
    let id = "";
    for await (const e of streamed) if (e.type === "response.completed") id = e.response.id;
    expect(
      await client()
        .responses.retrieve(id)
        .catch((x) => x),
    ).toBeInstanceOf(OpenAI.NotFoundError);

    // A client that leaves mid-stream (a slow agent: the reply is still running): it ends and is forgotten all the same.
    const slow = await harness({ store: h.store, agent: scriptedAgent(["Slow", " and", " [1]."], { delayMs: 150 }) });
    const slowClient = new OpenAI({ apiKey: await slow.key(), baseURL: `${listen(slow.app).url}/v1`, maxRetries: 0 });
    const left = await slowClient.responses.create({ model: "default", input: QUESTION, store: false, stream: true });
    let leftId = "";
    for await (const e of left) {
      if (e.type === "response.created") leftId = e.response.id;
      break;
    }
    let found: unknown = null;
    for (let i = 0; i < 50; i++) {
      found = await slowClient.responses.retrieve(leftId).catch((x) => x);
      if (found instanceof OpenAI.NotFoundError) break;
      // Running, or — for the instant between its end and the forgetting that follows it — completed.
      expect(["in_progress", "completed"]).toContain(String((found as OpenAI.Responses.Response).status));
      await Bun.sleep(50);
    }
    expect(found).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("delete in a continued conversation: that turn only; the conversation goes with its last one", async () => {
    const first = await client().responses.create({ model: "default", input: "What is a plugin?" });
    const second = await client().responses.create({
      model: "default",
      input: "How do I add a prefix to it?",
      previous_response_id: first.id,
    });
    await client().responses.delete(first.id);
    const list = await h.call("GET", "/v1/conversations?limit=1", { key });
    const conv = await h.call("GET", `/v1/conversations/${list.json.data[0]!.id}`, { key });
    expect(conv.json.messages.map((m: { content: string }) => m.content)[0]).toBe("How do I add a prefix to it?");
    expect(conv.json.messages).toHaveLength(2);
    expect((await client().responses.retrieve(second.id)).id).toBe(second.id);
    await client().responses.delete(second.id);
    expect((await h.call("GET", `/v1/conversations/${list.json.data[0]!.id}`, { key })).status).toBe(404);
  });

  test("Idempotency-Key: a retry gets the same response, nothing new is stored", async () => {
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const body = { model: "default", input: QUESTION };
    const first = await client().responses.create(body, { headers });
    const before = await h.call("GET", "/v1/conversations?limit=100", { key });
    const again = await client().responses.create(body, { headers });
    expect(again.id).toBe(first.id);
    expect(again.output_text).toBe(first.output_text);
    const after = await h.call("GET", "/v1/conversations?limit=100", { key });
    expect(after.json.data.length).toBe(before.json.data.length);
  });

  test("what Parley cannot honour → BadRequestError naming the param; unknown ids and models → NotFoundError", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ tools: [{ type: "web_search" }] }, "tools"],
      [{ tool_choice: "required" }, "tool_choice"],
      [{ background: true }, "background"],
      [{ text: { format: { type: "json_schema", name: "x", schema: {} } } }, "text.format"],
      [
        { input: [{ role: "user", content: [{ type: "input_image", image_url: "https://x.test/a.png" }] }] },
        "input[0].content[0]",
      ],
      [{ input: [{ role: "user", content: [{ type: "input_file", file_id: "file_1" }] }] }, "input[0].content[0]"],
      [{ input: [{ type: "function_call_output", call_id: "c", output: "x" }] }, "input[0].type"],
      [{ input: [{ role: "assistant", content: "prefill" }] }, "input"],
      [{ temperature: 3 }, "temperature"],
    ];
    for (const [extra, param] of cases) {
      const e = await client()
        .responses.create({ model: "default", input: "hi", ...extra } as never)
        .catch((x) => x);
      expect({ extra, ok: e instanceof OpenAI.BadRequestError }).toEqual({ extra, ok: true });
      expect({ extra, param: e.param }).toEqual({ extra, param });
    }
    const e = await client()
      .responses.create({ model: "gpt-4o", input: "hi" })
      .catch((x) => x);
    expect(e).toBeInstanceOf(OpenAI.NotFoundError);
    expect(e.param).toBe("model");
    const ref = await client()
      .responses.create({
        model: "default",
        input: [
          { type: "item_reference", id: "msg_01m85g5npgfzrtbs7dcm30btjf" },
          { role: "user", content: "hi" },
        ],
      } as never)
      .catch((x) => x);
    expect(ref).toBeInstanceOf(OpenAI.NotFoundError);
    expect(ref.param).toBe("input[0].id");
    const p = await client()
      .responses.create({ model: "default", input: "hi", previous_response_id: "resp_nope" })
      .catch((x) => x);
    expect(p).toBeInstanceOf(OpenAI.NotFoundError);
    expect(p.param).toBe("previous_response_id");
    expect(
      await client("prl_not_a_real_key_000000000000000000")
        .responses.retrieve("resp_x")
        .catch((x) => x),
    ).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});

describe("streamed citations (a scripted agent that cites as it writes)", () => {
  test("text streams past each citation while the reply runs, each annotation right after its marker; the end equals the answer not streamed", async () => {
    const [a, b] = ["https://x.test/a", "https://x.test/b"];
    let open = () => {};
    const gate = new Promise<void>((r) => (open = r));
    const tokens = ["See [1]", " here and [", "2]", " there", " more [1]", " [3] end."];
    const growing = { 0: [a], 2: [a, b] };
    const agent = scriptedAgent(tokens, { growing, sources: [a, b], gate: { before: 4, open: gate } });
    const s = await harness({ store: h.store, agent });
    const openai = new OpenAI({ apiKey: await s.key(), baseURL: `${listen(s.app).url}/v1`, maxRetries: 0 });
    const seen: OpenAI.Responses.ResponseStreamEvent[] = [];
    let text = "";
    for await (const e of await openai.responses.create({ model: "default", input: QUESTION, stream: true })) {
      seen.push(e);
      if (e.type !== "response.output_text.delta") continue;
      text += e.delta;
      // The agent waits at the gate: both citations and the text after them came while it ran.
      if (text.endsWith(" there")) {
        expect(seen.filter((x) => x.type === "response.output_text.annotation.added")).toHaveLength(2);
        open();
      }
    }
    const added = seen.flatMap((e) => (e.type === "response.output_text.annotation.added" ? [e] : []));
    expect(added.map((e) => e.annotation_index)).toEqual([0, 1, 2]);
    const final = seen.find((e) => e.type === "response.output_text.done") as OpenAI.Responses.ResponseTextDoneEvent;
    expect(final.text).toBe(text);
    expect(text).toBe(
      "See [1](https://x.test/a) here and [2](https://x.test/b) there more [1](https://x.test/a) [3] end.",
    );
    const done = await openai.responses.create({ model: "default", input: QUESTION });
    const part = done.output[0]!.type === "message" ? done.output[0]!.content[0] : undefined;
    expect(part).toMatchObject({ type: "output_text", text });
    expect(added.map((e) => e.annotation)).toEqual((part as OpenAI.Responses.ResponseOutputText).annotations);
    expectLinked(text, (part as OpenAI.Responses.ResponseOutputText).annotations as never);
  });
});
