/**
 * Byte helpers every layer shares, on Web-standard APIs only (Bun, Deno and browsers alike):
 * SHA-256 as hex, base64url without padding, and joining chunks.
 */
const encoder = new TextEncoder();

/** Lower-case hex of `bytes`. */
export const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** Hex SHA-256 of `text`'s UTF-8 bytes. */
export async function sha256Hex(text: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
}

/** base64url of `bytes`, without padding (RFC 4648 §5). */
export const toBase64url = (bytes: Uint8Array): string =>
  btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/** The bytes of a base64url string (padding optional); throws on characters outside the alphabet. */
export const fromBase64url = (s: string): Uint8Array<ArrayBuffer> =>
  Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));

/** `parts` joined into one array of `size` bytes (their total length). */
export function concatBytes(parts: Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
