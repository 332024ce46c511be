/**
 * The pass after a crawl: boilerplate (text repeated across most pages) can only be told once
 * every page was seen, so the crawl yields pages raw and this cleans them afterwards. The caller
 * chooses where the pages wait in between (memory for a small site, its store for a large one).
 */
import { BoilerplateFilter, type BoilerplateOptions } from "./content/index.ts";
import type { CrawledPage } from "./crawl-types.ts";

/** SHA-256 hex of a text: a sync re-embeds a page only when its hash changed. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Observes every page's blocks, then removes the repeated ones from each (hashes recomputed). */
export async function cleanPages(pages: readonly CrawledPage[], options?: BoilerplateOptions): Promise<CrawledPage[]> {
  const filter = new BoilerplateFilter(options);
  for (const page of pages) filter.observe(page.markdown);
  return Promise.all(
    pages.map(async (page) => {
      const markdown = filter.clean(page.markdown);
      return { ...page, markdown, contentHash: await sha256Hex(markdown) };
    }),
  );
}
