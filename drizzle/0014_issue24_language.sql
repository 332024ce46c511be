ALTER TABLE "documents" ADD COLUMN "language" text DEFAULT 'english' NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "language" text;