/**
 * Reads a response body into bytes with a ceiling. A server can send an endless body (or a 10 GB
 * one); `response.arrayBuffer()` would hold all of it in memory before we could say no, so we read
 * chunk by chunk and stop as soon as the ceiling is passed.
 *
 * Each read also races the abort signal: a body stream is supposed to error when the fetch's
 * signal aborts, but waiting on that alone would tie "never hangs" to every runtime getting it right.
 */

export type BodyRead =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; reason: "too_large"; bytesRead: number }
  | { ok: false; reason: "aborted"; bytesRead: number };

/** Resolves when `signal` aborts; the listener goes away once `settle` is called so nothing leaks. */
function abortPromise(signal: AbortSignal): { promise: Promise<"aborted">; settle: () => void } {
  let onAbort = () => {};
  const promise = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    if (signal.aborted) resolve("aborted");
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return { promise, settle: () => signal.removeEventListener("abort", onAbort) };
}

export async function readBodyCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  signal: AbortSignal,
): Promise<BodyRead> {
  if (!body) return { ok: true, bytes: new Uint8Array(0) };
  const reader = body.getReader();
  const aborted = abortPromise(signal);
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), aborted.promise]);
      if (next === "aborted") return { ok: false, reason: "aborted", bytesRead: total };
      if (next.done) break;
      total += next.value.byteLength;
      if (total > maxBytes) return { ok: false, reason: "too_large", bytesRead: total };
      chunks.push(next.value);
    }
  } catch {
    // The stream errored: the signal aborted it (the usual case) or the connection broke mid-body.
    return { ok: false, reason: "aborted", bytesRead: total };
  } finally {
    aborted.settle();
    // Cancelling tells the runtime to drop the connection instead of draining the rest of the body.
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}
