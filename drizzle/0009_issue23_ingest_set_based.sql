-- Ingest (issue 23). The ingest statement computes each passage's term frequencies (tfs) from
-- its tsvector itself, for the whole batch; the row trigger now runs only for a row that
-- arrives without them (another writer) or whose tsvector changes.
DROP TRIGGER "chunks_tfs" ON "chunks";
--> statement-breakpoint
CREATE TRIGGER chunks_tfs BEFORE INSERT ON "chunks" FOR EACH ROW WHEN (NEW.tfs = '{}'::jsonb)
  EXECUTE FUNCTION knowledge_chunk_tfs();
--> statement-breakpoint
CREATE TRIGGER chunks_tfs_update BEFORE UPDATE OF tsv ON "chunks" FOR EACH ROW EXECUTE FUNCTION knowledge_chunk_tfs();
--> statement-breakpoint
-- New entries go to the GIN index's pending list and are merged into the tree in bulk: when the
-- list outgrows gin_pending_list_limit (during the insert that fills it) and at the end of every
-- ingest (knowledge/service.ts calls gin_clean_pending_list), so no search scans a pending list
-- once an ingest has returned. Merging in bulk is several times cheaper than one tree insert per
-- entry (fastupdate = off, migration 0006).
ALTER INDEX "chunks_tsv_idx" SET (fastupdate = on);
