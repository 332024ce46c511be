/** GET /v1/backup: admin keys only; the archive streams with a file name and loads as any archive does. */
import { describe, expect, test } from "bun:test";
import { openArchive } from "../src/db/archive/index.ts";
import { expectError, harness } from "./helpers/app.ts";

const h = await harness();

describe("GET /v1/backup", () => {
  test("an admin key downloads the store's archive: gzip, a file name, not cached", async () => {
    const res = await h.app.handle(
      new Request("http://localhost/v1/backup", { headers: { authorization: `Bearer ${await h.admin()}` } }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/gzip");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="parley-\d{4}-\d{2}-\d{2}\.parley"$/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const { header, parts } = await openArchive(res.body!);
    expect(header.tables).toContain("api_keys");
    let rows = 0;
    for await (const part of parts) if (part.kind === "row") rows++;
    expect(rows).toBeGreaterThan(0);
  });

  test("a chat key is refused (403), no key 401", async () => {
    expectError(await h.call("GET", "/v1/backup", { key: await h.key() }), 403, "permission_denied");
    expectError(await h.call("GET", "/v1/backup"), 401, "unauthorized");
  });
});
