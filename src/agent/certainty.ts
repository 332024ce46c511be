/**
 * How sure a reply is of its answer (contract/analytics.ts), the same rule for every agent:
 * - nothing found in the knowledge base, nothing cited: `no_sources`;
 * - passages found but none cited (a model answered from elsewhere, or declined): `uncertain`;
 * - cited, but even the best passage found holds less of the question's weight than half-way
 *   from search's abstention bar to all of it (search answered, but barely — the thin margin):
 *   `uncertain`;
 * - else `answered`.
 * The bar is search's own (SEARCH_DEFAULTS.minCoverage), so the two stay one rule rather than a
 * second constant fitted here.
 */
import type { Certainty } from "../contract/analytics.ts";
import { SEARCH_DEFAULTS } from "../knowledge/index.ts";

/** Below this coverage, a passage answers only barely. */
export const THIN_COVERAGE = (SEARCH_DEFAULTS.minCoverage + 1) / 2;

export function certaintyOf(found: readonly { coverage?: number }[], cited: number): Certainty {
  if (cited === 0) return found.length ? "uncertain" : "no_sources";
  const coverages = found.flatMap((p) => (p.coverage === undefined ? [] : [p.coverage]));
  // Found by other means only (a model's later search call): no coverage to judge by, the citation stands.
  if (coverages.length === 0) return "answered";
  return Math.max(...coverages) < THIN_COVERAGE ? "uncertain" : "answered";
}
