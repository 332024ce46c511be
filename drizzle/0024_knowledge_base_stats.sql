CREATE TABLE "knowledge_base_stats" (
	"kb_id" text PRIMARY KEY NOT NULL,
	"passages" bigint NOT NULL,
	"total_len" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "knowledge_base_terms" (
	"kb_id" text NOT NULL,
	"lexeme" text NOT NULL,
	"df" integer NOT NULL,
	CONSTRAINT "knowledge_base_terms_lexeme_kb_id_pk" PRIMARY KEY("lexeme","kb_id")
);
--> statement-breakpoint
-- Search statistics per knowledge base (knowledge/search.ts): a search of one knowledge base
-- scores with its own document frequencies, passage count and average length, so another
-- knowledge base's documents never move its scores or its abstention; the whole store's figures
-- are these rows summed. The statement triggers keep them instead of knowledge_terms and
-- knowledge_stats, in the ingest's own transaction (keeping both cost a third of an ingest's
-- speed). Those two stay one release, no longer moving: instances of the previous release,
-- during a rolling deploy on one PostgreSQL, still read them. Writers are held off while the
-- new tables are filled, so no passage is counted twice or missed.
LOCK TABLE "chunks" IN SHARE ROW EXCLUSIVE MODE;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION knowledge_stats_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Each branch names only the transition tables its events have (plpgsql plans lazily).
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE knowledge_base_terms AS t SET df = t.df - o.n
      FROM (SELECT u.lexeme, r.kb_id, count(*)::int AS n FROM old_rows r, unnest(r.tsv) u GROUP BY u.lexeme, r.kb_id) o
      WHERE t.lexeme = o.lexeme AND t.kb_id = o.kb_id;
    DELETE FROM knowledge_base_terms AS t
      WHERE t.df <= 0 AND (t.lexeme, t.kb_id) IN (SELECT u.lexeme, r.kb_id FROM old_rows r, unnest(r.tsv) u);
    UPDATE knowledge_base_stats AS k SET passages = k.passages - s.n, total_len = k.total_len - s.l
      FROM (SELECT kb_id, count(*) AS n, coalesce(sum(len), 0) AS l FROM old_rows GROUP BY kb_id) s
      WHERE k.kb_id = s.kb_id;
    DELETE FROM knowledge_base_stats AS k WHERE k.passages <= 0 AND k.kb_id IN (SELECT kb_id FROM old_rows);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    -- In key order, so concurrent ingests take the rows' locks in one order.
    INSERT INTO knowledge_base_terms AS t (lexeme, kb_id, df)
      SELECT u.lexeme, r.kb_id, count(*)::int FROM new_rows r, unnest(r.tsv) u
      GROUP BY u.lexeme, r.kb_id ORDER BY u.lexeme, r.kb_id
      ON CONFLICT (lexeme, kb_id) DO UPDATE SET df = t.df + excluded.df;
    INSERT INTO knowledge_base_stats AS k (kb_id, passages, total_len)
      SELECT kb_id, count(*), coalesce(sum(len), 0) FROM new_rows GROUP BY kb_id ORDER BY kb_id
      ON CONFLICT (kb_id) DO UPDATE SET passages = k.passages + excluded.passages, total_len = k.total_len + excluded.total_len;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Statistics of the passages already stored.
INSERT INTO "knowledge_base_stats" ("kb_id", "passages", "total_len")
  SELECT "kb_id", count(*), coalesce(sum("len"), 0) FROM "chunks" GROUP BY "kb_id";
--> statement-breakpoint
INSERT INTO "knowledge_base_terms" ("lexeme", "kb_id", "df")
  SELECT u.lexeme, c."kb_id", count(*)::int FROM "chunks" c, unnest(c."tsv") u GROUP BY u.lexeme, c."kb_id";
