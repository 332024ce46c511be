/**
 * A docs folder's addresses (knowledge/docs-url.ts): the one rule behind `ingest --base-url` and
 * multipart `base_url`; and a docs page's title from its first heading (parse.ts, chunk.ts).
 */
import { describe, expect, test } from "bun:test";
import { docsUrl, type UrlStyle } from "../../src/knowledge/docs-url.ts";
import { parseFile } from "../../src/knowledge/parse.ts";

const BASE = "https://docs.example.com/";
const url = (path: string, style?: UrlStyle, base = BASE) => {
  const r = docsUrl(base, path, style);
  if ("reason" in r) throw new Error(r.reason);
  return r.url;
};
const reason = (base: string, path: string) => {
  const r = docsUrl(base, path);
  return "reason" in r ? r.reason : `no problem: ${r.url}`;
};

describe("docsUrl: the address a docs site serves a file at", () => {
  test("clean (the default): Markdown extensions dropped; index, _index and README pages are their folder", () => {
    expect(url("setup.md")).toBe("https://docs.example.com/setup");
    expect(url("guide/setup.md")).toBe("https://docs.example.com/guide/setup");
    expect(url("guide/intro.markdown")).toBe("https://docs.example.com/guide/intro");
    expect(url("guide/intro.MDX")).toBe("https://docs.example.com/guide/intro");
    expect(url("index.md")).toBe("https://docs.example.com/");
    expect(url("guide/index.md")).toBe("https://docs.example.com/guide/");
    expect(url("guide/deep/er/README.md")).toBe("https://docs.example.com/guide/deep/er/");
    expect(url("blog/_index.md")).toBe("https://docs.example.com/blog/");
    expect(url("guide/readme.md")).toBe("https://docs.example.com/guide/");
    expect(url("guide/index.html")).toBe("https://docs.example.com/guide/");
    // Not Markdown: served under its own name.
    expect(url("notes/todo.txt")).toBe("https://docs.example.com/notes/todo.txt");
    expect(url("page.html")).toBe("https://docs.example.com/page.html");
    expect(url("guide/indexing.md")).toBe("https://docs.example.com/guide/indexing");
  });

  test("slash, html and keep", () => {
    expect(url("guide/setup.md", "slash")).toBe("https://docs.example.com/guide/setup/");
    expect(url("guide/index.md", "slash")).toBe("https://docs.example.com/guide/");
    expect(url("index.md", "slash")).toBe("https://docs.example.com/");
    expect(url("notes.txt", "slash")).toBe("https://docs.example.com/notes.txt");
    expect(url("guide/setup.md", "html")).toBe("https://docs.example.com/guide/setup.html");
    expect(url("guide/README.md", "html")).toBe("https://docs.example.com/guide/index.html");
    expect(url("guide/index.html", "html")).toBe("https://docs.example.com/guide/index.html");
    expect(url("guide/setup.md", "keep")).toBe("https://docs.example.com/guide/setup.md");
    expect(url("guide/index.md", "keep")).toBe("https://docs.example.com/guide/index.md");
  });

  test("Windows separators, ./ and empty segments", () => {
    expect(url("guide\\setup.md")).toBe("https://docs.example.com/guide/setup");
    expect(url("guide\\deep\\index.md")).toBe("https://docs.example.com/guide/deep/");
    expect(url("./guide//setup.md")).toBe("https://docs.example.com/guide/setup");
    expect(url("/guide/setup.md")).toBe("https://docs.example.com/guide/setup");
  });

  test("spaces, Unicode, #, ? and % in names are percent-encoded, never read as a query or a fragment", () => {
    expect(url("my guide/first steps.md")).toBe("https://docs.example.com/my%20guide/first%20steps");
    expect(url("指南/安装.md")).toBe("https://docs.example.com/%E6%8C%87%E5%8D%97/%E5%AE%89%E8%A3%85");
    expect(url("café.md")).toBe("https://docs.example.com/caf%C3%A9");
    expect(url("c#/why?.md")).toBe("https://docs.example.com/c%23/why%3F");
    expect(url("100%.md")).toBe("https://docs.example.com/100%25");
    expect(new URL(url("c#/why?.md")).hash).toBe("");
  });

  test("the base URL is a folder, with or without its trailing slash", () => {
    expect(url("a.md", "clean", "https://docs.example.com/v2")).toBe("https://docs.example.com/v2/a");
    expect(url("a.md", "clean", "https://docs.example.com/v2/")).toBe("https://docs.example.com/v2/a");
    expect(url("a.md", "clean", "https://docs.example.com")).toBe("https://docs.example.com/a");
    expect(url("index.md", "clean", "https://docs.example.com/v2")).toBe("https://docs.example.com/v2/");
    expect(url("a.md", "clean", "  https://Docs.Example.com/v2  ")).toBe("https://docs.example.com/v2/a");
  });

  test("what has no address: a bad base URL, a path that leaves the folder, a name that is not text", () => {
    expect(reason("docs.example.com", "a.md")).toBe("the base URL must be an absolute http(s) URL");
    expect(reason("ftp://docs.example.com/", "a.md")).toBe("the base URL must be an absolute http(s) URL");
    expect(reason("https://u:p@docs.example.com/", "a.md")).toContain("credentials");
    expect(reason("https://docs.example.com/?v=2", "a.md")).toContain("query");
    expect(reason("https://docs.example.com/#top", "a.md")).toContain("fragment");
    expect(reason(BASE, "../secret.md")).toContain("leaves the folder");
    expect(reason(BASE, "a/../../b.md")).toContain("leaves the folder");
    expect(reason(BASE, "")).toBe("the file has no name");
    expect(reason(BASE, "bad\uD800.md")).toContain("cannot be part of a URL");
  });
});

describe("parseFile: a plain docs page", () => {
  const source = { baseUrl: "https://docs.example.com/", baseUrlHint: "pass --base-url" };

  test("no front matter: the URL from the base and the path, the title from the first heading", () => {
    const r = parseFile("# Install\n\nRun the installer.", "/home/u/docs/guide/install.md", {
      ...source,
      relativePath: "guide/install.md",
    });
    expect(r.doc).toMatchObject({ url: "https://docs.example.com/guide/install", title: "Install" });
    // Front matter's url and title still win.
    const own = parseFile("---\nurl: https://elsewhere.test/x\ntitle: Own\n---\n# Heading", "x.md", source);
    expect(own.doc).toMatchObject({ url: "https://elsewhere.test/x", title: "Own" });
  });

  test("the title: a # heading first, else the first heading of any level, never a line in a code block", () => {
    const title = (text: string) => parseFile(text, "p.md", source).doc?.title;
    expect(title("```sh\n# install it\nnpm i\n```\n\n# Real title ##\ntext")).toBe("Real title");
    expect(title("## Overview\n\ntext\n\n# Later\n")).toBe("Later");
    expect(title("Intro text.\n\n## Overview\n\ntext")).toBe("Overview");
    expect(title("~~~\n# not me\n~~~\nplain text")).toBe("https://docs.example.com/p");
  });

  test("without a base URL, the problem says what to pass", () => {
    expect(parseFile("# Page\ntext", "docs/p.md", { baseUrlHint: "pass --base-url" }).problem).toEqual({
      where: "docs/p.md:1",
      reason: "front matter needs `url: https://…` (or pass --base-url)",
    });
  });
});
