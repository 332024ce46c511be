ALTER TABLE "chunks" ADD COLUMN "words" integer;--> statement-breakpoint
ALTER TABLE "knowledge_base_stats" ADD COLUMN "total_words" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The knowledge base's size in words (knowledge/search.ts: the abstention scales an unseen
-- word's weight by it): chunks.len counts a CJK word's character pairs and characters as words
-- too, several times its words. Kept by the same statement triggers as the rest, in the ingest's
-- own transaction; a row without `words` (written by an earlier release during a rolling deploy)
-- counts its `len`. Writers are held off while the column is filled.
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
    UPDATE knowledge_base_stats AS k
      SET passages = k.passages - s.n, total_len = k.total_len - s.l, total_words = k.total_words - s.w
      FROM (SELECT kb_id, count(*) AS n, coalesce(sum(len), 0) AS l, coalesce(sum(coalesce(words, len)), 0) AS w
        FROM old_rows GROUP BY kb_id) s
      WHERE k.kb_id = s.kb_id;
    DELETE FROM knowledge_base_stats AS k WHERE k.passages <= 0 AND k.kb_id IN (SELECT kb_id FROM old_rows);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    -- In key order, so concurrent ingests take the rows' locks in one order.
    INSERT INTO knowledge_base_terms AS t (lexeme, kb_id, df)
      SELECT u.lexeme, r.kb_id, count(*)::int FROM new_rows r, unnest(r.tsv) u
      GROUP BY u.lexeme, r.kb_id ORDER BY u.lexeme, r.kb_id
      ON CONFLICT (lexeme, kb_id) DO UPDATE SET df = t.df + excluded.df;
    INSERT INTO knowledge_base_stats AS k (kb_id, passages, total_len, total_words)
      SELECT kb_id, count(*), coalesce(sum(len), 0), coalesce(sum(coalesce(words, len)), 0)
      FROM new_rows GROUP BY kb_id ORDER BY kb_id
      ON CONFLICT (kb_id) DO UPDATE SET passages = k.passages + excluded.passages,
        total_len = k.total_len + excluded.total_len, total_words = k.total_words + excluded.total_words;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
UPDATE "knowledge_base_stats" AS k SET "total_words" = s.w
  FROM (SELECT "kb_id", coalesce(sum(coalesce("words", "len")), 0) AS w FROM "chunks" GROUP BY "kb_id") s
  WHERE k."kb_id" = s."kb_id";
