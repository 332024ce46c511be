/** Builds the app in process on the shared store, with keys and a request helper. */
import { expect } from "bun:test";
import type { Agent } from "../../src/agent/types.ts";
import { type AppConfig, createApp } from "../../src/app/app.ts";
import { findKeyBySecret } from "../../src/auth/keys.ts";
import { createKey } from "../../src/auth/keys-admin.ts";
import { createLogger } from "../../src/config/logger.ts";
import type { ErrorBody, ErrorCode } from "../../src/contract/errors.ts";
import type { Plan } from "../../src/contract/plans.ts";
import type { Store } from "../../src/db/client.ts";
import { createParley, type ParleyConfig } from "../../src/mod.ts";
import type { Replies } from "../../src/replies/index.ts";
import type { Tracing } from "../../src/tracing/index.ts";
import type { ResponseOf } from "./routes.ts";
import { testStore } from "./store.ts";

export interface Harness {
  app: ReturnType<typeof createApp>;
  store: Store;
  /** The app's replies (drain, running, live runs). */
  replies: Replies;
  /** A new key; by default with limits no test reaches. */
  key(plan?: Plan, limits?: { rpm?: number; rpd?: number }): Promise<string>;
  /** A new admin key (enterprise limits no test reaches). */
  admin(): Promise<string>;
  /** One request through app.handle (see `Call`). */
  call: Call;
}

/**
 * Sends one request. `json` is typed as the route's success body, found from the method and the
 * path (tests/helpers/routes.ts): `call("GET", `/v1/conversations/${id}`)` reads a
 * ConversationDetail. A path the table cannot place (a route it lacks, a path held as `string`)
 * reads `unknown`: pass the type, `call<KnowledgeBase>("GET", path)`, or narrow. A path built
 * ahead into a variable keeps its shape with `as const` (a template string alone is a `string`).
 * Overloads, not defaults: a type argument given by hand picks the last signature.
 */
export interface Call {
  <M extends string, P extends string>(method: M, path: P, init: JsonInit): Promise<Reply<ResponseOf<M, P, "json">>>;
  <M extends string, P extends string>(method: M, path: P, init?: CallInit): Promise<Reply<ResponseOf<M, P, "raw">>>;
  <T>(method: string, path: string, init?: CallInit): Promise<Reply<T>>;
}

export interface CallInit {
  key?: string | null;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
}

/** A request whose body is `json`: an upload route answers differently to it (routes.ts, BySentBody). */
type JsonInit = CallInit & { json: unknown };

/**
 * A response read once: status, headers, parsed JSON (when JSON) and raw text. `json` is typed
 * as the success body `T`; an error body is read through expectError (or `as ErrorBody`).
 */
export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
}

export async function harness(
  opts: {
    now?: () => number;
    options?: ParleyConfig["options"];
    agent?: Agent;
    store?: Store;
    tracing?: Tracing;
    /** Serves GET /widget.js (src/runtime/widget-asset.ts), for the widget's browser tests. */
    widgetScript?: AppConfig["widgetScript"];
  } = {},
): Promise<Harness> {
  const store = opts.store ?? (await testStore());
  await closeOtherFilesApps();
  const app = createApp({
    store,
    now: opts.now,
    options: opts.options,
    agent: opts.agent,
    tracing: opts.tracing,
    widgetScript: opts.widgetScript,
    logger: createLogger("silent"),
  });
  opened.push({ file: Bun.main, close: () => app.parley.close() });
  return {
    app,
    store,
    replies: app.parley.replies as Replies,
    async key(plan = "enterprise", limits = {}) {
      const big = plan === "enterprise" ? { rpm: 1_000_000, rpd: 10_000_000 } : {};
      const { secret } = await createKey(store.db, { name: "test", plan, ...big, ...limits });
      return secret;
    },
    async admin() {
      const { secret } = await createKey(store.db, {
        name: "test admin",
        plan: "enterprise",
        rpm: 1_000_000,
        rpd: 10_000_000,
        role: "admin",
      });
      return secret;
    },
    call: (method: string, path: string, init?: CallInit) => send<unknown>(app, method, path, init),
  };
}

const opened: { file: string; close: () => Promise<void> }[] = [];

/**
 * `createApp` for a test that builds its own app: closed with the file's other apps, so its
 * sweeper never outlives the file (and never ends, or crowds out, a later file's replies).
 */
