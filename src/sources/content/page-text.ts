/**
 * One crawled HTML page → its title, its main content as Markdown, its canonical URL, its
 * links and its language. linkedom gives a light DOM (pure JS, no browser); site chrome is
 * removed first (strip.ts); the content is then the page's semantic main element when it has
 * one (documentation generators mark it, and Readability's density scoring can drop short
 * sections or parameter tables inside it), else what @mozilla/readability extracts from a page
 * of plain `<div>`s, else the whole remaining body. turndown writes the Markdown.
 */
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import type { DomDocument } from "./dom.ts";
import { type NormalizeOptions, pageLinks, resolveHref } from "./links.ts";
import { stripNonContent } from "./strip.ts";
import { H1_MARK, htmlToMarkdown } from "./to-markdown.ts";

/** What a page holds for the knowledge base and for the crawler. */
export interface PageText {
  title: string;
  markdown: string;
  /** `<link rel="canonical">` as an absolute URL, when the page names one. */
  canonical?: string;
  /** Page links (whole page, navigation included), resolved and normalised. */
  links: string[];
  /** `<html lang>`, when set. */
  lang?: string;
  /** Which path found the content: a semantic element, Readability, or the body. */
  extractedBy: "main" | "readability" | "body";
}

/** The semantic containers of a page's main content, most specific first. */
const MAIN_SELECTORS = ["main article", "[role=main] article", "main", "[role=main]", "article"];

/** Less text than this from a semantic element or Readability means it missed the content. */
const MIN_CONTENT_CHARS = 40;

/** linkedom's document, typed by what is used of it (its own types name the DOM globals). */
const parseDocument = (html: string) => (parseHTML(html) as unknown as { document: DomDocument }).document;

const clean = (s: string | null | undefined) => s?.replace(/\s+/g, " ").trim() ?? "";

/**
 * The title: `<title>`, else `og:title`, else the first `<h1>`. Read before stripping, since
 * a page header holding the `<h1>` is removed with the chrome.
 */
function titleOf(document: DomDocument): string {
  return (
    clean(document.querySelector("title")?.textContent) ||
    clean(document.querySelector('meta[property="og:title"]')?.getAttribute("content")) ||
    clean(document.querySelector("h1")?.textContent)
  );
}

function canonicalOf(document: DomDocument, pageUrl: string): string | undefined {
  const href = document.querySelector('link[rel~="canonical"][href]')?.getAttribute("href");
  // The query is kept: a canonical URL is the site's own statement of the page's address.
  return href ? resolveHref(href, pageUrl, { keepQuery: true }) : undefined;
}

/** The HTML of the main content after stripping, and which path found it. */
function mainContent(document: DomDocument): { html: string; by: PageText["extractedBy"] } {
  for (const selector of MAIN_SELECTORS) {
    const el = document.querySelector(selector);
    if (el && clean(el.textContent).length >= MIN_CONTENT_CHARS) return { html: el.innerHTML, by: "main" };
  }
  const body = document.body?.innerHTML ?? "";
  // Readability changes the document it reads, so it gets a copy; the body stays for the fallback.
  const copy = parseDocument(`<!doctype html><html><head></head><body>${body}</body></html>`);
  // Readability renames every <h1> to <h2>; the mark lets the Markdown keep the page's levels.
  for (const h1 of copy.querySelectorAll("h1")) h1.setAttribute(H1_MARK, "");
  // Readability skips hidden elements; documentation tabs hide the other languages' code.
  for (const el of copy.querySelectorAll("[hidden], [aria-hidden], [style]")) {
    for (const name of ["hidden", "aria-hidden", "style"]) el.removeAttribute(name);
  }
  try {
    const article = new Readability(copy as never, { keepClasses: true, charThreshold: 100 }).parse();
    if (article?.content && clean(article.textContent).length >= MIN_CONTENT_CHARS)
      return { html: article.content, by: "readability" };
  } catch {
    // Readability failing on odd markup is no reason to lose the page: the body follows.
  }
  return { html: body, by: "body" };
}

/** Reads a page. `pageUrl` resolves relative links and the canonical URL. */
export function pageText(html: string, pageUrl: string, options: NormalizeOptions = {}): PageText {
  const document = parseDocument(html);
  const title = titleOf(document);
  const canonical = canonicalOf(document, pageUrl);
  const links = pageLinks(document, pageUrl, options);
  const lang = clean(document.documentElement?.getAttribute("lang")) || undefined;
  stripNonContent(document);
  const { html: content, by } = mainContent(document);
  return { title, markdown: htmlToMarkdown(content), canonical, links, lang, extractedBy: by };
}
