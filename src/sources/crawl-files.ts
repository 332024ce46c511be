/**
 * Files a crawl meets that are not HTML (a PDF, an OpenAPI spec), turned into documents by the
 * caller's converter (crawl-types.ts, `convertFile`), and their documents as page events.
 */
import { sha256Hex } from "./clean-pages.ts";
import type { CrawledPage, FileConverter, FileDocument } from "./crawl-types.ts";
import type { FetchSuccess } from "./fetch/index.ts";

export type ConvertedFile = { kind: "file"; requested: string; docs: FileDocument[] } & Record<
  "etag" | "lastModified",
  string | null
>;

/** The file's documents, or undefined when no converter reads it. A converter's error fails the URL. */
export async function convertFetched(
  requested: string,
  result: FetchSuccess,
  convert: FileConverter | undefined,
): Promise<ConvertedFile | { kind: "failed"; url: string; reason: string } | undefined> {
  if (!convert) return undefined;
  const file = {
    url: result.finalUrl,
    contentType: result.contentType,
    bytes: result.bodyBytes,
    text: result.bodyText,
  };
  try {
    const docs = await convert(file);
    if (!docs?.length) return undefined;
    return { kind: "file", requested, docs, etag: result.etag, lastModified: result.lastModified };
  } catch (error) {
    return { kind: "failed", url: requested, reason: (error as Error)?.message?.slice(0, 200) || "unreadable_file" };
  }
}

/**
 * A converted file's documents as page events. One document is the file itself (its validators
 * kept under the URL asked for, so a re-sync gets its 304); several (an OpenAPI spec's
 * operations) are each keyed by their own anchored URL, and the file is fetched whole each time.
 */
export async function fileEvents(file: ConvertedFile, stored: Set<string>): Promise<CrawledPage[]> {
  const one = file.docs.length === 1;
  const events: CrawledPage[] = [];
  for (const doc of file.docs) {
    if (stored.has(doc.url)) continue;
    stored.add(doc.url);
    events.push({
      kind: "page",
      url: doc.url,
      requestedUrl: one ? file.requested : doc.url,
      title: doc.title,
      markdown: doc.markdown,
      links: [],
      etag: one ? file.etag : null,
      lastModified: one ? file.lastModified : null,
      contentHash: await sha256Hex(doc.markdown),
    });
  }
  return events;
}
