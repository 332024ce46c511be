/**
 * The widget's Markdown parser (widget/markdown.ts): the plain tree it builds, which dom.ts turns
 * into nodes. Model text must only ever become strings in the tree, and links only http(s).
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { type MdElement, type MdNode, parseInline, parseMarkdown, safeUrl, textOf } from "../../widget/markdown.ts";

setDefaultTimeout(30_000);

/** Every element of a tree, depth first. */
const elements = (nodes: MdNode[]): MdElement[] =>
  nodes.flatMap((n) => (typeof n === "string" ? [] : [n, ...elements(n.children)]));

describe("widget Markdown", () => {
  test("paragraphs, headings below the panel's h2, rules", () => {
    const tree = parseMarkdown("# Title\n\nOne\nline.\n\n### Small\n\n---\n\nTwo.");
    expect(tree).toEqual([
      { tag: "h3", children: ["Title"] },
      { tag: "p", children: ["One line."] },
      { tag: "h4", children: ["Small"] },
      { tag: "hr", children: [] },
      { tag: "p", children: ["Two."] },
    ]);
  });

  test("inline code, bold, italic; snake_case stays as written", () => {
    expect(parseInline("Use `x<y>` with **bold _and_ it** or *it* in snake_case_name")).toEqual([
      "Use ",
      { tag: "code", children: ["x<y>"] },
      " with ",
      { tag: "strong", children: ["bold ", { tag: "em", children: ["and"] }, " it"] },
      " or ",
      { tag: "em", children: ["it"] },
      " in snake_case_name",
    ]);
  });

  test("links: http(s) only, opened as links; javascript: and relative ones stay text", () => {
    expect(parseInline("[Docs](https://example.com/a) and [x](javascript:alert(1)) and [y](/rel)")).toEqual([
      { tag: "a", href: "https://example.com/a", children: ["Docs"] },
      " and x) and y", // the refused link's label only (its URL ends at the first ")")
    ]);
    expect(parseInline("see https://example.com/page. Then")).toEqual([
      "see ",
      { tag: "a", href: "https://example.com/page", children: ["https://example.com/page"] },
      ". Then",
    ]);
    expect(safeUrl("data:text/html,<b>x</b>")).toBeUndefined();
    expect(safeUrl("javascript:alert(1)")).toBeUndefined();
  });

  test("citations [n] link to the reply's n-th source; unknown numbers stay text", () => {
    const sources = ["https://docs.example/a", "javascript:alert(1)"];
    expect(parseInline("Yes [1][2] [3].", sources)).toEqual([
      "Yes ",
      { tag: "a", href: "https://docs.example/a", cite: 1, children: ["[1]"] },
      "[2] [3].",
    ]);
  });

  test("HTML in an answer is text, never an element", () => {
    const text = '<script>alert(1)</script> <img src=x onerror="alert(2)">\n\n```html\n<b>bold</b>\n```';
    const tree = parseMarkdown(text);
    expect(elements(tree).map((e) => e.tag)).toEqual(["p", "pre", "code"]);
    expect(textOf(tree)).toContain("<script>alert(1)</script>");
    expect(textOf(tree)).toContain("<b>bold</b>");
  });

  test("fenced code keeps its text; an unclosed fence (mid-stream) is code so far", () => {
    expect(parseMarkdown("```ts\nconst a = 1;\n\n**no** bold\n```\nafter")).toEqual([
      { tag: "pre", children: [{ tag: "code", children: ["const a = 1;\n\n**no** bold"] }] },
      { tag: "p", children: ["after"] },
    ]);
    expect(parseMarkdown("Run:\n```\nbun install")).toEqual([
      { tag: "p", children: ["Run:"] },
      { tag: "pre", children: [{ tag: "code", children: ["bun install"] }] },
    ]);
  });

  test("lists: tight items, numbering, nesting by indentation, a paragraph after", () => {
    const tree = parseMarkdown("Steps:\n3. one\n4. **two**\n   - a\n   - b\n\nDone.");
    expect(tree).toEqual([
      { tag: "p", children: ["Steps:"] },
      {
        tag: "ol",
        start: 3,
        children: [
          { tag: "li", children: ["one"] },
          {
            tag: "li",
            children: [
              { tag: "strong", children: ["two"] },
              {
                tag: "ul",
                children: [
                  { tag: "li", children: ["a"] },
                  { tag: "li", children: ["b"] },
                ],
              },
            ],
          },
        ],
      },
      { tag: "p", children: ["Done."] },
    ]);
  });

  test("a bullet list after an ordered one is a list of its own; quotes hold blocks", () => {
    const tree = parseMarkdown("1. a\n- b\n\n> quoted **x**\n> - item");
    expect(tree.map((b) => b.tag)).toEqual(["ol", "ul", "blockquote"]);
    expect(tree[2]!.children).toEqual([
      { tag: "p", children: ["quoted ", { tag: "strong", children: ["x"] }] },
      { tag: "ul", children: [{ tag: "li", children: ["item"] }] },
    ]);
  });

  test("an unclosed emphasis mid-stream shows as typed", () => {
    expect(parseInline("this is **bol")).toEqual(["this is **bol"]);
  });
});

describe("widget Markdown to DOM", () => {
  test("links open safely, citations are labelled, code gets a Copy button, HTML stays text", async () => {
    const { parseHTML } = await import("linkedom");
    const { document } = parseHTML("<!doctype html><html><body></body></html>");
    const saved = globalThis.document;
    globalThis.document = document as unknown as Document;
    try {
      const { renderMarkdown } = await import("../../widget/dom.ts");
      const div = document.createElement("div");
      const md = "See [docs](https://d.example/x) [1] <img src=x onerror=alert(1)>\n\n```\n<b>x</b>\n```";
      div.append(...(renderMarkdown(parseMarkdown(md, ["https://s.example/1"])) as never[]));
      expect(div.querySelector("img")).toBeNull();
      expect(div.querySelector("b")).toBeNull();
      const links = [...div.querySelectorAll("a")].map((a) => [a.href, a.rel, a.target, a.getAttribute("aria-label")]);
      expect(links).toEqual([
        ["https://d.example/x", "noopener noreferrer", "_blank", null],
        ["https://s.example/1", "noopener noreferrer", "_blank", "Source 1"],
      ]);
      expect(div.querySelector("pre")!.textContent).toBe("<b>x</b>");
      expect(div.querySelector(".code button")!.textContent).toBe("Copy");
      expect(div.innerHTML).not.toContain("style=");
    } finally {
      globalThis.document = saved;
    }
  });
});
