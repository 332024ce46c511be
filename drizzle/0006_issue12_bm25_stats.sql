-- BM25 statistics kept by the database itself (hand-written: drizzle-kit cannot express
-- triggers). A row trigger derives each passage's term frequencies (tfs) from its tsvector.
-- Every statement that inserts, deletes or updates passages updates the per-term
-- document frequencies and the passage count and total length in the same transaction, so a
-- replaced or deleted document (also through ON DELETE CASCADE) is never counted twice.
CREATE FUNCTION knowledge_chunk_tfs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- {lexeme: [occurrences in title, in heading, in body]} from the weights tsv carries.
  NEW.tfs := coalesce((
    SELECT jsonb_object_agg(u.lexeme, jsonb_build_array(
      cardinality(array_positions(u.weights, 'A')),
      cardinality(array_positions(u.weights, 'B')),
      cardinality(u.weights) - cardinality(array_positions(u.weights, 'A')) - cardinality(array_positions(u.weights, 'B'))))
    FROM unnest(NEW.tsv) u), '{}'::jsonb);
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER chunks_tfs BEFORE INSERT OR UPDATE OF tsv ON "chunks" FOR EACH ROW EXECUTE FUNCTION knowledge_chunk_tfs();
--> statement-breakpoint
UPDATE "chunks" AS c SET
  "tsv" = setweight(to_tsvector('english', d."title"), 'A')
    || setweight(to_tsvector('english', CASE WHEN c."heading" = d."title" THEN '' ELSE c."heading" END), 'B')
    || setweight(to_tsvector('english', c."content"), 'C'),
  "len" = (SELECT count(*) FROM regexp_matches(
    d."title" || ' ' || CASE WHEN c."heading" = d."title" THEN '' ELSE c."heading" END || ' ' || c."content",
    '[[:alnum:]]+', 'g'))
FROM "documents" AS d WHERE d."id" = c."document_id";
--> statement-breakpoint
CREATE FUNCTION knowledge_stats_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Each branch names only the transition tables its events have (plpgsql plans lazily).
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE knowledge_terms AS t SET df = t.df - o.n
      FROM (SELECT u.lexeme, count(*)::int AS n FROM old_rows r, unnest(r.tsv) u GROUP BY u.lexeme) o
      WHERE t.lexeme = o.lexeme;
    DELETE FROM knowledge_terms AS t
      WHERE t.df <= 0 AND t.lexeme IN (SELECT u.lexeme FROM old_rows r, unnest(r.tsv) u);
    UPDATE knowledge_stats SET passages = passages - s.n, total_len = total_len - s.l
      FROM (SELECT count(*) AS n, coalesce(sum(len), 0) AS l FROM old_rows) s WHERE id = 1;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    -- In lexeme order, so concurrent ingests take the rows' locks in one order.
    INSERT INTO knowledge_terms AS t (lexeme, df)
      SELECT u.lexeme, count(*)::int FROM new_rows r, unnest(r.tsv) u GROUP BY u.lexeme ORDER BY u.lexeme
      ON CONFLICT (lexeme) DO UPDATE SET df = t.df + excluded.df;
    UPDATE knowledge_stats SET passages = passages + s.n, total_len = total_len + s.l
      FROM (SELECT count(*) AS n, coalesce(sum(len), 0) AS l FROM new_rows) s WHERE id = 1;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER chunks_stats_insert AFTER INSERT ON "chunks"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge_stats_track();
--> statement-breakpoint
CREATE TRIGGER chunks_stats_delete AFTER DELETE ON "chunks"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge_stats_track();
--> statement-breakpoint
CREATE TRIGGER chunks_stats_update AFTER UPDATE ON "chunks"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge_stats_track();
--> statement-breakpoint
-- Statistics of the passages already stored.
INSERT INTO knowledge_stats (id, passages, total_len) SELECT 1, count(*), coalesce(sum(len), 0) FROM "chunks";
--> statement-breakpoint
INSERT INTO knowledge_terms (lexeme, df) SELECT u.lexeme, count(*)::int FROM "chunks" c, unnest(c.tsv) u GROUP BY u.lexeme;
--> statement-breakpoint
-- Search candidates through the GIN index. The query is computed inside the search statement,
-- so the planner cannot see its terms and would estimate a full index scan and choose a
-- sequential scan of every passage; inside this function the index is the only way.
CREATE FUNCTION knowledge_candidates(q tsquery, lim integer) RETURNS SETOF text
  LANGUAGE sql STABLE ROWS 100 SET enable_seqscan = off
  AS $$ SELECT c.id FROM chunks c WHERE c.tsv @@ q LIMIT lim $$;
--> statement-breakpoint
-- New entries go straight into the GIN tree: with the pending list (fastupdate), every search
-- scans up to 4 MB of unsorted entries until a vacuum merges them, and PGlite has no autovacuum.
ALTER INDEX "chunks_tsv_idx" SET (fastupdate = off);
--> statement-breakpoint
SELECT gin_clean_pending_list('chunks_tsv_idx');
