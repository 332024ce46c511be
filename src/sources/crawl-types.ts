/**
 * The shapes of a crawl (crawl.ts): what it is asked to do and the events it streams. Apart so
 * the sync and the second pass (clean-pages.ts) can name them without the crawler itself.
 */
import type { Resolver, UrlGuard, Validators } from "./fetch/index.ts";

export interface CrawlOptions {
  startUrl: string;
  /**
   * auto: the start page and its links, plus robots Sitemap: lines, /sitemap.xml and /llms.txt;
   * sitemap / llms_txt: the pages of that list only, no links followed (no list: incomplete);
   * crawl: the start page and its links only.
   */
  type?: "auto" | "sitemap" | "crawl" | "llms_txt";
  /** Keep query strings in page URLs (sites that route pages by `?page=`); folded away by default. */
  keepQuery?: boolean;
  include?: readonly string[];
  exclude?: readonly string[];
  maxPages?: number;
  maxDepth?: number;
  userAgent: string;
  guard?: UrlGuard;
  resolver?: Resolver;
  allowPrivateNetworks?: boolean;
  maxBytes?: number;
  totalTimeoutMs?: number;
  requestTimeoutMs?: number;
  /**
   * What was stored from the last crawl for a requested URL, for a conditional request. A 304 has
   * no body to read links from, so the stored page's links come back here too: without them,
   * pages reachable only through an unchanged page would vanish from the next crawl.
   */
  validators?: (url: string) => (Validators & { links?: readonly string[] }) | undefined;
  /** False only against our own servers (benchmarks, tests): no per-host cap, no Crawl-delay. */
  politeness?: boolean;
  maxInFlightPerHost?: number;
  signal?: AbortSignal;
  /**
   * Turns a fetched file that is not HTML (a PDF, an OpenAPI spec) into documents; undefined:
   * not a format it reads (the URL is skipped, `not_html`). Throws to fail the URL with the
   * error's message as its reason. Without it, only HTML is stored.
   */
  convertFile?: FileConverter;
  /** Extensions `convertFile` reads (`pdf`, `json`, `yaml`): links to them are followed. */
  fileExtensions?: readonly string[];
}

export interface FetchedFile {
  url: string;
  contentType: string | null;
  bytes: Uint8Array;
  text: string;
}

/** One document of a converted file: a PDF is one, an OpenAPI spec one per operation (URL with an anchor). */
export interface FileDocument {
  url: string;
  title: string;
  markdown: string;
}

export type FileConverter = (file: FetchedFile) => Promise<FileDocument[] | undefined>;

export interface CrawledPage {
  kind: "page";
  /** Where the page is stored: its in-scope canonical URL, else its final URL. */
  url: string;
  /** The URL that was asked for; validators are stored under it (that is what the next crawl asks). */
  requestedUrl: string;
  title: string;
  markdown: string;
  lang?: string;
  /** Its in-scope links, to store with the validators for the next conditional crawl. */
  links: string[];
  etag: string | null;
  lastModified: string | null;
  /** SHA-256 hex of the Markdown (sha256Hex). */
  contentHash: string;
}

export type CrawlEvent =
  | CrawledPage
  | { kind: "not_modified"; url: string }
  | { kind: "failed"; url: string; reason: string }
  | { kind: "skipped"; url: string; reason: string }
  | { kind: "done"; complete: boolean; counts: CrawlCounts };

export interface CrawlCounts {
  discovered: number;
  fetched: number;
  notModified: number;
  skipped: number;
  failed: number;
}
