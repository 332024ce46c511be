ALTER TABLE "analytics_topics" ADD COLUMN "embedding" real[];--> statement-breakpoint
ALTER TABLE "analytics_topics" ADD COLUMN "embedding_model" text;