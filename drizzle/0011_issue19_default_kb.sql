-- Issue 19: the knowledge base named `default`, with a fixed id (DEFAULT_KB_ID in
-- src/knowledge/bases.ts): the documents of earlier versions move there (migration 0010's
-- column default), and every existing key may use it, as every key could before.
INSERT INTO "knowledge_bases" ("id", "name", "description", "created_at", "updated_at")
  VALUES ('kb_01m85g5npgfzrtbs7dcm30btjf', 'default', 'The knowledge base of keys that name none.', now(), now())
  ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO "key_knowledge_bases" ("key_id", "kb_id")
  SELECT "id", 'kb_01m85g5npgfzrtbs7dcm30btjf' FROM "api_keys" ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- The sample is seeded into an empty store only, once: a store that already has documents
-- counts as seeded, so deleting the sample later never brings it back.
INSERT INTO "instance_secrets" ("name", "value")
  SELECT 'sample_seeded', 'migrated' WHERE EXISTS (SELECT 1 FROM "documents") ON CONFLICT DO NOTHING;
