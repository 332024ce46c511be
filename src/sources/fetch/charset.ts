/**
 * Turns the bytes of a page into text. Documentation sites still serve latin-1 and windows-1252
 * pages, and some declare their charset only in a <meta> tag; decoding them all as UTF-8 would
 * index mojibake. The order follows the WHATWG encoding sniffing rules, trimmed to what a crawler
 * needs: a byte-order mark, then the Content-Type charset, then <meta charset> in the first 1024
 * bytes of an HTML page, then UTF-8.
 *
 * Decoding never throws: TextDecoder without `fatal` puts U+FFFD where bytes are invalid, so one
 * broken byte costs one character, not the page.
 */

/** The `charset` parameter of a Content-Type value, or null. */
export function charsetFromContentType(contentType: string | null): string | null {
  if (!contentType) return null;
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return match?.[1] ?? null;
}

/** A charset declared by <meta charset> or <meta http-equiv="Content-Type" content="…charset=…"> near the top of the bytes. */
export function charsetFromMeta(bytes: Uint8Array): string | null {
  // Latin-1 maps each byte to one character, so the ASCII tag survives whatever the real encoding is.
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  const direct = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  return direct?.[1] ?? null;
}

function charsetFromBom(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  return null;
}

function decoderFor(label: string | null): TextDecoder | null {
  if (!label) return null;
  try {
    return new TextDecoder(label.toLowerCase());
  } catch {
    // An unknown label ("x-user-defined-2") is ignored, as a browser would.
    return null;
  }
}

function isHtml(contentType: string | null): boolean {
  return contentType === null || /html|xml/i.test(contentType);
}

/** Decodes a body by the first charset that is declared and known; replaces bad bytes rather than failing. */
export function decodeBody(bytes: Uint8Array, contentType: string | null): { text: string; charset: string } {
  const declared = [charsetFromBom(bytes), charsetFromContentType(contentType)];
  if (isHtml(contentType)) declared.push(charsetFromMeta(bytes));
  for (const label of declared) {
    const decoder = decoderFor(label);
    if (decoder) return { text: decoder.decode(bytes), charset: decoder.encoding };
  }
  return { text: new TextDecoder("utf-8").decode(bytes), charset: "utf-8" };
}
