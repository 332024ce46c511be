/**
 * The admin socket's answers to malformed requests: JSON errors, never Bun's
 * HTML error page (which showed the exception and the working directory). In-process: the
 * socket is started on a temp folder; no command reaches the store.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { ADMIN_SOCKET, startAdmin } from "../src/runtime/admin.ts";
import type { OpenedStore } from "../src/runtime/store.ts";
import { tempDir } from "./helpers/process.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const dir = tempDir("parley-admin-sock-");
const errors: unknown[] = [];
const admin = startAdmin(
  dir,
  {} as OpenedStore,
  () => {},
  (e) => errors.push(e),
);
afterAll(() => admin.stop());

const post = (body: string) =>
  fetch("http://parley/run", {
    unix: join(dir, ADMIN_SOCKET),
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  } as RequestInit);

describe("admin socket: malformed requests", () => {
  test.each(["{not json", "", "null", "42", '"argv"', '{"argv": "keys"}', '{"argv": [1, 2]}', '{"argv": ["rm"]}'])(
    "%p → 400 JSON, no HTML, nothing logged as a failure",
    async (body) => {
      const r = await post(body);
      const text = await r.text();
      expect(r.status, text).toBe(400);
      expect(r.headers.get("content-type"), text).toContain("application/json");
      expect(typeof (JSON.parse(text) as { error?: unknown }).error).toBe("string");
      expect(text).not.toContain(process.cwd());
      expect(errors).toEqual([]);
    },
  );
});
