/**
 * HTML → Markdown with turndown: ATX headings (`#`, so Parley's chunker splits passages at
 * them), fenced code blocks that keep their language, GFM tables (parameter tables are much of
 * a documentation page). turndown parses strings with its bundled pure-JS DOM (domino), so this
 * runs in the compiled binary and on Deno.
 */
import TurndownService from "turndown";
import { tables } from "turndown-plugin-gfm";
import type { DomElement } from "./dom.ts";

/** The language of a code block from `language-xx` / `lang-xx` on `<code>` or on `<pre>`. */
function codeLanguage(pre: DomElement): string {
  const code = pre.querySelector("code");
  const classes = `${code?.getAttribute("class") ?? ""} ${pre.getAttribute("class") ?? ""}`;
  const fromClass = /(?:^|\s)(?:language|lang)-([\w#+.-]+)/.exec(classes)?.[1];
  return fromClass ?? code?.getAttribute("data-language") ?? pre.getAttribute("data-language") ?? "";
}

/** Attribute marking an <h1> before Readability turns it into an <h2>. */
export const H1_MARK = "data-parley-h1";

function createService(): TurndownService {
  const service = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "*",
  });
  service.use(tables);
  // Every <pre> is a code block, with or without an inner <code> (turndown's own rule needs
  // one) and with the language read from either element; the fence grows past any run of
  // backticks inside the code so it cannot close early.
  service.addRule("fencedCodeWithLanguage", {
    filter: (node) => node.nodeName === "PRE",
    replacement: (_content, node) => {
      const pre = node as unknown as DomElement;
      const code = (pre.textContent ?? "").replace(/\n$/, "");
      const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
      const fence = "`".repeat(longest + 1);
      return `\n\n${fence}${codeLanguage(pre)}\n${code}\n${fence}\n\n`;
    },
  });
  // A heading marked as a former <h1> (Readability renames them) is written as `#` again.
  service.addRule("formerH1", {
    filter: (node) => node.nodeName === "H2" && (node as unknown as DomElement).hasAttribute(H1_MARK),
    replacement: (content) => `\n\n# ${content.replace(/\s+/g, " ").trim()}\n\n`,
  });
  // Images carry no text a question can match; their alt text is kept as plain words.
  service.addRule("imageAlt", {
    filter: "img",
    replacement: (_content, node) => (node as unknown as DomElement).getAttribute("alt") ?? "",
  });
  return service;
}

let service: TurndownService | undefined;

/** Markdown of an HTML fragment; runs of blank lines are folded to one. */
export function htmlToMarkdown(html: string): string {
  service ??= createService();
  return service
    .turndown(html)
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
