/**
 * First run without a shell: the setup code a server prints while its store has no admin key,
 * exchanged once (POST /v1/setup) for the first admin key. Each test has a store of its own (the
 * state is the whole store's): a fresh PGlite, or on PostgreSQL a database made for it, where
 * concurrent exchanges really run on separate connections.
 */
import { afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createApp } from "../src/app/app.ts";
import { issueSetupCode, SETUP_CODE_TTL_MS, withdrawSetupCode } from "../src/auth/index.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import { SETUP_TRIES, SETUP_WINDOW_MS } from "../src/auth/setup-routes.ts";
import { createLogger } from "../src/config/logger.ts";
import type { Store } from "../src/db/client.ts";
import { apiKeys, setupCodes } from "../src/db/schema.ts";
import { expectError, expectStatus, send } from "./helpers/app.ts";
import { ownStore, pgliteImage } from "./helpers/store.ts";

setDefaultTimeout(60_000);
beforeAll(() => pgliteImage(), 300_000);

const stores: { drop(): Promise<void> }[] = [];
const apps: ReturnType<typeof createApp>[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.parley.close()));
  await Promise.all(stores.splice(0).map((s) => s.drop()));
});

/** An app on a store of its own, with a clock the test may move. */
async function fresh(clock = { at: Date.now() }) {
  const own = await ownStore();
  stores.push(own);
  const app = createApp({ store: own.store, logger: createLogger("silent"), now: () => clock.at });
  apps.push(app);
  const setup = (json: unknown) => send(app, "POST", "/v1/setup", { json });
  const state = async () => (await send(app, "GET", "/v1/setup")).json.state;
  return { app, store: own.store, clock, setup, state };
}

const admins = async (store: Store) =>
  (await store.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.role, "admin"))).length;

describe("first-run setup", () => {
  test("a printed code, exchanged once, is the first admin key; then setup is over and the code is void", async () => {
    const { app, store, setup, state } = await fresh();
    expect(await state()).toBe("no_code");
    const issued = (await issueSetupCode(store.db))!;
    expect(issued.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){3}$/);
    expect(await state()).toBe("open");
    // Only the hash is stored.
    const rows = await store.db.select().from(setupCodes);
    expect(JSON.stringify(rows)).not.toContain(issued.code.replace(/-/g, ""));

    expectError(await setup({ code: "00000-00000-00000-00000" }), 403, "invalid_setup_code");
    // Typed loosely (lower case, no dashes): the same code.
    const made = await setup({ code: issued.code.toLowerCase().replace(/-/g, " "), name: "docs team" });
    expectStatus(made, 201);
    expect(made.json).toMatchObject({ name: "docs team", role: "admin", plan: "pro", revoked_at: null });
    expect(made.json.secret).toMatch(/^prl_/);
    expectStatus(await send(app, "GET", "/v1/keys", { key: made.json.secret }), 200);

    expectError(await setup({ code: issued.code }), 409, "setup_closed");
    expect(await state()).toBe("done");
    expect(await store.db.select().from(setupCodes)).toEqual([]);
    expect(await issueSetupCode(store.db)).toBeNull(); // a restart prints none
    expect(await admins(store)).toBe(1);
  });

  test("exchanges at once, with one code and with two servers' codes, make exactly one key", async () => {
    const { store, setup } = await fresh();
    const a = (await issueSetupCode(store.db))!;
    const b = (await issueSetupCode(store.db))!; // a second instance's code: either works
    const replies = await Promise.all([a, b, a, b, a, b].map((c, i) => setup({ code: c.code, name: `race ${i}` })));
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    expect(await admins(store)).toBe(1);
    expect(await store.db.select().from(setupCodes)).toEqual([]);
  });

  test("an admin key made another way (the CLI) closes setup and voids the codes", async () => {
    const { store, setup, state } = await fresh();
    const issued = (await issueSetupCode(store.db))!;
    await createKey(store.db, { name: "from the shell", plan: "pro", role: "admin" });
    expect(await state()).toBe("done");
    expectError(await setup({ code: issued.code }), 409, "setup_closed");
    expect(await store.db.select().from(setupCodes)).toEqual([]);
    expect(await admins(store)).toBe(1);
  });

  test("a code expires after its hour, and a server that stops withdraws its own", async () => {
    const { store, setup, state, clock } = await fresh();
    const old = (await issueSetupCode(store.db, new Date(clock.at)))!;
    const withdrawn = (await issueSetupCode(store.db, new Date(clock.at)))!;
    await withdrawSetupCode(store.db, withdrawn.code);
    expectError(await setup({ code: withdrawn.code }), 403, "invalid_setup_code");
    clock.at += SETUP_CODE_TTL_MS + 1;
    expect(await state()).toBe("no_code");
    expectError(await setup({ code: old.code }), 403, "invalid_setup_code");
    expect(await admins(store)).toBe(0);
  });

  test(`wrong codes are limited: after ${SETUP_TRIES}, even the right one waits (429) until the window ends`, async () => {
    const { store, setup, clock } = await fresh();
    const issued = (await issueSetupCode(store.db, new Date(clock.at + SETUP_WINDOW_MS)))!;
    for (let i = 0; i < SETUP_TRIES; i++) expectError(await setup({ code: `WRONG-${i}` }), 403, "invalid_setup_code");
    const limited = await setup({ code: issued.code });
    expectError(limited, 429, "rate_limit_exceeded");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await admins(store)).toBe(0);
    clock.at += SETUP_WINDOW_MS;
    expectStatus(await setup({ code: issued.code }), 201);
  });

  test("bad bodies are 400 with param; the routes need no key and are in the OpenAPI document as such", async () => {
    const { app, setup } = await fresh();
    expectError(await setup({ name: "no code" }), 400, "invalid_request");
    expectError(await setup({ code: "x", name: "" }), 400, "invalid_request");
    const doc: any = (await send(app, "GET", "/v1/openapi.json")).json;
    expect(doc.paths["/v1/setup"].post.security).toEqual([]);
    expect(doc.paths["/v1/setup"].get.security).toEqual([]);
    expect(Object.keys(doc.paths["/v1/setup"].post.responses)).toEqual(
      expect.arrayContaining(["201", "403", "409", "429"]),
    );
  });
});
