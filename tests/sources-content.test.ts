/**
 * The content half of web sources on a hand-written fixture site (tests/fixtures/site): page
 * extraction, link rules, sitemaps and llms.txt, and removal of text repeated across pages.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  BoilerplateFilter,
  crawlScope,
  looksLikePage,
  markdownBlocks,
  normalizeUrl,
  pageText,
  parseLlmsTxt,
  parseSitemap,
  SiteTitleFilter,
} from "../src/sources/content/index.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const SITE = join(import.meta.dir, "fixtures", "site");
const fixture = (name: string) => readFileSync(join(SITE, name), "utf8");
const page = (name: string) => pageText(fixture(`docs/${name}.html`), `https://example.com/docs/${name}`);

describe("pageText on a semantic page", () => {
  const result = page("semantic");

  test("keeps the main text, the headings as ATX and fenced code with its language", () => {
    expect(result.extractedBy).toBe("main");
    expect(result.markdown).toContain("# Installing Widgets");
    expect(result.markdown).toContain("## Requirements");
    expect(result.markdown).toContain("### Configuration");
    expect(result.markdown).toContain("needs a recent runtime on the machine");
    expect(result.markdown).toContain("```bash\nnpm install widgets\nwidgets init\n```");
    // The language class on <pre> counts as well as on <code>.
    expect(result.markdown).toContain('```ts\nexport default { colour: "blue" };\n```');
    expect(result.markdown).toContain("| colour | The widget colour |");
  });

  test("drops the chrome: nav, header, sidebar, footer, cookie banner, feedback, TOC, scripts", () => {
    for (const chrome of [
      "API reference",
      "Widgets Home",
      "Sidebar Install",
      "Copyright 2026",
      "cookies",
      "Was this page helpful",
      "TOC Requirements entry",
      "On this page",
      "TRACKING_SNIPPET",
      "color: red",
    ])
      expect(result.markdown).not.toContain(chrome);
  });

  test("title from <title>, lang from <html lang>, no canonical when none is named", () => {
    expect(result.title).toBe("Installing Widgets");
    expect(result.lang).toBe("en-GB");
    expect(result.canonical).toBeUndefined();
  });

  test("links of the whole page, resolved against <base href>, normalised, non-http schemes left out", () => {
    expect(result.links).toEqual([
      "https://example.com/",
      "https://example.com/docs/api",
      "https://example.com/docs/changelog",
      "https://example.com/docs/guide/install",
      "https://other.example.org/docs/x",
    ]);
  });

  test("javascript:, mailto:, tel: and data: links and bare fragments are no links", () => {
    const html = `<a href="javascript:void(0)">j</a><a href="mailto:a@b.c">m</a><a href="tel:+44">t</a>
      <a href="data:text/plain,x">d</a><a href="#top">f</a><a href=" /docs/b/#s ">b</a><a href="/docs/b?x=1">b2</a>`;
    expect(pageText(html, "https://example.com/docs/a").links).toEqual(["https://example.com/docs/b"]);
    expect(pageText(html, "https://example.com/docs/a", { keepQuery: true }).links).toEqual([
      "https://example.com/docs/b",
      "https://example.com/docs/b?x=1",
    ]);
  });
});

describe("pageText on a page of plain divs", () => {
  const result = page("plain-divs");

  test("Readability finds the content; the sidebar, menu and footer stay out", () => {
    expect(result.extractedBy).toBe("readability");
    expect(result.markdown).toContain("# Guide des widgets");
    expect(result.markdown).toContain("## Options principales");
    expect(result.markdown).toContain("la mise en cache des réponses");
    expect(result.markdown).toContain('```json\n{ "couleur": "bleu" }\n```');
    for (const chrome of ["Sidebar", "Menu entry", "Footer text delta", "WidgetCorp"])
      expect(result.markdown).not.toContain(chrome);
    expect(result.lang).toBe("fr");
    expect(result.links).toContain("https://example.com/docs/one");
  });

  test("a layout wrapper named like a widget is kept when it holds the content; hidden tab panels stay", () => {
    const words = "Enough words in this paragraph for the content extractor to accept it as an article. ".repeat(3);
    const html = `<html><body><div class="layout with-sidebar"><div class="sidebar">Sidebar words</div>
      <div><h1>Tabs</h1><p>${words}</p><p>${words}</p><div role="tabpanel" hidden><pre><code class="language-py">print("py")</code></pre></div></div>
      </div></body></html>`;
    const result = pageText(html, "https://example.com/docs/tabs");
    expect(result.markdown).toContain("# Tabs");
    expect(result.markdown).toContain('```py\nprint("py")\n```');
    expect(result.markdown).not.toContain("Sidebar words");
  });

  test("a page with too little for Readability falls back to the body minus the chrome", () => {
    const html =
      "<html><body><nav>Nav words</nav><div><p>Short note.</p></div><footer>Foot words</footer></body></html>";
    const short = pageText(html, "https://example.com/docs/short");
    expect(short.extractedBy).toBe("body");
    expect(short.markdown).toBe("Short note.");
    expect(short.title).toBe("");
  });
});

describe("pageText title and canonical", () => {
  test("canonical is absolute (its query kept); og:title stands in for a missing <title>", () => {
    const result = page("canonical");
    expect(result.canonical).toBe("https://example.com/docs/canonical-page?v=2");
    expect(result.title).toBe("Canonical Page Title");
    expect(result.lang).toBe("de");
  });

  test("the first <h1> is the title when there is no <title> nor og:title", () => {
    const result = pageText(
      "<html><body><main><h1> Only  Heading </h1><p>Body</p></main></body></html>",
      "https://e.com/",
    );
    expect(result.title).toBe("Only Heading");
  });
});

describe("normalizeUrl", () => {
  test("drops the fragment and the query, folds the trailing slash but keeps the root", () => {
    expect(normalizeUrl("https://example.com/docs/a/#x")).toBe("https://example.com/docs/a");
    expect(normalizeUrl("https://example.com/docs/a?ref=nav")).toBe("https://example.com/docs/a");
    expect(normalizeUrl("https://example.com/docs/a?p=2", { keepQuery: true })).toBe("https://example.com/docs/a?p=2");
    expect(normalizeUrl("https://example.com/")).toBe("https://example.com/");
    expect(normalizeUrl("https://example.com")).toBe("https://example.com/");
    expect(normalizeUrl("https://example.com//")).toBe("https://example.com/");
  });

  test("lowercases the host, removes default ports, keeps other ports", () => {
    expect(normalizeUrl("HTTPS://Example.COM:443/Docs")).toBe("https://example.com/Docs");
    expect(normalizeUrl("http://example.com:80/a")).toBe("http://example.com/a");
    expect(normalizeUrl("https://example.com:8443/a")).toBe("https://example.com:8443/a");
  });

  test("ignores mailto, javascript, tel, data and unparsable URLs", () => {
    for (const url of ["mailto:a@b.c", "javascript:void(0)", "tel:+44", "data:text/plain,x", "not a url"])
      expect(normalizeUrl(url)).toBeUndefined();
  });
});

describe("crawlScope", () => {
  const scope = crawlScope("https://example.com/docs/");

  test("same origin only: other host, port or scheme is out", () => {
    expect(scope("https://example.com/docs/a")).toBe(true);
    expect(scope("https://other.com/docs/a")).toBe(false);
    expect(scope("https://docs.example.com/docs/a")).toBe(false);
    expect(scope("https://example.com:8443/docs/a")).toBe(false);
    expect(scope("http://example.com/docs/a")).toBe(false);
    expect(scope("mailto:x@example.com")).toBe(false);
    expect(scope("javascript:alert(1)")).toBe(false);
  });

  test("the path prefix matches whole segments: /docs and /docs/x, never /docs-old", () => {
    expect(scope("https://example.com/docs")).toBe(true);
    expect(scope("https://example.com/docs/x/y")).toBe(true);
    expect(scope("https://example.com/docs-old/x")).toBe(false);
    expect(scope("https://example.com/doc")).toBe(false);
    expect(scope("https://example.com/")).toBe(false);
    expect(crawlScope("https://example.com/")("https://example.com/anything")).toBe(true);
  });

  test("include and exclude globs over the path; exclude wins", () => {
    const s = crawlScope("https://example.com/", {
      include: ["/docs/**", "/blog/*"],
      exclude: ["/docs/internal/**", "/**/draft-*"],
    });
    expect(s("https://example.com/docs")).toBe(true);
    expect(s("https://example.com/docs/a/b/c")).toBe(true);
    expect(s("https://example.com/blog/post")).toBe(true);
    expect(s("https://example.com/blog/2026/post")).toBe(false);
    expect(s("https://example.com/about")).toBe(false);
    expect(s("https://example.com/docs/internal/x")).toBe(false);
    expect(s("https://example.com/docs/a/draft-plan")).toBe(false);
  });

  test("non-HTML files are out by extension", () => {
    for (const ext of ["png", "jpg", "zip", "tar.gz", "pdf", "mp4", "css", "js"])
      expect(scope(`https://example.com/docs/file.${ext}`)).toBe(false);
    expect(looksLikePage("https://example.com/docs/page.html")).toBe(true);
    expect(looksLikePage("https://example.com/docs/v1.2")).toBe(true);
  });
});

