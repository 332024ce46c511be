/**
 * The small helpers every layer shares, on Web-standard APIs only (Bun, Deno and browsers
 * alike): bytes (SHA-256 as hex, base64url without padding, joining chunks, UTF-8 lengths), the
 * ids this API hands out, and the one timeout race.
 */
import { typeid } from "typeid-js";

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

/** UTF-8 length of a string without encoding it. */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x800)
      n += c >= 0xd800 && c <= 0xdbff ? 1 : 2; // a surrogate pair: 4 bytes over 2 units
    else if (c >= 0x80) n += 1;
  }
  return n;
}

// Prefixed, time-sortable ids (TypeID: a UUIDv7 in Crockford base32). Sorting ids sorts by
// creation time, which keeps keyset pagination and message order stable.

/** The prefixes this API hands out. */
export type IdPrefix = "conv" | "msg" | "key" | "doc" | "chunk" | "req" | "kb" | "src" | "sync" | "vis" | "topic";

export const newId = (prefix: IdPrefix): string => typeid(prefix).toString();

/** True when `value` has the shape of an id we issued with `prefix`. */
export const isId = (prefix: IdPrefix, value: string): boolean =>
  new RegExp(`^${prefix}_[0-7][0-9a-hjkmnp-tv-z]{25}$`).test(value);

/**
 * The one timeout race: a promise's value, or a fallback once `ms` have passed first. The timer
 * is cleared as soon as either side settles, so no timer outlives the race (and none is set for
 * an infinite wait).
 */
export async function withTimeout<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  if (ms === Infinity) return promise;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Lets the process exit with `timer` still set: Bun and Node timers have unref(); Deno's are
 * numbers, unreferenced through Deno.unrefTimer. A background beat (sweeper, scheduler, lease
 * keeper) must never be what keeps a process alive.
 */
export function unrefTimer(timer: ReturnType<typeof setInterval> | undefined): void {
  if (typeof timer === "object") (timer as { unref?: () => void }).unref?.();
  else if (timer !== undefined)
    (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno?.unrefTimer?.(timer as unknown as number);
}
