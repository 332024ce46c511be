/**
 * Languages PostgreSQL has no stemmer for (Polish, Czech, Slovak, Ukrainian) are detected and read
 * by unstemmed.ts on both sides: function words dropped, words cut to a prefix, so a question's
 * inflected form meets the page's ("konfiguracji" and "Konfiguracja"), and "w", "się" or "на" are
 * no words a question shares with every page.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { createKnowledgeBase } from "../src/knowledge/bases.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { detectLanguage } from "../src/knowledge/language.ts";
import { rankPassages } from "../src/knowledge/search.ts";
import { cutWords } from "../src/knowledge/unstemmed.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const PAGES = [
  {
    url: "https://docs.test/pl/konfiguracja",
    title: "Konfiguracja programu Skrytka",
    content:
      "Konfiguracja programu Skrytka znajduje się w pliku `/etc/skrytka.yaml`. Po każdej zmianie uruchom ponownie usługę, aby nowe ustawienia zaczęły działać.",
  },
  {
    url: "https://docs.test/pl/klucze",
    title: "Klucze dostępu",
    content:
      "Klucze dostępu tworzy się w panelu w zakładce Ustawienia. Każdy klucz ma datę ważności i można go w każdej chwili unieważnić.",
  },
  {
    url: "https://docs.test/pl/cennik",
    title: "Cennik",
    content:
      "Plan darmowy obejmuje jeden projekt i 5 GB miejsca. Plan zespołowy kosztuje 49 zł miesięcznie i nie ma limitu projektów.",
  },
];

const { db } = await testStore();
const kb = await createKnowledgeBase(db, { name: `unstemmed-${crypto.randomUUID()}` });
await ingestDocuments(db, PAGES, { kbId: kb.id });

test("function words go, words keep their first letters", () => {
  const cut = (text: string) => cutWords(text).replace(/\s+/g, " ").trim();
  expect(cut("Gdzie jest plik konfiguracji agenta?")).toBe("plik konfig agenta?");
  expect(cut("Як налаштувати нагадування у Telegram?")).toBe("налашт нагаду telegr?");
  expect(detectLanguage(PAGES[0]!.content)).toBe("polish");
});

test("an inflected form finds the page that writes another", async () => {
  const hits = await rankPassages(db, "Gdzie mogę zmienić ustawienia konfiguracji agenta na serwerze?", {
    kbId: kb.id,
  });
  expect(hits[0]?.url).toBe("https://docs.test/pl/konfiguracja");
  const pricing = await rankPassages(db, "Ile kosztuje plan zespołowy na miesiąc?", { kbId: kb.id });
  expect(pricing[0]?.url).toBe("https://docs.test/pl/cennik");
});

test("a question sharing only function words with the pages is refused", async () => {
  expect(
    await rankPassages(db, "Czy w sobotę będzie padać deszcz na wybrzeżu, i jak się ubrać na spacer?", { kbId: kb.id }),
  ).toEqual([]);
});
