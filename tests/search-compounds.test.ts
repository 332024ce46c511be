/**
 * A long word of the question that the knowledge base lacks, made of a head and a tail it holds
 * (German Datenbankverbindung, with or without a linking element), is searched as its halves:
 * they score and cover as the message's words, and the compound no longer counts as an unseen
 * word against the abstention. A word whose halves the knowledge base does not both hold is
 * still unseen, so an off-topic question stays refused.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { createKnowledgeBase } from "../src/knowledge/bases.ts";
import { compoundLines } from "../src/knowledge/compounds.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { queryTerms, rankPassages } from "../src/knowledge/search.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const { db } = await testStore();
const kb = await createKnowledgeBase(db, { name: `compounds-${crypto.randomUUID()}`, language: "german" });
await ingestDocuments(
  db,
  [
    {
      url: "https://kai.test/datenbank",
      title: "Datenbank anbinden",
      content:
        "Die Datenbank wird über die Variable `DATABASE_URL` angebunden. Jede Verbindung wird nach 30 Sekunden ohne Antwort getrennt.",
    },
    {
      url: "https://kai.test/speicher",
      title: "Speicher",
      content: "Dateien liegen im Speicher des Projekts. Der Speicher umfasst bis zu 10 GB pro Projekt.",
    },
    {
      url: "https://kai.test/protokolle",
      title: "Protokolle",
      content: "Protokolle werden 30 Tage aufbewahrt. Jede Anfrage an die Anwendung schreibt eine Zeile.",
    },
    {
      url: "https://kai.test/arbeit",
      title: "Arbeitsabläufe",
      content: "Ein Ablauf startet bei jedem Push. Die Arbeit läuft in einem eigenen Container.",
    },
  ],
  { kbId: kb.id },
);

test("candidates: every cut of a long cased word, the head also without one or two linking letters", () => {
  const lines = compoundLines("Wie richte ich die Datenbankverbindung ein? 传递数据").split("\n");
  expect(lines).toContain("datenbankverbindung datenbank verbindung");
  expect(lines).toContain("datenbankverbindung datenban kverbindung");
  // Linking letters: Verbindungs|aufbau also cut as Verbindung + aufbau and Verbindun + aufbau.
  const linked = compoundLines("Verbindungsaufbau").split("\n");
  expect(linked).toContain("verbindungsaufbau verbindungs aufbau");
  expect(linked).toContain("verbindungsaufbau verbindung aufbau");
  expect(linked).toContain("verbindungsaufbau verbindun aufbau");
  // Short words, CJK and digits are never cut; halves have three letters at least.
  expect(compoundLines("Zeile ab 10GBytes 传递数据传递数据")).toBe("");
  expect(lines.every((l) => l.split(" ").every((part) => [...part].length >= 3))).toBe(true);
});

test("an unseen compound whose halves the knowledge base holds is searched as them, and answered", async () => {
  const question = "Warum bricht meine Datenbankverbindung ab?";
  const hits = await rankPassages(db, question, { kbId: kb.id });
  expect(hits[0]?.url).toBe("https://kai.test/datenbank");
  const terms = await queryTerms(db, question, { kbId: kb.id });
  const term = (t: string) => terms.find((x) => x.term === t);
  expect(term("datenbank")).toMatchObject({ from: "message", known: true });
  expect(term("verbind")).toMatchObject({ from: "message", known: true });
  expect(term("datenbank")!.weight).toBeGreaterThan(0);
  expect(term("datenbankverbind")).toMatchObject({ known: false });
});

test("a linking element between the halves: Arbeitsspeicher is Arbeit + Speicher", async () => {
  const terms = await queryTerms(db, "Wie viel Arbeitsspeicher bekommt mein Projekt?", { kbId: kb.id });
  expect(terms.map((t) => t.term)).toEqual(expect.arrayContaining(["arbeit", "speich"]));
});

test("a word whose halves the knowledge base does not both hold stays unseen: off-topic is refused", async () => {
  // Fußball is no term here: "Fußballergebnisse" is not cut into it and Ergebnis.
  const question = "Wo finde ich die Fußballergebnisse von gestern?";
  expect(await rankPassages(db, question, { kbId: kb.id })).toEqual([]);
  const terms = await queryTerms(db, question, { kbId: kb.id });
  expect(terms.map((t) => t.term)).not.toContain("ergebnis");
});