describe("sitemaps and llms.txt", () => {
  test("a urlset gives its pages: trimmed <loc>, entities decoded, duplicates and non-http dropped", () => {
    expect(parseSitemap(fixture("sitemap.xml"))).toEqual({
      pages: [
        "https://example.com/docs/semantic",
        "https://example.com/docs/plain-divs?a=1&b=2",
        "https://example.com/docs/canonical",
      ],
      sitemaps: [],
    });
  });

  test("a sitemap index with a namespace prefix gives its nested sitemaps", () => {
    expect(parseSitemap(fixture("sitemap-index.xml"))).toEqual({
      pages: [],
      sitemaps: ["https://example.com/sitemap.xml", "https://example.com/blog/sitemap.xml"],
    });
  });

  test("entries are capped; a malformed sitemap gives empty lists, not a throw", () => {
    expect(parseSitemap(fixture("sitemap.xml"), { maxEntries: 2 }).pages).toHaveLength(2);
    for (const bad of ["<urlset><url><loc>https://e.com/a</loc></url>", "not xml at all", "", "<a><b></a></b>"])
      expect(parseSitemap(bad)).toEqual({ pages: [], sitemaps: [] });
  });

  test("llms.txt gives its list links with sections, notes and the Optional flag", () => {
    const links = parseLlmsTxt(fixture("llms.txt"), "https://example.com/llms.txt");
    expect(links.map((l) => l.url)).toEqual([
      "https://example.com/docs/semantic",
      "https://example.com/docs/plain-divs",
      "https://example.com/docs/canonical",
      "https://example.com/docs/changelog",
    ]);
    expect(links[0]).toEqual({
      url: "https://example.com/docs/semantic",
      title: "Install",
      notes: "how to install",
      section: "Docs",
      optional: false,
    });
    expect(links[3]!.optional).toBe(true);
  });
});

