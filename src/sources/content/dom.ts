/**
 * The few DOM operations this folder uses, as its own interfaces. Bun's TypeScript setup has
 * the DOM's global types and Deno's has none, so code typed with `Document` or `HTMLElement`
 * checks under one and not the other; linkedom's documents, turndown's nodes and a browser's
 * all fit these shapes.
 */

/** An element, as read and pruned here. */
export interface DomElement {
  readonly tagName: string;
  readonly nodeName: string;
  textContent: string | null;
  innerHTML: string;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  hasAttribute(name: string): boolean;
  removeAttribute(name: string): void;
  closest(selector: string): DomElement | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
  remove(): void;
}

/** A document, or any element whose descendants are searched. */
export interface DomRoot {
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
}

/** A whole HTML document. */
export interface DomDocument extends DomRoot {
  readonly documentElement: DomElement | null;
  readonly body: DomElement | null;
}
