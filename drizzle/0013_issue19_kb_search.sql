-- Issue 19: conversations of earlier versions keep answering from the documents they had.
UPDATE "conversations" SET "kb_id" = 'kb_01m85g5npgfzrtbs7dcm30btjf' WHERE "kb_id" IS NULL;
--> statement-breakpoint
-- Search candidates of one knowledge base, through the GIN index (as knowledge_candidates):
-- the knowledge base is a filter on the index's postings, so another knowledge base's
-- passages are never candidates and never crowd this one's out of the limit.
CREATE FUNCTION knowledge_candidates_in(q tsquery, kb text, lim integer) RETURNS SETOF text
  LANGUAGE sql STABLE ROWS 100 SET enable_seqscan = off
  AS $$ SELECT c.id FROM chunks c WHERE c.tsv @@ q AND c.kb_id = kb LIMIT lim $$;
