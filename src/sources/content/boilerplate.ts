/**
 * Removal of text blocks a site repeats on many pages (a footer paragraph, a support note, a
 * license line written into each page's body): left in, they become passages that match every
 * question and crowd out the page's own text. Two passes over a crawl: `observe` every page,
 * then `clean` every page. Memory stays bounded by the number of distinct blocks, as hashes
 * (never their text), so a crawl can stream pages to disk between the passes.
 */

export interface BoilerplateOptions {
  /** Share of observed pages a block must appear on to be boilerplate; default 0.5. */
  minShare?: number;
  /** Fewest pages a block must appear on; default 3, so a small site keeps its text. */
  minPages?: number;
}

/**
 * Markdown split into blocks at blank lines. A fenced code block is one block however many
 * blank lines it holds, and is marked: code is never boilerplate (a shared install command is
 * an answer, not chrome).
 */
export function markdownBlocks(markdown: string): { text: string; code: boolean }[] {
  const blocks: { text: string; code: boolean }[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  const flush = (code: boolean) => {
    if (current.some((l) => l.trim())) blocks.push({ text: current.join("\n"), code });
    current = [];
  };
  for (const line of markdown.split(/\r?\n/)) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker) {
      flush(false);
      fence = marker;
      current.push(line);
    } else if (fence !== undefined) {
      current.push(line);
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
        fence = undefined;
        flush(true);
      }
    } else if (line.trim() === "") {
      flush(false);
    } else {
      current.push(line);
    }
  }
  flush(fence !== undefined);
  return blocks;
}

/**
 * A 53-bit hash (cyrb53) of a block's text with whitespace normalised. Synchronous and pure
 * JS; a collision merely counts two blocks together, and at 2^53 it does not happen in
 * practice.
 */
function blockHash(text: string): number {
  const s = text.replace(/\s+/g, " ").trim();
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Counts blocks across a site's pages, then removes the ones repeated on too many of them. */
export class BoilerplateFilter {
  readonly #pagesPerBlock = new Map<number, number>();
  #pages = 0;
  readonly #minShare: number;
  readonly #minPages: number;

  constructor(options: BoilerplateOptions = {}) {
    this.#minShare = options.minShare ?? 0.5;
    this.#minPages = options.minPages ?? 3;
  }

  /** Pages observed so far. */
  get pages(): number {
    return this.#pages;
  }

  /** Records one page's blocks; a block repeated within a page counts once for it. */
  observe(markdown: string): void {
    this.#pages++;
    const seen = new Set<number>();
    for (const block of markdownBlocks(markdown)) if (!block.code) seen.add(blockHash(block.text));
    for (const hash of seen) this.#pagesPerBlock.set(hash, (this.#pagesPerBlock.get(hash) ?? 0) + 1);
  }

  /** Whether a block's text is boilerplate by the counts observed. */
  isBoilerplate(text: string): boolean {
    const count = this.#pagesPerBlock.get(blockHash(text)) ?? 0;
    return count >= this.#minPages && count >= this.#minShare * this.#pages;
  }

  /** A page's Markdown without its boilerplate blocks (code blocks always stay). */
  clean(markdown: string): string {
    return markdownBlocks(markdown)
      .filter((b) => b.code || !this.isBoilerplate(b.text))
      .map((b) => b.text)
      .join("\n\n");
  }
}
