/**
 * PDF files as documents (knowledge/formats-pdf.ts): the outline's entries become headings over
 * the text they point to, a PDF without one is cut at its pages, and every bad file is a
 * PdfError with its reason. Fixtures: tests/fixtures/formats/make-pdfs.ts writes them.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PDFDocument } from "pdf-lib";
import { outlineMarkdown, pagesMarkdown } from "../src/knowledge/formats-pdf-text.ts";
import { PdfError, pdfToDocuments } from "../src/knowledge/index.ts";
import { parsePdf } from "../src/knowledge/parse-formats.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, "fixtures/formats", name)));

/** The PdfError `run` rejects with. */
async function pdfError(run: Promise<unknown>): Promise<PdfError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PdfError);
  return error as PdfError;
}

describe("pdfToDocuments", () => {
  test("a PDF with an outline: its entries are headings (nested ones deeper) over their text, in order", async () => {
    const doc = await pdfToDocuments(fixture("guide.pdf"), "https://docs.test/guide.pdf");
    expect(doc).toMatchObject({ title: "Wombat Field Guide", pages: 3, outline: true });
    expect(doc.markdown).toBe(
      [
        "# Introduction",
        "Wombats are short-legged marsupials native to Australia.\nThey are the largest burrowing herbivores.",
        "# Habits",
        "## Burrows",
        "A wombat digs its burrow with strong front claws.\nTunnels can be twenty metres long.",
        // Two entries on page 2: the page is cut where the second one points.
        "## Diet",
        "Wombats graze on native grasses at night.",
        "# Conservation",
        "The northern hairy-nosed wombat is critically endangered.",
      ].join("\n\n"),
    );
  });

  test("without an outline: a `## Page N` section per page; the title is the file's name", async () => {
    const doc = await pdfToDocuments(fixture("plain.pdf"), "https://docs.test/notes/release%20notes.pdf");
    expect(doc).toMatchObject({ title: "release notes", pages: 2, outline: false });
    expect(doc.markdown).toBe(
      "## Page 1\n\nRelease notes\nVersion 2 adds quokka support.\n\n## Page 2\n\n" +
        // Lines of a paragraph keep their breaks; a wider gap between lines starts a paragraph.
        "Known issues: the platypus importer is slow.\nIt reads one file at a time.\n\nWorkaround: import in batches.",
    );
  });

  test("bad input is a PdfError with its reason, never a hang or a crash", async () => {
    expect((await pdfError(pdfToDocuments(fixture("broken.pdf"), "https://x.test/a.pdf"))).problem).toBe("damaged");
    const locked = await pdfError(pdfToDocuments(fixture("locked.pdf"), "https://x.test/a.pdf"));
    expect(locked.problem).toBe("encrypted");
    expect(locked.message).toContain("password");
    const text = new TextEncoder().encode("# Not a PDF\n");
    expect((await pdfError(pdfToDocuments(text, "https://x.test/a.pdf"))).problem).toBe("not_pdf");
    expect((await pdfError(pdfToDocuments(new Uint8Array(0), "https://x.test/a.pdf"))).problem).toBe("not_pdf");
    const header = new TextEncoder().encode("%PDF-1.7\n");
    expect((await pdfError(pdfToDocuments(header, "https://x.test/a.pdf"))).problem).toBe("damaged");
  });

  test("a PDF without pages or without text (a scan) is a PdfError too", async () => {
    // pdf.js counts an empty page tree as one page: either way the file has nothing to read.
    const empty = await (await PDFDocument.create()).save();
    expect(["no_pages", "no_text"]).toContain((await pdfError(pdfToDocuments(empty, "https://x.test/a.pdf"))).problem);
    const blank = await PDFDocument.create();
    blank.addPage();
    const scan = await pdfError(pdfToDocuments(await blank.save(), "https://x.test/a.pdf"));
    expect(scan.problem).toBe("no_text");
  });

  test("limits: pages, characters, bytes and time", async () => {
    const guide = fixture("guide.pdf");
    expect((await pdfError(pdfToDocuments(guide, "https://x.test/a.pdf", { maxPages: 2 }))).problem).toBe(
      "too_many_pages",
    );
    const chars = await pdfError(pdfToDocuments(guide, "https://x.test/a.pdf", { maxChars: 100 }));
    expect(chars.problem).toBe("too_large");
    expect(chars.message).toContain("100 characters");
    expect((await pdfError(pdfToDocuments(guide, "https://x.test/a.pdf", { maxBytes: 1_000 }))).problem).toBe(
      "too_large",
    );
    const slow = await pdfError(pdfToDocuments(guide, "https://x.test/a.pdf", { maxMs: 0 }));
    expect(slow.problem).toBe("too_slow");
    expect(slow.message).toContain("stopped at page 1");
  });

  test("the input is left as it was (pdf.js gets a copy), and a Node Buffer is read too (the CLI's)", async () => {
    const bytes = fixture("plain.pdf");
    await pdfToDocuments(bytes, "https://x.test/a.pdf");
    const buffer = readFileSync(join(import.meta.dir, "fixtures/formats/plain.pdf"));
    expect(bytes.byteLength).toBe(buffer.byteLength);
    expect((await pdfToDocuments(buffer, "https://x.test/a.pdf")).pages).toBe(2);
  });
});

describe("outline sections and paragraphs (pure)", () => {
  const item = (str: string, y: number) => ({ str, y, height: 10, hasEOL: true });
  test("text above the first heading is a preamble; a heading's repeated title line is dropped; # in text escaped", () => {
    const md = outlineMarkdown(
      [[item("Cover note", 700), item("Part", 500), item("# not a heading", 488)], [item("more", 700)]],
      [{ title: "Part", level: 1, page: 0, top: 510 }],
    );
    // Each page's part of a section is its own paragraph.
    expect(md).toBe("Cover note\n\n# Part\n\n\\# not a heading\n\nmore");
  });

  test("a page of evenly spaced lines is cut into paragraphs at sentence ends, so passages can be cut", () => {
    const lines = Array.from({ length: 60 }, (_, i) =>
      item(`Line ${i} says a little more about wombats here.`, 700 - i * 12),
    );
    const md = pagesMarkdown([lines]);
    const paras = md.split("\n\n").slice(1);
    expect(paras.length).toBeGreaterThan(2);
    for (const p of paras) expect(p.length).toBeLessThan(1_000);
    expect(paras.join("\n").split("\n")).toHaveLength(60);
  });
});

describe("parsePdf (uploads and the CLI)", () => {
  test("the URL is the file's address under base_url; without one, the file fails naming base_url", async () => {
    const ok = await parsePdf(fixture("guide.pdf"), "manuals/guide.pdf", { baseUrl: "https://docs.test/" });
    expect(ok.problems).toEqual([]);
    expect(ok.docs[0]).toMatchObject({ url: "https://docs.test/manuals/guide.pdf", title: "Wombat Field Guide" });
    const none = await parsePdf(fixture("guide.pdf"), "guide.pdf");
    expect(none.problems[0]).toMatchObject({ where: "guide.pdf", param: "base_url" });
  });

  test("a bad PDF is a problem of that file (content), over the document limit it is too large", async () => {
    const broken = await parsePdf(fixture("broken.pdf"), "b.pdf", { baseUrl: "https://docs.test/" });
    expect(broken.problems[0]).toMatchObject({ where: "b.pdf", param: "content", tooLarge: false });
    const big = await parsePdf(fixture("guide.pdf"), "g.pdf", { baseUrl: "https://docs.test/", maxBytes: 50 });
    expect(big.problems[0]).toMatchObject({ param: "content", tooLarge: true });
  });
});
