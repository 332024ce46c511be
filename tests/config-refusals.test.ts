/** Settings refused at start because they cannot work: a clear message naming the variable. */
import { describe, expect, test } from "bun:test";
import { loadEnv } from "../src/config/env.ts";

describe("REUSE_PORT", () => {
  test("true without DATABASE_URL (PGlite) is refused: two PGlite servers on one port answer from different stores", () => {
    expect(() => loadEnv({ REUSE_PORT: "true" })).toThrow(/REUSE_PORT: true only with DATABASE_URL/);
    expect(() => loadEnv({ REUSE_PORT: "true", DATA_DIR: "/tmp/x" })).toThrow(/REUSE_PORT/);
  });
  test("true with DATABASE_URL, and false or unset with PGlite, are accepted", () => {
    expect(loadEnv({ REUSE_PORT: "true", DATABASE_URL: "postgres://u@h/db" }).REUSE_PORT).toBe(true);
    expect(loadEnv({ REUSE_PORT: "false" }).REUSE_PORT).toBe(false);
    expect(loadEnv({}).REUSE_PORT).toBe(false);
  });
});
