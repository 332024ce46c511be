/** Function words of the configurations with no stop list, as questions write them. */
import { expect, test } from "bun:test";
import { stopWordsOf } from "../../src/knowledge/stop-words.ts";

const removed = (text: string, config: string) => stopWordsOf(text, config)[config]?.[0].split(" ") ?? [];

test("each language's words are found as its writers write them", () => {
  expect(removed("Gimana cara menambah stok yang baru di gudang?", "indonesian")).toEqual(
    expect.arrayContaining(["yang", "di"]),
  );
  // Greek with its accents and final ς; Romanian with ș and ț (the lists write σ, ş, ţ).
  expect(removed("Πώς αλλάζω τον κωδικό της εφαρμογής από το μενού;", "greek")).toEqual(
    expect.arrayContaining(["Πώς", "της", "από"]),
  );
  expect(removed("Cum schimb parola și deşi aţi uitat-o?", "romanian")).toEqual(expect.arrayContaining(["și"]));
  expect(removed("Làm sao để tạo vận đơn cho khách?", "simple")).toEqual(expect.arrayContaining(["để", "cho"]));
});

test("the text without them keeps every other word; a text with none gives nothing", () => {
  const [words, kept] = stopWordsOf("stok yang baru", "indonesian").indonesian!;
  expect(words).toContain("yang");
  expect(kept).toContain("stok");
  expect(kept).not.toContain("yang");
  expect(stopWordsOf("gudang stok", "indonesian")).toEqual({});
  // English has a stop list of its own: nothing here.
  expect(stopWordsOf("How do I sign cookies?", "english")).toEqual({});
});
