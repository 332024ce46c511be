/** Citation markers as Markdown links (src/openai-compat/citations.ts): whole, exact, never inside code. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import { type CitationStyle, CiteStream, cite } from "../src/openai-compat/citations.ts";

setDefaultTimeout(30_000);

const SOURCES = ["https://a.test/x", "https://b.test/a (b)"];
const TITLES = new Map([["https://a.test/x", "A"]]);

describe("cite", () => {
  test("links: each marker naming a source becomes a link, annotated exactly; others and fenced code untouched", () => {
    const content = "See [1] and [2], not [3].\n```\nxs[1]\n```\nAgain [1].";
    const { text, citations } = cite(content, SOURCES, TITLES, "links");
    expect(text).toBe(
      "See [1](https://a.test/x) and [2](https://b.test/a%20%28b%29), not [3].\n```\nxs[1]\n```\nAgain [1](https://a.test/x).",
    );
    expect(citations.map((c) => text.slice(c.start, c.end))).toEqual([
      "[1](https://a.test/x)",
      "[2](https://b.test/a%20%28b%29)",
      "[1](https://a.test/x)",
    ]);
    expect(citations.map((c) => [c.url, c.title])).toEqual([
      ["https://a.test/x", "A"],
      ["https://b.test/a (b)", "https://b.test/a (b)"],
      ["https://a.test/x", "A"],
    ]);
  });

  test("markers: the text as stored, annotations over the markers", () => {
    const { text, citations } = cite("One [2] two [1]", SOURCES, TITLES, "markers");
    expect(text).toBe("One [2] two [1]");
    expect(citations.map((c) => text.slice(c.start, c.end))).toEqual(["[2]", "[1]"]);
  });
});

/** Feeds a scripted reply (tokens, and the sources so far as `string[]` items) to a CiteStream. */
function stream(style: CitationStyle, script: (string | string[])[]) {
  const cites = new CiteStream(style, TITLES);
  const sent = script.map((x) => (typeof x === "string" ? cites.push(x) : cites.grow(x)));
  const rest = cites.end();
  const all = [...sent, rest];
  return {
    texts: sent.map((r) => r.text),
    rest: rest.text,
    text: all.map((r) => r.text).join(""),
    citations: all.flatMap((r) => r.citations),
  };
}

describe("CiteStream", () => {
  test("text streams past a marker once its source is known; a split marker is held whole, then sent as its link", () => {
    const { texts, rest, text } = stream("links", [["https://a.test/x"], "Hello", " world [", "1", "] more", " [2]."]);
    expect(texts).toEqual(["", "Hello", " world ", "", "[1](https://a.test/x) more", " "]);
    // [2]'s source never came: it goes out as it is, at the end.
    expect(rest).toBe("[2].");
    expect(text).toBe(cite("Hello world [1] more [2].", ["https://a.test/x"], TITLES, "links").text);
  });

  test("a marker whose source comes later waits for it alone, and goes out when it comes", () => {
    const { texts, rest, citations, text } = stream("links", [
      "See [2]",
      " and",
      ["https://a.test/x"],
      ["https://a.test/x", "https://b.test/a (b)"],
      " then [1].",
    ]);
    expect(texts).toEqual(["See ", "", "", "[2](https://b.test/a%20%28b%29) and", " then [1](https://a.test/x)."]);
    expect(rest).toBe("");
    const final = cite("See [2] and then [1].", SOURCES, TITLES, "links");
    expect(text).toBe(final.text);
    expect(citations).toEqual(final.citations);
  });

  test("markers in fenced code, split fences and brackets that are no markers never wait", () => {
    const { texts, rest, text } = stream("links", ["a [note", "] b ``", "`\nx[1]\n``", "`\n c [", "x]"]);
    expect(texts).toEqual(["a [note", "] b ", "```\nx[1]\n", "```\n c ", "[x]"]);
    expect(rest).toBe("");
    expect(text).toBe(cite("a [note] b ```\nx[1]\n```\n c [x]", [], TITLES, "links").text);
  });

  test("markers style: the text is never held for a source; a citation is reported when its source is known, in order", () => {
    const cites = new CiteStream("markers", TITLES);
    expect(cites.push("One [2] two [1]")).toEqual({ text: "One [2] two [1]", citations: [] });
    const one = cites.grow(["https://a.test/x"]);
    // [1] is known, but [2] before it is not: citations come in the text's order.
    expect(one).toEqual({ text: "", citations: [] });
    const both = cites.grow(SOURCES);
    expect(both.citations).toEqual(cite("One [2] two [1]", SOURCES, TITLES, "markers").citations);
    expect(cites.end()).toEqual({ text: "", citations: [] });
  });

  test("an unknown number is no citation at the end, and the ones after it still are", () => {
    const { text, citations } = stream("markers", [["https://a.test/x"], "x [3] y [1]"]);
    expect(text).toBe("x [3] y [1]");
    expect(citations).toEqual(cite("x [3] y [1]", ["https://a.test/x"], TITLES, "markers").citations);
  });

  test("whatever the tokens and however the sources grow, the stream adds up to `cite` over the whole reply", () => {
    const piece = fc.constantFrom(
      "[",
      "]",
      "1",
      "2",
      "3",
      "[1]",
      "[2]",
      "[3]",
      "`",
      "```",
      "\n",
      " a",
      "b",
      "[12]",
      "😀",
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 30 }),
        fc.array(fc.nat(30), { maxLength: 3 }),
        fc.constantFrom<CitationStyle>("links", "markers"),
        (pieces, at, style) => {
          const urls = ["https://a.test/x", "https://b.test/a (b)", "https://c.test/"];
          // Source n+1 arrives before token at[n] (sorted: the list only grows).
          const when = [...at].sort((x, y) => x - y);
          const script: (string | string[])[] = [];
          for (const [i, p] of pieces.entries()) {
            for (const [n, w] of when.entries()) if (w === i) script.push(urls.slice(0, n + 1));
            script.push(p);
          }
          const final = urls.slice(0, when.filter((w) => w < pieces.length).length);
          const got = stream(style, script);
          const want = cite(pieces.join(""), final, TITLES, style);
          expect(got.text).toBe(want.text);
          expect(got.citations).toEqual(want.citations);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
