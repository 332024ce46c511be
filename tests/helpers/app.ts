/** Builds the app in process on the shared store, with keys and a request helper. */
import { expect } from "bun:test";
import type { Agent } from "../../src/agent/types.ts";
import { createApp } from "../../src/app/app.ts";
import { findKeyBySecret } from "../../src/auth/keys.ts";
import { createKey } from "../../src/auth/keys-admin.ts";
import { createLogger } from "../../src/config/logger.ts";
import type { ParleyOptions } from "../../src/config/options.ts";
import type { ErrorBody, ErrorCode } from "../../src/contract/errors.ts";
import type { Plan } from "../../src/contract/plans.ts";
import type { Store } from "../../src/db/client.ts";
import type { Replies } from "../../src/replies/index.ts";
import type { Tracing } from "../../src/tracing/index.ts";
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
  /** One request through app.handle; `T`: the success body's type (src/contract), e.g. `call<ChatReply>(…)`. */
  call<T = any>(method: string, path: string, init?: CallInit): Promise<Reply<T>>;
}

export interface CallInit {
  key?: string | null;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
}

/**
 * A response read once: status, headers, parsed JSON (when JSON) and raw text. `json` is typed
 * as the success body `T`; an error body is read through expectError (or `as ErrorBody`).
 */
export interface Reply<T = any> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
}

export async function harness(
  opts: { now?: () => number; options?: Partial<ParleyOptions>; agent?: Agent; store?: Store; tracing?: Tracing } = {},
): Promise<Harness> {
  const store = opts.store ?? (await testStore());
  await closeOtherFilesApps();
  const app = createApp({
    store,
    now: opts.now,
    options: opts.options,
    agent: opts.agent,
    tracing: opts.tracing,
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
    call: <T>(method: string, path: string, init: CallInit = {}) => send<T>(app, method, path, init),
  };
}

const opened: { file: string; close: () => Promise<void> }[] = [];
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

export async function send<T = any>(
  app: { handle(r: Request): Promise<Response> },
  method: string,
  path: string,
  init: CallInit = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers["content-type"] ??= "application/json";
  }
  const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
  return read<T>(res);
}

export async function read<T = any>(res: Response): Promise<Reply<T>> {
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

/** Asserts a standard error body with this status and code. */
export function expectError(reply: Reply<unknown>, status: number, code: ErrorCode): void {
  expectStatus(reply, status);
  const body = reply.json as ErrorBody | undefined;
  expect(body?.error?.code, reply.text).toBe(code);
  expect(typeof body!.error.message).toBe("string");
  expect(typeof body!.error.type).toBe("string");
  expect<string | null>(body!.request_id).toBe(reply.headers.get("x-request-id"));
  expect(reply.headers.get("content-type")).toContain("application/json");
}
