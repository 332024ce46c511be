-- Issue 23: the stored per-field term counts, no longer read (0021).
ALTER TABLE "chunks" DROP COLUMN "tfs";