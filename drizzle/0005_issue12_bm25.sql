CREATE TABLE "knowledge_stats" (
	"id" integer PRIMARY KEY NOT NULL,
	"passages" bigint NOT NULL,
	"total_len" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "knowledge_terms" (
	"lexeme" text PRIMARY KEY NOT NULL,
	"df" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "chunks" ALTER COLUMN "tsv" DROP EXPRESSION;--> statement-breakpoint
ALTER TABLE "chunks" ADD COLUMN "len" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chunks" ADD COLUMN "tfs" jsonb DEFAULT '{}'::jsonb NOT NULL;