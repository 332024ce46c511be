/**
 * GET /v1/analytics/pages: how the period's replies used the knowledge base's pages — the most
 * cited, the most cited in replies rated down, and the pages no reply cited (what nobody needs,
 * or what search never finds). A report of three ranked lists of `limit` each, not a paged list.
 */
import { sql } from "drizzle-orm";
import type { PagesReport, PageUse } from "../contract/index.ts";
import type { Db } from "../db/client.ts";
import { rowsOf } from "../db/rows.ts";
import { type Scope, scopedQuestions } from "./scope.ts";

interface Row {
  url: string;
  title: string | null;
  kb_id: string | null;
  citations: string | number;
  down_citations: string | number;
}

const use = (r: Row): PageUse => ({
  url: r.url,
  title: r.title ?? r.url,
  knowledge_base_id: r.kb_id ?? "",
  citations: Number(r.citations),
  down_citations: Number(r.down_citations),
});

/** Each cited page of the scope with its counts (a URL is a page of one knowledge base). */
const cited = (scope: Scope) => sql`with ${scopedQuestions(scope)},
  c as (
    select q.kb_id, url, count(*) as citations, count(*) filter (where q.rating = 'down') as down_citations
    from q cross join lateral jsonb_array_elements_text(q.sources) as url
    group by q.kb_id, url
  )`;

// Plain equality (not `is not distinct from`): the (kb_id, url) index answers it, and the anti-joins hash.
const titled = sql`(select d.title from documents d where d.kb_id = c.kb_id and d.url = c.url limit 1)`;

export async function pagesReport(db: Db, scope: Scope, limit: number): Promise<PagesReport> {
  const inScope = scope.kbId === undefined ? sql`true` : sql`d.kb_id = ${scope.kbId}`;
  const [top, down, never, total] = await Promise.all([
    rowsOf<Row>(
      db,
      sql`${cited(scope)} select c.url, ${titled} as title, c.kb_id, c.citations, c.down_citations
        from c order by c.citations desc, c.url limit ${limit}`,
    ),
    rowsOf<Row>(
      db,
      sql`${cited(scope)} select c.url, ${titled} as title, c.kb_id, c.citations, c.down_citations
        from c where c.down_citations > 0 order by c.down_citations desc, c.citations, c.url limit ${limit}`,
    ),
    rowsOf<Row>(
      db,
      sql`${cited(scope)} select d.url, d.title, d.kb_id, 0 as citations, 0 as down_citations
        from documents d where ${inScope}
          and not exists (select 1 from c where c.url = d.url and c.kb_id = d.kb_id)
        order by d.updated_at, d.id limit ${limit}`,
    ),
    rowsOf<{ n: string | number }>(
      db,
      sql`${cited(scope)} select count(*) as n from documents d where ${inScope}
          and not exists (select 1 from c where c.url = d.url and c.kb_id = d.kb_id)`,
    ),
  ]);
  return {
    object: "analytics.pages",
    cited: top.map(use),
    down_rated: down.map(use),
    never_cited: never.map(use),
    never_cited_total: Number(total[0]?.n ?? 0),
  };
}