export function testApp(config: AppConfig): ReturnType<typeof createApp> {
  const app = createApp({ logger: createLogger("silent"), ...config });
  opened.push({ file: Bun.main, close: () => app.parley.close() });
  return app;
}

/** `createParley` for a test, closed like `testApp`'s apps. */
export function testPlugin(config: ParleyConfig): ReturnType<typeof createParley> {
  const plugin = createParley(config);
  opened.push({ file: Bun.main, close: () => plugin.close() });
  return plugin;
}

/** Closes every app `harness` built (tests/helpers/setup.ts runs it once, at the end of the run). */
export async function closeApps(): Promise<void> {
  await Promise.all(opened.splice(0).map((app) => app.close().catch(() => {})));
}

/**
 * Closes the apps earlier test files built. Preloaded hooks run once per run, not per file, so
 * without this every file's apps would live to the end, and their sweepers would go on ending
 * replies by their own clocks: a file whose clock runs ahead (keys-http moves it a minute) would
 * expire the live replies of the files after it.
 */
async function closeOtherFilesApps(): Promise<void> {
  const others = opened.filter((app) => app.file !== Bun.main);
  if (!others.length) return;
  opened.splice(0, opened.length, ...opened.filter((app) => app.file === Bun.main));
  await Promise.all(others.map((app) => app.close().catch(() => {})));
}

const listening: (() => unknown)[] = [];
/** Stops every server `listen` started (tests/helpers/setup.ts runs it at the end of the run). */
export function stopListening(): void {
  for (const stop of listening.splice(0)) stop();
}

/** Listens on a free port of 127.0.0.1 until the test run ends (or `stop()`); its base URL. */
export function listen(app: ReturnType<typeof createApp>): { url: string; port: number; stop(): void } {
  const srv = app.listen({ port: 0, hostname: "127.0.0.1" });
  let stopped = false;
  const stop = () => {
    if (!stopped) void srv.stop(true);
    stopped = true;
  };
  listening.push(stop);
  return { url: `http://127.0.0.1:${srv.server!.port}`, port: srv.server!.port!, stop };
}

/** The id of the live key with this secret (what a test needs to write rows for it). */
export async function keyIdOf(store: Store, secret: string): Promise<string> {
  const row = await findKeyBySecret(store.db, secret);
  if (!row) throw new Error("no live key with this secret");
  return row.id;
}

type Handles = { handle(r: Request): Promise<Response> };

/** `h.call` on any app (typed the same way, see `Call`). */
export function send<M extends string, P extends string>(
  app: Handles,
  method: M,
  path: P,
  init: JsonInit,
): Promise<Reply<ResponseOf<M, P, "json">>>;
export function send<M extends string, P extends string>(
  app: Handles,
  method: M,
  path: P,
  init?: CallInit,
): Promise<Reply<ResponseOf<M, P, "raw">>>;
export function send<T>(app: Handles, method: string, path: string, init?: CallInit): Promise<Reply<T>>;
export async function send(app: Handles, method: string, path: string, init: CallInit = {}): Promise<Reply<unknown>> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers["content-type"] ??= "application/json";
  }
  const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
  return read(res);
}

/** Reads a response; `T` is what the caller knows its body to be (the one place `json` is asserted). */
export async function read<T = unknown>(res: Response): Promise<Reply<T>> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json: json as T };
}

/** Asserts the status, printing the body when it differs. */
export function expectStatus(reply: Reply<unknown>, status: number): void {
  expect({ status: reply.status, body: reply.json ?? reply.text }).toMatchObject({ status });
}

/**
 * Asserts a standard error body with this status and code; after it, `reply.json` reads as an
 * ErrorBody (e.g. `reply.json.error.param`).
 */
export function expectError(reply: Reply<unknown>, status: number, code: ErrorCode): asserts reply is Reply<ErrorBody> {
  expectStatus(reply, status);
  const body = reply.json as ErrorBody | undefined;
  expect(body?.error?.code, reply.text).toBe(code);
  expect(typeof body!.error.message).toBe("string");
  expect(typeof body!.error.type).toBe("string");
  expect<string | null>(body!.request_id).toBe(reply.headers.get("x-request-id"));
  expect(reply.headers.get("content-type")).toContain("application/json");
}
