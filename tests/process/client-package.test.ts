/**
 * The `parley-client` package as a user gets it: `npm pack`, installed from the tarball into an
 * empty Node project (offline: it has no dependencies), type-checked by tsc with
 * `moduleResolution` `nodenext` and `bundler`, and run by Node against a live server.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildClient, CLIENT_PACKAGE } from "../../scripts/build-client.ts";
import type { ChatEvent } from "../../src/client/types.ts";
import { harness } from "../helpers/app.ts";

setDefaultTimeout(120_000); // npm and tsc processes on a shared 2-core machine

const hasNode = Boolean(Bun.which("node")) && Boolean(Bun.which("npm"));
if (!hasNode) console.warn("client-package.test.ts: skipped, node/npm not on PATH");
const TSC = join(import.meta.dir, "../../node_modules/typescript/bin/tsc");
const work = mkdtempSync(join(tmpdir(), "parley-client-pkg-"));
const stops: (() => unknown)[] = [];
afterAll(() => {
  for (const s of stops) s();
  rmSync(work, { recursive: true, force: true });
});

function run(cmd: string[], cwd: string) {
  const p = Bun.spawnSync(cmd, {
    cwd,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
  return { code: p.exitCode, out: `${p.stdout}${p.stderr}` };
}

const CONSUMER = `import { createClient, ParleyError, type ChatEvent, type MessageStatus, type ParleyErrorCode, type ServerErrorCode } from "parley-client";

const client = createClient({ baseUrl: "http://localhost:3000", apiKey: "prl_x", timeout: 5_000, maxRetries: 1, maxResumes: 2 });

export async function demo(signal: AbortSignal): Promise<string> {
  const reply = await client.chat({ message: "hi", signal, timeout: 1_000 });
  for await (const e of client.chatStream({ message: "more", conversationId: reply.conversationId, signal })) {
    if (e.type === "token") console.log(e.content.toUpperCase());
    if (e.type === "error") {
      const code: ServerErrorCode = e.error.code;
      console.log(code);
    }
  }
  for await (const c of client.conversations.list({ limit: 10 }, { signal })) console.log(c.title);
  let start: Extract<ChatEvent, { type: "start" }> | undefined;
  for await (const e of client.chatStream({ message: "again", idempotencyKey: "k-1", signal })) {
    if (e.type === "start") start = e;
    if (e.type === "end") console.log(e.id, e.status satisfies "completed" | "stopped" | "length", e.usage?.outputTokens);
  }
  if (start?.messageId) {
    for await (const e of client.resume({ conversationId: start.conversationId, messageId: start.messageId, after: 3, timeout: 1_000 })) console.log(e.id);
    const stopped = await client.stop({ conversationId: start.conversationId, messageId: start.messageId, signal });
    const status: MessageStatus = stopped.status;
    console.log(status);
  }
  const older = await client.conversations.messages(reply.conversationId, { limit: 5, cursor: (await client.conversations.get(reply.conversationId)).pagination.nextCursor ?? undefined });
  for await (const m of client.conversations.history(reply.conversationId)) console.log(m.usage?.inputTokens, older.hasMore);
  await client.conversations.delete(reply.conversationId, { maxRetries: 0 });
  try {
    await client.conversations.get("conv_x", { timeout: 100 });
  } catch (e) {
    if (e instanceof ParleyError) {
      const code: ParleyErrorCode = e.code;
      if (code === "rate_limit_exceeded" || code === "timeout") return String(e.retryAfter ?? e.status);
    }
  }
  // @ts-expect-error a code outside the closed set does not type-check
  const bogus: ParleyErrorCode = "no_such_code";
  const first: ChatEvent | undefined = undefined;
  return String(bogus ?? first);
}
`;

const tsconfig = (module: string, moduleResolution: string) => ({
  compilerOptions: {
    module,
    moduleResolution,
    target: "es2022",
    lib: ["es2022", "dom", "dom.iterable"],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: [],
  },
  include: ["src"],
});

describe.skipIf(!hasNode)("parley-client package (npm pack)", () => {
  let tarball = "";
  let consumer = "";

  test("packs into a small tarball of built JS and .d.ts, and installs offline into an empty project", async () => {
    const pkg = join(work, "pkg");
    mkdirSync(pkg);
    for (const f of ["package.json", "README.md"]) copyFileSync(join(CLIENT_PACKAGE, f), join(pkg, f));
    await buildClient(pkg);
    const pack = run(["npm", "pack", "--ignore-scripts", "--json", "--pack-destination", work], pkg);
    expect(pack, pack.out).toMatchObject({ code: 0 });
    const info = JSON.parse(pack.out.slice(pack.out.indexOf("["), pack.out.lastIndexOf("]") + 1))[0];
    const files = (info.files as { path: string }[]).map((f) => f.path).sort();
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/types/client/index.d.ts");
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]); // no TypeScript source
    // Small: built JS and declarations only (107 KB with the web-source types and methods; the
    // bound catches a bundled dependency or source maps, which weigh megabytes).
    expect(info.unpackedSize).toBeLessThan(150_000);
    tarball = join(work, info.filename);

    consumer = join(work, "consumer");
    mkdirSync(join(consumer, "src"), { recursive: true });
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    const install = run(["npm", "install", "--offline", "--no-audit", "--no-fund", tarball], consumer);
    expect(install, install.out).toMatchObject({ code: 0 });
    writeFileSync(join(consumer, "src/demo.ts"), CONSUMER);
  });

  for (const [module, resolution] of [
    ["nodenext", "nodenext"],
    ["esnext", "bundler"],
  ] as const) {
    test(`type-checks in a consumer project with moduleResolution ${resolution}`, () => {
      expect(consumer).not.toBe("");
      const config = join(consumer, `tsconfig.${resolution}.json`);
      writeFileSync(config, JSON.stringify(tsconfig(module, resolution)));
      const tsc = run([process.execPath, TSC, "-p", config], consumer);
      expect(tsc, tsc.out).toEqual({ code: 0, out: "" });
    });
  }

  test("the installed package runs on Node against a live server", async () => {
    expect(consumer).not.toBe("");
    const h = await harness();
    const srv = h.app.listen({ port: 0, hostname: "127.0.0.1" });
    stops.push(() => srv.stop(true));
    const baseUrl = `http://127.0.0.1:${srv.server!.port}`;
    writeFileSync(
      join(consumer, "smoke.mjs"),
      `import { createClient, ParleyError } from "parley-client";
const [baseUrl, apiKey] = process.argv.slice(2);
const client = createClient({ baseUrl, apiKey });
const out = { node: process.version };
const reply = await client.chat({ message: "What is a lifecycle hook?" });
out.chat = { id: reply.id, conversationId: reply.conversationId, content: reply.content };
const events = [];
for await (const e of client.chatStream({ message: "And how do I use it?", conversationId: reply.conversationId })) events.push(e);
out.stream = events;
out.resumed = [];
for await (const e of client.resume({ conversationId: reply.conversationId, messageId: events[0].messageId, after: 1 })) out.resumed.push(e);
out.stopped = await client.stop({ conversationId: reply.conversationId, messageId: events[0].messageId });
out.list = [];
for await (const c of client.conversations.list()) out.list.push(c.id);
const caught = async (p) => p.then(() => null, (e) => ({ parley: e instanceof ParleyError, status: e.status, code: e.code, requestId: e.requestId }));
out.unauthorized = await caught(createClient({ baseUrl, apiKey: "prl_0000000000000000000000000000000000000000000" }).chat({ message: "hi" }));
console.log(JSON.stringify(out));
`,
    );
    const proc = Bun.spawn(["node", "smoke.mjs", baseUrl, await h.key()], {
      cwd: consumer,
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => proc.kill(), 30_000);
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    clearTimeout(timer);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const out = JSON.parse(stdout);
    expect(out.chat.id).toStartWith("msg_");
    const events = out.stream as ChatEvent[];
    expect(events[0]).toEqual({
      id: 1,
      type: "start",
      conversationId: out.chat.conversationId,
      messageId: expect.stringMatching(/^msg_/),
      resumeToken: expect.stringMatching(/^v1\./),
    });
    expect(events.at(-1)!.type).toBe("end");
    expect(events.some((e) => e.type === "token")).toBe(true);
    expect(out.resumed).toEqual(events.slice(1));
    expect(out.stopped).toMatchObject({ id: (events[0] as { messageId: string }).messageId, status: "completed" });
    expect(out.list).toEqual([out.chat.conversationId]);
    expect(out.unauthorized).toMatchObject({ parley: true, status: 401, code: "unauthorized" });
  });
});
