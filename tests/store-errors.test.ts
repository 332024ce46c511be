/**
 * Database failures as the client and the log see them: the cause (SQLSTATE and the driver's
 * message) is logged, never the query's parameters (key hashes, message text); a database
 * that refuses connections is 503, not 500; a failed first message leaves no conversation.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createApp } from "../src/app/app.ts";
import { hashSecret } from "../src/auth/keys.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import { describeError } from "../src/config/logger.ts";
import { openPostgres } from "../src/db/client.ts";
import { isStoreUnavailable, isTooManyParameters } from "../src/db/errors.ts";
import { migrate } from "../src/db/migrate.ts";
import { toApiError } from "../src/http/error-handler.ts";
import { scriptedAgent } from "./helpers/agents.ts";
import { expectError, expectStatus, harness, send, testApp } from "./helpers/app.ts";
import { captureLog } from "./helpers/log.ts";
import { onPostgres } from "./helpers/store.ts";
import { TcpProxy } from "./helpers/tcp-proxy.ts";

setDefaultTimeout(60_000);

const h = await harness();
const MARKER = "injected-failure-marker";

// A trigger that refuses one message text: a real failing statement on either store.
await h.store.db.execute(
  sql.raw(`
  create or replace function parley_test_refuse() returns trigger language plpgsql as $$
  begin
    if new.content like '%${MARKER}%' then raise exception 'refused by test trigger' using errcode = 'P0001'; end if;
    return new;
  end $$`),
);
await h.store.db.execute(sql.raw("drop trigger if exists parley_test_refuse on messages"));
await h.store.db.execute(
  sql.raw(
    "create trigger parley_test_refuse before insert on messages for each row execute function parley_test_refuse()",
  ),
);
afterAll(async () => {
  await h.store.db.execute(sql.raw("drop trigger if exists parley_test_refuse on messages"));
  await h.store.db.execute(sql.raw("drop function if exists parley_test_refuse()"));
});

const countConversations = async (keyHash: string) => {
  const rows = await h.store.db.execute(
    sql`select count(*)::int as n from conversations c join api_keys k on k.id = c.key_id where k.hash = ${keyHash}`,
  );
  return Number(((rows as any).rows ?? rows)[0].n);
};

describe("a failing statement", () => {
  test("is logged with its SQLSTATE and the driver's message, never the message text or the key hash", async () => {
    const log = captureLog();
    const app = testApp({ store: h.store, logger: log.logger, agent: scriptedAgent(["ok"]) });
    const key = await h.key();
    const secretText = `my private words ${MARKER} ${crypto.randomUUID()}`;
    const r = await send(app, "POST", "/v1/chat", { key, json: { message: secretText } });
    expectError(r, 500, "internal_error");
    const text = log.text();
    const failed = log.entries().find((e) => e.msg === "request failed");
    expect(failed, text).toBeDefined();
    expect(failed!.level).toBe("error");
    expect(failed!.request_id).toBe(r.json.request_id);
    expect(JSON.stringify(failed!.error), text).toContain("refused by test trigger");
    expect(JSON.stringify(failed!.error), text).toContain('"code":"P0001"');
    expect(text).not.toContain(MARKER);
    expect(text).not.toContain("my private words");
    expect(text).not.toContain(await hashSecret(key));
    expect(text).not.toContain("params");
  });

  test("a failed first message leaves no conversation behind", async () => {
    const key = await h.key();
    const hash = await hashSecret(key);
    const r = await h.call("POST", "/v1/chat", { key, json: { message: `hello ${MARKER}` } });
    expectError(r, 500, "internal_error");
    expect(await countConversations(hash)).toBe(0);
    const list = await h.call("GET", "/v1/conversations", { key });
    expectStatus(list, 200);
    expect(list.json.data).toEqual([]);
    // And the happy path still creates exactly one.
    expectStatus(await h.call("POST", "/v1/chat", { key, json: { message: "hello" } }), 200);
    expect(await countConversations(hash)).toBe(1);
  });
});

describe("a statement past the protocol's 65,535 bind parameters", () => {
  test("is the request's size (413), never an outage (503 with Retry-After, retried for ever)", async () => {
    const values = Array.from({ length: 70_000 }, (_, i) => sql`(${i})`);
    const error = await h.store.db
      .execute(sql`select count(*) from (values ${sql.join(values, sql`, `)}) as v(x)`)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).not.toBeNull();
    // PGlite answers 08P01 (a connection-exception class); postgres.js refuses it before sending.
    expect(isTooManyParameters(error)).toBe(true);
    expect(isStoreUnavailable(error)).toBe(false);
    const api = toApiError(error);
    expect(api.code).toBe("payload_too_large");
    expect(api.options.headers?.["retry-after"]).toBeUndefined();
    // The store is still there.
    expectStatus(await h.call("GET", "/v1/conversations", { key: await h.key() }), 200);
  });
});

describe("a dropped connection's cause reaches the log", () => {
  test("a postgres.js connection error (which carries `query` and `parameters`) keeps its code and message, never the query", () => {
    const dropped = Object.assign(new Error("write CONNECTION_CLOSED 127.0.0.1:5432"), {
      code: "CONNECTION_CLOSED",
      errno: "CONNECTION_CLOSED",
      query: "select secret_column from api_keys where hash = $1",
      parameters: ["hash-of-a-key"],
    });
    const wrapper = Object.assign(new Error(`Failed query: ${dropped.query}\nparams: hash-of-a-key`), {
      query: dropped.query,
      params: dropped.parameters,
      cause: dropped,
    });
    const d = describeError(wrapper) as { message: string; cause: Record<string, unknown> };
    expect(d.message).toBe("database query failed");
    expect(d.cause).toMatchObject({ code: "CONNECTION_CLOSED", message: "write CONNECTION_CLOSED 127.0.0.1:5432" });
    const text = JSON.stringify(d);
    expect(text).not.toContain("secret_column");
    expect(text).not.toContain("hash-of-a-key");
  });

  test.skipIf(!onPostgres)(
    "connections cut under running requests (outage proxy): every 503's log line names the driver's code",
    async () => {
      const url = new URL(process.env.DATABASE_URL!);
      const proxy = new TcpProxy({ hostname: url.hostname, port: Number(url.port || 5432) });
      proxy.up();
      url.host = `127.0.0.1:${proxy.port}`;
      const store = openPostgres(url.toString(), { max: 4 });
      const log = captureLog();
      const app = createApp({ store, logger: log.logger, agent: scriptedAgent(["a", "b", "c"]) });
      const key = await h.key("pro");
      expectStatus(await send(app, "GET", "/v1/conversations", { key }), 200);
      let failed = 0;
      for (let round = 0; round < 3; round++) {
        const running = Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            send(app, i % 2 ? "GET" : "POST", i % 2 ? "/v1/conversations" : "/v1/chat", {
              key,
              json: i % 2 ? undefined : { message: "hello" },
            }),
          ),
        );
        await Bun.sleep(5 + round * 10);
        proxy.down();
        for (const r of await running) {
          // Cut mid-request: served, or 503 — never a 500.
          expect([200, 503], JSON.stringify({ status: r.status, body: r.json, log: log.text() })).toContain(r.status);
          if (r.status === 503) failed++;
        }
        proxy.up();
      }
      const lines = log.entries().filter((e) => e.msg === "request failed");
      expect(failed, log.text()).toBeGreaterThan(0);
      expect(lines.length, log.text()).toBe(failed);
      for (const line of lines) {
        const cause = (line.error as { cause?: { code?: string; message?: string } }).cause;
        expect(cause?.code, JSON.stringify(line)).toMatch(
          /^(CONNECTION_\w+|EC\w+|EPIPE|08\w{3}|57P0\d|DB_WAIT_TIMEOUT)$/,
        );
        expect(cause?.message, JSON.stringify(line)).not.toBe("database query failed");
      }
      void store.close();
      proxy.down();
    },
  );
});

describe.skipIf(!onPostgres)("a database that refuses connections (PostgreSQL)", () => {
  const base = new URL(process.env.DATABASE_URL ?? "postgres://x@localhost/x");
  const urlOf = (name: string) => Object.assign(new URL(base.href), { pathname: `/${name}` }).href;
  const name = `parley_refuse_${Date.now().toString(36)}`;
  const admin = () => openPostgres(urlOf("postgres"), { max: 1 });

  test("ALLOW_CONNECTIONS false (55000) → 503 service_unavailable, cause logged, no key hash", async () => {
    const a = admin();
    await a.db.execute(sql.raw(`create database ${name}`));
    try {
      const setup = openPostgres(urlOf(name), { max: 1 });
      await migrate(setup);
      const { secret } = await createKey(setup.db, { name: "t", plan: "free" });
      await setup.close();
      await a.db.execute(sql.raw(`alter database ${name} allow_connections false`));
      const store = openPostgres(urlOf(name), { max: 2 });
      const log = captureLog();
      const app = createApp({ store, logger: log.logger, agent: scriptedAgent(["ok"]) });
      const r = await send(app, "GET", "/v1/conversations", { key: secret });
      expectError(r, 503, "service_unavailable");
      const ready = await send(app, "GET", "/readyz");
      expectError(ready, 503, "service_unavailable");
      const text = log.text();
      expect(text).toContain("not currently accepting connections");
      expect(text).toContain("55000");
      expect(text).not.toContain(await hashSecret(secret));
      expect(log.entries().find((e) => e.msg === "request failed")?.level).toBe("warn");
      await store.close();
    } finally {
      await a.db.execute(sql.raw(`drop database if exists ${name} with (force)`));
      await a.close();
    }
  });

  test("a missing database (3D000) → 503 service_unavailable", async () => {
    const store = openPostgres(urlOf(`parley_missing_${Date.now().toString(36)}`), { max: 1 });
    const log = captureLog();
    const app = createApp({ store, logger: log.logger, agent: scriptedAgent(["ok"]) });
    const r = await send(app, "GET", "/v1/conversations", { key: `prl_${"a".repeat(43)}` });
    expectError(r, 503, "service_unavailable");
    expect(log.text()).toContain("3D000");
    await store.close();
  });

  test("nothing listening (ECONNREFUSED) → 503 service_unavailable", async () => {
    const store = openPostgres("postgres://postgres@127.0.0.1:1/none", { max: 1 });
    const app = createApp({ store, logger: captureLog().logger, agent: scriptedAgent(["ok"]) });
    expectError(
      await send(app, "GET", "/v1/conversations", { key: `prl_${"a".repeat(43)}` }),
      503,
      "service_unavailable",
    );
    await store.close();
  });
});
