/** Citation markers as Markdown links (src/openai-compat/citations.ts): whole, exact, never inside code. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { cite, LinkHold } from "../src/openai-compat/citations.ts";

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

describe("LinkHold", () => {
  const run = (tokens: string[]) => {
    const hold = new LinkHold();
    const sent = tokens.map((t) => hold.push(t));
    const final = cite(tokens.join(""), SOURCES, TITLES, "links").text;
    return { sent, rest: hold.end(final), final };
  };

  test("text streams until the first marker; a split marker is held whole; the rest comes rewritten at the end", () => {
    const { sent, rest, final } = run(["Hello", " world [", "1", "] more", " [2]."]);
    expect(sent).toEqual(["Hello", " world ", "", "", ""]);
    expect(sent.join("") + rest).toBe(final);
    expect(rest).toBe("[1](https://a.test/x) more [2](https://b.test/a%20%28b%29).");
  });

  test("a bracket that is no marker is released; markers inside fenced code do not hold", () => {
    const { sent, rest, final } = run(["a [note", "] b ``", "`\nx[1]\n``", "`\n c"]);
    expect(sent).toEqual(["a [note", "] b ", "```\nx[1]\n", "```\n c"]);
    expect(rest).toBe("");
    expect(sent.join("")).toBe(final);
  });
});
