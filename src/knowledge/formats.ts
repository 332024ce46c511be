/**
 * Reading uploaded files into documents: front matter (YAML between `---` lines or TOML between
 * `+++` lines, parsed by `yaml` and `smol-toml`) and HTML (to text by `html-to-text`: scripts,
 * styles and other non-content elements are dropped; headings become Markdown headings, so
 * passages split at them as in Markdown). Pure JS, so it runs in the binary and on Deno.
 */
import { compile } from "html-to-text";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { MAX_METADATA_DEPTH, nestedDeeper } from "./limits.ts";

/** What front matter says: `url`, `title`, and the other fields as metadata. */
export interface FrontMatter {
  fields: Record<string, unknown>;
  body: string;
}

const YAML_FM = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const TOML_FM = /^\uFEFF?\+\+\+[ \t]*\r?\n([\s\S]*?)\r?\n\+\+\+[ \t]*(?:\r?\n|$)/;

/** A value as JSON holds it (dates as ISO strings), so metadata round-trips through jsonb. */
const jsonSafe = (v: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(v ?? {}));

/** Front matter that cannot be read: why, and the field at fault when one is. */
export class FrontMatterError extends Error {
  constructor(
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

/**
 * Splits off and parses front matter; no front matter gives no fields. Malformed front matter
 * throws a FrontMatterError saying why (the caller reports it for that file).
 */
export function frontMatter(text: string): FrontMatter {
  const yaml = YAML_FM.exec(text);
  const toml = yaml ? null : TOML_FM.exec(text);
  const match = yaml ?? toml;
  if (!match) return { fields: {}, body: text.replace(/^\uFEFF/, "") };
  let parsed: unknown;
  try {
    parsed = yaml ? parseYaml(match[1]!, { maxAliasCount: 100 }) : parseToml(match[1]!);
  } catch (error) {
    throw new FrontMatterError(`${yaml ? "YAML" : "TOML"} front matter: ${(error as Error).message.split("\n")[0]}`);
  }
  if (parsed != null && (typeof parsed !== "object" || Array.isArray(parsed)))
    throw new FrontMatterError("front matter must be a mapping of fields");
  // Its fields are the metadata: measured before JSON.stringify recurses (a YAML alias can even loop).
  if (nestedDeeper(parsed, MAX_METADATA_DEPTH))
    throw new FrontMatterError(`front matter is nested deeper than ${MAX_METADATA_DEPTH} levels`, "metadata");
  return { fields: jsonSafe(parsed), body: text.slice(match[0].length) };
}

const HEADING = (level: number) => ({
  selector: `h${level}`,
  format: "markdownHeading",
  options: { level },
});

const toText = compile({
  wordwrap: false,
  formatters: {
    // `## Heading` on its own line: passages split at headings, as for Markdown.
    markdownHeading(elem, walk, builder, formatOptions) {
      builder.openBlock({ leadingLineBreaks: 2 });
      builder.addInline(`${"#".repeat((formatOptions as { level: number }).level)} `);
      walk(elem.children, builder);
      builder.closeBlock({ trailingLineBreaks: 2 });
    },
  },
  selectors: [
    ...[1, 2, 3, 4, 5, 6].map(HEADING),
    // Never content: code and styling, embedded objects, forms' machinery.
    ...["script", "style", "noscript", "template", "svg", "iframe", "object", "head", "nav", "button"].map(
      (selector) => ({ selector, format: "skip" }),
    ),
    { selector: "a", options: { ignoreHref: true } },
    { selector: "img", format: "skip" },
  ],
});

const attr = (tag: string, name: string) =>
  new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i")
    .exec(tag)
    ?.slice(1)
    .find((v) => v != null);

/** HTML the converter cannot read: that document fails, with why. */
export class HtmlError extends Error {}

/**
 * html-to-text walks the element tree recursively: a page nested some ten thousand elements
 * deep (unclosed `<span>`s) overflows the stack. The parser builds the tree without recursion,
 * so the overflow is only ever in that walk, where it is caught and the page alone fails.
 */
function textOf(html: string): string {
  try {
    return toText(html);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new HtmlError(
      /call stack/i.test(error.message)
        ? "the HTML is nested too deeply to be read"
        : `the HTML could not be read (${error.message})`,
    );
  }
}

/** An HTML page as text, with its `<title>` and canonical URL when it declares them (throws HtmlError). */
export function htmlToDocument(html: string): { text: string; title?: string; url?: string } {
  const titleHtml = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const title = titleHtml ? textOf(titleHtml).replace(/\s+/g, " ").trim() : undefined;
  let url: string | undefined;
  for (const tag of html.match(/<(?:link|meta)\b[^>]*>/gi) ?? []) {
    const canonical = /^<link/i.test(tag) && /\brel\s*=\s*["']?canonical\b/i.test(tag) && attr(tag, "href");
    const og = /^<meta/i.test(tag) && /\bproperty\s*=\s*["']?og:url\b/i.test(tag) && attr(tag, "content");
    url = url ?? (canonical || og || undefined);
  }
  return { text: textOf(html).trim(), title: title || undefined, url };
}
