/**
 * DOM building without HTML strings: `h` makes an element from a tag, attributes, listeners and
 * children (strings become text nodes), and `renderMarkdown` turns markdown.ts's tree into nodes.
 * Nothing here sets a `style` attribute or innerHTML, so a strict CSP and model text are both safe.
 */
import { type MdNode, textOf } from "./markdown.ts";

type Child = Node | string | false | null | undefined;
type Attrs = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, "");
    else if (value !== undefined && value !== false) el.setAttribute(name, String(value));
  }
  el.append(...(children.filter((c) => c || c === "") as (Node | string)[]));
  return el;
}

/** An inline SVG icon from one path (no markup string: created in the SVG namespace). */
export function icon(d: string): SVGSVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", d);
  svg.append(path);
  return svg;
}

/** The copy button of a code block: the code's text to the clipboard, then "Copied" for a moment. */
function copyButton(code: string): HTMLButtonElement {
  const button = h("button", {
    type: "button",
    class: "copy",
    onclick: () => {
      navigator.clipboard?.writeText(code).then(
        () => {
          button.textContent = "Copied";
          setTimeout(() => (button.textContent = "Copy"), 1500);
        },
        () => (button.textContent = "Copy failed"),
      );
    },
  });
  button.textContent = "Copy";
  return button;
}

/** The tree's nodes, ready to append. */
export function renderMarkdown(nodes: MdNode[]): Node[] {
  return nodes.map((n): Node => {
    if (typeof n === "string") return document.createTextNode(n);
    const kids = renderMarkdown(n.children);
    if (n.tag === "pre") {
      const code = textOf(n.children);
      return h("div", { class: "code" }, h("pre", { tabindex: 0 }, ...kids), copyButton(code));
    }
    if (n.tag === "a") {
      const link = h("a", { href: n.href, target: "_blank", rel: "noopener noreferrer" }, ...kids);
      if (n.cite === undefined) return link;
      link.setAttribute("aria-label", `Source ${n.cite}`);
      link.className = "cite";
      return h("sup", {}, link);
    }
    return h(n.tag, n.start ? { start: n.start } : {}, ...kids);
  });
}