describe("BoilerplateFilter", () => {
  const footer = "Need help?  Write to\nsupport@example.com any day.";
  const pages = Array.from(
    { length: 5 },
    (_, i) =>
      `# Page ${i}\n\nOwn text of page ${i}.\n\n${i % 2 ? footer.replace(/\s+/g, " ") : footer}\n\n\`\`\`sh\nnpm install widgets\n\`\`\``,
  );

  test("a paragraph on every page goes from every page; own text and shared code stay", () => {
    const filter = new BoilerplateFilter();
    for (const p of pages) filter.observe(p);
    expect(filter.pages).toBe(5);
    for (const [i, p] of pages.entries()) {
      const cleaned = filter.clean(p);
      expect(cleaned).not.toContain("support@example.com");
      expect(cleaned).toContain(`Own text of page ${i}.`);
      expect(cleaned).toContain("```sh\nnpm install widgets\n```");
    }
  });

  test("a block on fewer than the minimum pages or share stays", () => {
    const filter = new BoilerplateFilter();
    for (const p of pages.slice(0, 2)) filter.observe(p);
    expect(filter.clean(pages[0]!)).toContain("support@example.com");
    const shared = new BoilerplateFilter();
    for (const [i, p] of pages.entries()) shared.observe(i < 2 ? p : `# Other ${i}\n\nText ${i}.`);
    expect(shared.clean(pages[0]!)).toContain("support@example.com");
  });

  test("a fenced block with blank lines inside is one block", () => {
    const blocks = markdownBlocks("Intro.\n\n```js\na();\n\nb();\n```\n\nOutro.");
    expect(blocks).toEqual([
      { text: "Intro.", code: false },
      { text: "```js\na();\n\nb();\n```", code: true },
      { text: "Outro.", code: false },
    ]);
  });
});

describe("SiteTitleFilter", () => {
  const filterOf = (titles: string[]) => {
    const f = new SiteTitleFilter();
    for (const t of titles) f.observe(t);
    return f;
  };

  test("drops the site's name most titles share, before or after a separator", () => {
    const end = filterOf(["Install · Tern docs", "Deploy · Tern docs", "Pricing · Tern docs", "Tern docs"]);
    expect(end.clean("Install · Tern docs")).toBe("Install");
    expect(end.clean("Tern docs")).toBe("Tern docs");
    const start = filterOf(["Acme | Setup", "Acme | Routing", "Acme | Plugins | Writing one"]);
    expect(start.clean("Acme | Plugins | Writing one")).toBe("Plugins – Writing one");
  });

  test("keeps a part only some pages share (a section), and titles on a small site", () => {
    const f = filterOf(["Guide - Setup", "Guide - Routing", "API - Errors", "API - Types", "FAQ", "Blog - Hello"]);
    expect(f.clean("Guide - Setup")).toBe("Guide - Setup");
    expect(filterOf(["A · Site", "B · Site"]).clean("A · Site")).toBe("A · Site");
  });
});
