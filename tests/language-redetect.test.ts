/**
 * A release that detects languages better detects the stored documents again, once per store:
 * a Russian page an older release stored as `simple` (unstemmed) becomes `russian`, its passages
 * re-indexed, so an inflected question finds it; a document whose language was given stays.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../src/db/client.ts";
import { documents } from "../src/db/schema.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { DETECTION_MARK, redetectLanguagesOnce } from "../src/knowledge/reindex.ts";
import { rankPassages } from "../src/knowledge/search.ts";
import { migratedPglite } from "./helpers/store.ts";

setDefaultTimeout(120_000); // a PGlite of its own: seconds on a busy machine

/** Page `url` detected as `language` and indexed with it, and the store not marked as detected again. */
async function asAnOlderReleaseLeftIt(db: Db, url: string, language: string) {
  await db.execute(sql`update documents set language = ${language} where url = ${url}`);
  await db.execute(sql`update chunks c set tsv = to_tsvector(${language}::regconfig, c.content)
    from documents d where d.id = c.document_id and d.url = ${url}`);
  await db.execute(sql`delete from instance_secrets where name = ${DETECTION_MARK}`);
}

test("detected documents are detected again once; their passages follow; a given language stays", async () => {
  const store = await migratedPglite();
  try {
    const { db } = store;
    const text = "Чтобы вернуться к предыдущей версии сайта, выполните site rollback. Откат не требует сборки.";
    await ingestDocuments(db, [
      { url: "https://ru.test/rollback", title: "Откат", content: text },
      { url: "https://ru.test/given", title: "Откат", content: text, language: "simple" },
      { url: "https://ru.test/older", title: "Откат", content: text, language: "german" },
    ]);
    // Stores from before languages' sources were recorded count some given languages as detected.
    await db.execute(sql`update documents set language_source = 'detected' where url = 'https://ru.test/older'`);
    // As an older release left it: detected as `simple`, indexed unstemmed, the store not marked.
    await asAnOlderReleaseLeftIt(db, "https://ru.test/rollback", "simple");
    const found = async () =>
      (await rankPassages(db, "как вернуть предыдущую версию", { language: "russian" })).map((h) => h.url);
    expect(await found()).not.toContain("https://ru.test/rollback");

    expect(await redetectLanguagesOnce(db)).toBe(1);
    const language = async (url: string) =>
      (await db.select({ l: documents.language }).from(documents).where(eq(documents.url, url)))[0]?.l;
    expect(await language("https://ru.test/rollback")).toBe("russian");
    expect(await language("https://ru.test/given")).toBe("simple");
    expect(await language("https://ru.test/older")).toBe("german"); // not a fallback of the earlier detection
    expect(await found()).toContain("https://ru.test/rollback");
    expect(await redetectLanguagesOnce(db)).toBe(0); // once per store
  } finally {
    await store.close();
  }
});

test("a Polish page an older release read as English is detected again and indexed cut", async () => {
  const store = await migratedPglite();
  try {
    const { db } = store;
    const text =
      "Konfiguracja programu Skrytka znajduje się w pliku skrytka.yaml, a zmiany wymagają ponownego uruchomienia.";
    await ingestDocuments(db, [{ url: "https://pl.test/konfiguracja", title: "Konfiguracja", content: text }]);
    await asAnOlderReleaseLeftIt(db, "https://pl.test/konfiguracja", "english");
    const found = async () =>
      (await rankPassages(db, "Jak zmienić konfigurację Skrytki?", { language: "polish" })).map((h) => h.url);
    expect(await found()).toEqual([]);
    expect(await redetectLanguagesOnce(db)).toBe(1);
    expect(await found()).toContain("https://pl.test/konfiguracja");
  } finally {
    await store.close();
  }
});
