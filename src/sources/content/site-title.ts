/**
 * The site's name in its page titles ("Install the CLI · Tern docs", "Tern | Pricing"): a part
 * before or after a separator that most pages' titles share is the site's, not the page's, and
 * is dropped, so citations read "Install the CLI". Told like boilerplate, against every page of
 * the site: a part shared by a few pages (a section's name) stays.
 */

/** Separators sites put between a page's title and the site's name, spaced on both sides. */
const SEPARATOR = /\s+[|·•–—:\-»]\s+/;

function parts(title: string): string[] {
  return title
    .split(SEPARATOR)
    .map((p) => p.trim())
    .filter(Boolean);
}

export class SiteTitleFilter {
  readonly #pagesPerAffix = new Map<string, number>();
  #pages = 0;
  readonly #minShare: number;
  readonly #minPages: number;

  constructor(options: { minShare?: number; minPages?: number } = {}) {
    this.#minShare = options.minShare ?? 0.5;
    this.#minPages = options.minPages ?? 3;
  }

  /** Records a page's title: its first and last parts, when it has several. */
  observe(title: string): void {
    this.#pages++;
    const p = parts(title);
    if (p.length < 2) return;
    for (const affix of new Set([`^${p[0]}`, `$${p.at(-1)}`]))
      this.#pagesPerAffix.set(affix, (this.#pagesPerAffix.get(affix) ?? 0) + 1);
  }

  #shared(affix: string): boolean {
    const count = this.#pagesPerAffix.get(affix) ?? 0;
    return count >= this.#minPages && count >= this.#minShare * this.#pages;
  }

  /** The title without the site's part; unchanged when nothing of the page's own would be left. */
  clean(title: string): string {
    const p = parts(title);
    if (p.length < 2) return title.trim();
    const own = this.#shared(`$${p.at(-1)}`) ? p.slice(0, -1) : this.#shared(`^${p[0]}`) ? p.slice(1) : p;
    return own.length && own !== p ? own.join(" – ") : title.trim();
  }
}
