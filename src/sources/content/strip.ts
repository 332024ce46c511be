/**
 * Removal of the parts of a page that are not its content, before extraction: site chrome
 * (navigation, header, footer, sidebars), tables of contents (they repeat the headings),
 * cookie banners and "Was this page helpful?" widgets (the same text on every page), and
 * elements that hold no readable text (scripts, styles, forms, SVG). Hidden elements stay:
 * documentation tabs hide the panels of the other languages, and those hold code. Readability judges by
 * text density and can keep a long sidebar; removing these first keeps them out of every path.
 */
import type { DomElement, DomRoot } from "./dom.ts";

/** Elements that are never content wherever they appear. */
const NEVER_CONTENT = [
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "form",
  "iframe",
  "button",
  "nav",
  "aside",
  "[role=navigation]",
  "[role=contentinfo]",
  "[role=banner]",
  "[role=complementary]",
  "[role=search]",
];

/**
 * Class and id fragments of widgets documentation generators add: tables of contents,
 * cookie/consent banners, feedback prompts, sidebars, breadcrumbs, skip links, edit links.
 * Matched as words inside class/id so `toc` does not hit `stock`.
 */
const WIDGET_WORDS = [
  "toc",
  "table-of-contents",
  "tableofcontents",
  "on-this-page",
  "cookie",
  "cookies",
  "consent",
  "gdpr",
  "feedback",
  "helpful",
  "sidebar",
  "breadcrumb",
  "breadcrumbs",
  "skip-link",
  "edit-this-page",
  "pagination-nav",
];

const WIDGET_RE = new RegExp(`(?:^|[\\s_-])(?:${WIDGET_WORDS.join("|")})(?:$|[\\s_-])`, "i");

/** Sentences that mark a feedback widget whatever its markup. */
const FEEDBACK_TEXT = /was this (?:page|article|section|doc(?:ument)?) (?:helpful|useful)|did this page help/i;

/** Short blocks only: a feedback prompt is a line or two, never a section of the page. */
const FEEDBACK_MAX_CHARS = 300;

/** Removes non-content elements from a document or element, in place. */
export function stripNonContent(root: DomRoot): void {
  for (const el of [...root.querySelectorAll(NEVER_CONTENT.join(","))]) el.remove();
  // A page-level header/footer is chrome; a header inside an article holds its title, keep it.
  for (const el of [...root.querySelectorAll("header, footer")]) {
    if (el.tagName === "FOOTER" || !el.closest("main, article, [role=main]")) el.remove();
  }
  for (const el of [...root.querySelectorAll("[class], [id]")]) {
    const names = `${el.getAttribute("class") ?? ""} ${el.getAttribute("id") ?? ""}`.replace(
      /([a-z])([A-Z])/g,
      "$1-$2",
    );
    // The main container is never a widget, even when a generator names it `docs-sidebar-layout`.
    if (WIDGET_RE.test(names) && !isContainer(el)) el.remove();
  }
  for (const el of [...root.querySelectorAll("div, section, p, footer, aside")]) {
    const text = el.textContent ?? "";
    if (text.length <= FEEDBACK_MAX_CHARS && FEEDBACK_TEXT.test(text)) el.remove();
  }
}

/**
 * Whether an element is (or wraps) the page's main content, which widget names never remove: a
 * layout wrapper named `with-sidebar` or `toc-layout` holds the article too. A widget never
 * holds the page's <h1>.
 */
function isContainer(el: DomElement): boolean {
  const tag = el.tagName.toLowerCase();
  if (tag === "main" || tag === "article" || tag === "body" || tag === "html") return true;
  if (el.getAttribute("role") === "main") return true;
  return el.querySelector("main, article, [role=main], h1") !== null;
}
