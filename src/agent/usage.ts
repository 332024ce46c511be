/**
 * The code a quote brings with it: a cited page's usage example (what to install, import, call),
 * which rarely shares the question's words.
 */
import type { SearchHit } from "../knowledge/index.ts";
import type { Extract } from "./extract.ts";
import { type Piece, piecesOf } from "./pieces.ts";

/** Longest code block quoted whole. */
export const MAX_CODE_CHARS = 1_500;
/** A code block short enough to quote whole. */
export const quotableCode = (piece: Piece | undefined) => !!piece?.code && piece.text.length <= MAX_CODE_CHARS;

/**
 * Each cited page's usage joins its quote, unless quoted already: the code a quote brings is the
 * one sharing the question's words, and a page's usage rarely does. The usage is the code block
 * that uses most of what the page's prose names as inline code, each name counted as often as
 * the prose writes it (`useReducer` on the reducer page; React's and Vue's pages open with the
 * code the page replaces, so their first block is not their usage), with the page's first block
 * (install, import: "How do I install the Eden client?" wants `bun add @elysia/eden`) while the
 * two fit in one block's room. The best page is read whole; another cited page offers the
 * passages search returned for it, and gets its usage only when its quote holds no code.
 */
export function withUsage(chosen: Extract[][], hits: SearchHit[]): Extract[][] {
  return chosen.map((page, i) => {
    if (i > 0 && page.some((e) => e.pieces.some((p) => p.code))) return page;
    return withPageUsage(
      page,
      hits.filter((h) => h.url === page[0]!.hit.url),
    );
  });
}

function withPageUsage(page: Extract[], hits: SearchHit[]): Extract[] {
  const pieces = hits.map((hit) => ({ hit, pieces: piecesOf(hit.content) }));
  const blocks = pieces.flatMap(({ hit, pieces }) => pieces.filter(quotableCode).map((code) => ({ hit, code })));
  if (blocks.length === 0) return page;
  const names = namesOf(pieces.flatMap((x) => x.pieces.filter((p) => !p.code).map((p) => p.text)));
  const scores = blocks.map(({ code }) => names.reduce((s, [name, n]) => s + (name.test(code.text) ? n : 0), 0));
  const named = blocks[scores.indexOf(Math.max(...scores))]!;
  const first = blocks[0]!;
  const fit = named.code.text.length + first.code.text.length <= MAX_CODE_CHARS;
  return (named === first || !fit ? [named] : [first, named]).reduce((out, b) => withCode(out, b.hit, b.code), page);
}

function withCode(page: Extract[], hit: SearchHit, code: Piece): Extract[] {
  if (page.some((e) => e.pieces.some((p) => p.text === code.text))) return page;
  // Within a passage already quoted, the code joins that quote (one heading, in page order).
  const same = page.findIndex((e) => e.hit.id === hit.id);
  if (same >= 0) return page.map((e, i) => (i === same ? { ...e, pieces: [...e.pieces, code] } : e));
  return [...page, { hit, pieces: [code], score: 0 }];
}

const INLINE_CODE = /`([^`\n]+)`/g;
const NAME = /[\p{L}_$][\p{L}\p{N}_$-]*/u;

/**
 * The names the page's prose writes as inline code (`useReducer()`, `<Teleport>`, `v-model`),
 * each as a pattern matching it as a whole name in code, with how often the prose writes it.
 */
function namesOf(prose: string[]): [RegExp, number][] {
  const names = new Map<string, number>();
  for (const text of prose)
    for (const m of text.matchAll(INLINE_CODE)) {
      const name = m[1]!.match(NAME)?.[0];
      if (name && name.length >= 3) names.set(name, (names.get(name) ?? 0) + 1);
    }
  const whole = (name: string) =>
    new RegExp(`(?<![\\p{L}\\p{N}_$-])${name.replaceAll("$", "\\$")}(?![\\p{L}\\p{N}_$-])`, "u");
  return [...names].map(([name, n]) => [whole(name), n]);
}
