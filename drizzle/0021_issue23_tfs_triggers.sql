-- Ingest (issue 23): search reads each candidate's per-field term counts from its tsvector at
-- query time (knowledge/search.ts), so the stored counts (chunks.tfs) and the row triggers that
-- derived them (drizzle/0006, 0009) go: building them was a third of every ingest. The column
-- stays one release (schema-knowledge.ts): instances of the previous release, during a rolling
-- deploy on one PostgreSQL, still write and read it.
DROP TRIGGER IF EXISTS "chunks_tfs" ON "chunks";
--> statement-breakpoint
DROP TRIGGER IF EXISTS "chunks_tfs_update" ON "chunks";
--> statement-breakpoint
DROP FUNCTION IF EXISTS knowledge_chunk_tfs();
