/**
 * Counts the events of an SSE byte stream and finds its terminal status without decoding it: a
 * long reply replayed to many readers passes megabytes through the access log's watcher, and
 * decoding and splitting every chunk into strings churned more memory than the replay itself
 * (issue 18, item 2). Lines are found with `indexOf` on the bytes; only the first bytes of each
 * line are looked at, and only an `end` or `error` event's line is decoded and parsed.
 */
import { terminalStatus } from "./stream-tally.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const DATA = enc("data: ");
const TERMINALS = [enc('data: {"type":"end"'), enc('data: {"type":"error"')];
/** Bytes of a line's start that decide what it is. */
const HEAD = Math.max(...TERMINALS.map((t) => t.length));

function startsWith(bytes: Uint8Array, length: number, prefix: Uint8Array): boolean {
  if (length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** The terminal status an `end` or `error` event's data names (stream-tally.ts's rule); tokens are never parsed. */
function statusOf(data: string): string | undefined {
  try {
    return terminalStatus(JSON.parse(data));
  } catch {
    return undefined;
  }
}

export class SseScanner {
  /** Events seen: frames with a `data:` line. */
  events = 0;
  /** The last terminal event's status, if one was seen. */
  status: string | undefined;

  readonly #head = new Uint8Array(HEAD);
  #headLength = 0;
  #lineLength = 0;
  #decided = false;
  #frameHasData = false;
  #capture: Uint8Array[] | null = null;

  push(chunk: Uint8Array): void {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(10, from);
      const to = newline === -1 ? chunk.length : newline;
      this.#segment(chunk, from, to);
      if (newline === -1) return;
      this.#lineEnd();
      from = newline + 1;
    }
  }

  /** Bytes `from`..`to` of `chunk`, part of the current line (which may span chunks); no views made. */
  #segment(chunk: Uint8Array, from: number, to: number): void {
    this.#lineLength += to - from;
    if (this.#capture) {
      this.#capture.push(chunk.slice(from, to));
      return;
    }
    if (this.#decided) return;
    const take = Math.min(HEAD - this.#headLength, to - from);
    for (let i = 0; i < take; i++) this.#head[this.#headLength + i] = chunk[from + i]!;
    this.#headLength += take;
    if (this.#headLength === HEAD) {
      this.#decide();
      if (this.#capture) (this.#capture as Uint8Array[]).push(chunk.slice(from + take, to));
    }
  }

  /** What the line is, from its first bytes: a data line counts an event; a terminal one is kept. */
  #decide(): void {
    this.#decided = true;
    if (!startsWith(this.#head, this.#headLength, DATA)) return;
    if (!this.#frameHasData) this.events++;
    this.#frameHasData = true;
    // Tokens are most lines: a byte compare, no closures or views per line.
    if (this.#head[DATA.length + 9] === 0x65 /* e */ && this.#isTerminal())
      this.#capture = [this.#head.slice(0, this.#headLength)];
  }

  #isTerminal(): boolean {
    for (const t of TERMINALS) if (startsWith(this.#head, this.#headLength, t)) return true;
    return false;
  }

  #lineEnd(): void {
    if (!this.#decided) this.#decide();
    if (this.#capture) {
      const line = new TextDecoder().decode(concat(this.#capture));
      this.status = statusOf(line.slice(DATA.length).replace(/\r$/, "")) ?? this.status;
    }
    if (this.#lineLength === 0) this.#frameHasData = false; // a blank line ends the frame
    this.#headLength = 0;
    this.#lineLength = 0;
    this.#decided = false;
    this.#capture = null;
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
