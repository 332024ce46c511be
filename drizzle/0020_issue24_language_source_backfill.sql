-- Issue 24: where the language of a document stored before 0019 came from was not recorded, so
-- it is inferred from the rule ingest applied (the document's own, else its knowledge base's,
-- else detected): the knowledge base's language → `knowledge_base`; a knowledge base without
-- one → `detected`; anything else could only have been the document's own (0019's default,
-- `explicit`). A document that brought the language its knowledge base also has, or brought
-- one into a knowledge base without any, is counted as inherited or detected: re-ingest it to
-- record it as its own.
UPDATE "documents" AS d SET "language_source" = CASE
    WHEN kb."language" IS NULL THEN 'detected'
    ELSE 'knowledge_base'
  END
  FROM "knowledge_bases" AS kb
  WHERE kb."id" = d."kb_id" AND (kb."language" IS NULL OR kb."language" = d."language");
