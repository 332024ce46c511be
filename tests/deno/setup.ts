/** What both Deno smoke tests start from: an in-memory PGlite store with one document and a key. */
import { createKey, ingestDocuments, migrate, openPglite, type Store } from "../../src/mod.ts";

export async function smokeStore(): Promise<{ store: Store; secret: string }> {
  const store = await openPglite();
  await migrate(store);
  await ingestDocuments(store.db, [
    {
      url: "https://smoke.test/deno",
      title: "Deno",
      content: "# Deno\nParley runs on Deno as an Elysia plugin served by Deno.serve.",
    },
  ]);
  const { secret } = await createKey(store.db, { name: "deno", plan: "pro" });
  return { store, secret };
}

/** An assertion that prints `ok - what`, or throws naming the smoke test and `what`. */
export const checker =
  (name: string) =>
  (cond: unknown, what: string): asserts cond => {
    if (!cond) throw new Error(`${name}: ${what}`);
    console.log(`ok - ${what}`);
  };
