/**
 * Which database failures are storage faults: they answer 503 `service_unavailable` with
 * Retry-After, never 500. The real faults, a data folder made read-only under a server and a full
 * disk, are tests/process/storage-faults.test.ts and tests/process/disk-full.test.ts. Also the
 * API's side of a nearly full disk: requests that change data refused, reads served.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { isDiskFull, isStorageFault } from "../src/db/errors.ts";
import { toApiError } from "../src/http/error-handler.ts";
import { DiskFull } from "../src/runtime/disk-room.ts";
import { StoreRestarting } from "../src/runtime/panic-fence.ts";
import { expectError, harness } from "./helpers/app.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000);

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: "ERROR" });
const wrapped = (cause: Error) => Object.assign(new Error("Failed query: insert …"), { query: "insert …", cause });

describe("storage faults", () => {
  test.each([
    ["42501", 'could not open file "base/5/16400": Permission denied'],
    ["42501", 'could not create directory "pg_wal/archive_status": Permission denied'],
    ["58P02", 'could not create file "base/5/16410": File exists'],
    ["58030", 'could not write to file "pg_wal/xlogtemp.1": No space left on device'],
    ["53100", 'could not extend file "base/5/16400": No space left on device'],
    ["ENOSPC", "no space left on device"],
    ["EROFS", "read-only file system"],
  ])("%s %s → 503 with Retry-After", (code, message) => {
    const e = wrapped(pgError(code, message));
    expect(isStorageFault(e)).toBe(true);
    const api = toApiError(e);
    expect(api.status).toBe(503);
    expect(api.code).toBe("service_unavailable");
    expect(Number(api.options.headers?.["retry-after"])).toBeGreaterThan(0);
  });

  test("a privilege refused on a table, or a constraint, is not a storage fault", () => {
    for (const e of [
      pgError("42501", "permission denied for table messages"),
      pgError("23505", "duplicate key value violates unique constraint"),
      new Error("boom"),
    ]) {
      expect(isStorageFault(wrapped(e))).toBe(false);
      expect(toApiError(wrapped(e)).status).toBe(500);
    }
  });
});

describe("other database failures that are not server faults", () => {
  test.each([
    ["40P01", "deadlock detected"],
    ["40001", "could not serialize access due to concurrent update"],
  ])("%s %s (a race the code did not retry) → 503 with Retry-After, not 500", (code, message) => {
    const api = toApiError(wrapped(pgError(code, message)));
    expect([api.status, api.code]).toEqual([503, "service_unavailable"]);
    expect(api.options.headers?.["retry-after"]).toBe("1");
  });

  test.each([
    ["22021", 'invalid byte sequence for encoding "UTF8": 0x00'],
    ["22P05", "unsupported Unicode escape sequence"],
  ])("%s %s (a NUL the client sent) → 400 invalid_request", (code, message) => {
    const api = toApiError(wrapped(pgError(code, message)));
    expect([api.status, api.code]).toEqual([400, "invalid_request"]);
  });

  test("anything else is still a 500", () => {
    expect(toApiError(wrapped(pgError("42P01", 'relation "x" does not exist'))).status).toBe(500);
  });
});

describe("a nearly full disk", () => {
  test("a statement the store refused (53100) or met after a PANIC (57P03) → 503 with Retry-After, saying which", () => {
    const full = toApiError(wrapped(new DiskFull("the disk holding /data/pg has 19.0 MiB free")));
    expect([full.status, full.code]).toEqual([503, "service_unavailable"]);
    expect(isDiskFull(wrapped(new DiskFull("x")))).toBe(true);
    expect(full.message).toMatch(/disk is full/);
    const restarting = toApiError(wrapped(new StoreRestarting("reopening")));
    expect([restarting.status, restarting.code]).toEqual([503, "service_unavailable"]);
    expect(Number(restarting.options.headers?.["retry-after"])).toBeGreaterThan(0);
  });

  test("while the store refuses writes: requests that change data → 503 after auth, reads served", async () => {
    let refused: string | undefined = "the disk holding /data/pg has 25.0 MiB free";
    const h = await harness({ store: { ...(await testStore()), writesRefused: () => refused } });
    const key = await h.key();
    const chat = await h.call("POST", "/v1/chat", { key, json: { message: "hello" } });
    expectError(chat, 503, "service_unavailable");
    expect(Number(chat.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(chat.json.error.message).toMatch(/disk is nearly full/);
    // The key's check comes first: no key is still a 401.
    expectError(await h.call("POST", "/v1/chat", { key: null, json: { message: "hello" } }), 401, "unauthorized");
    expect((await h.call("GET", "/v1/conversations", { key })).status).toBe(200);
    refused = undefined;
    expect((await h.call("POST", "/v1/chat", { key, json: { message: "hello" } })).status).toBe(200);
  });
});
