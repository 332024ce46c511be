CREATE TABLE "analytics_questions" (
	"message_id" text PRIMARY KEY NOT NULL,
	"conversation_id" text NOT NULL,
	"key_id" text NOT NULL,
	"kb_id" text,
	"question" text,
	"terms" jsonb NOT NULL,
	"certainty" text,
	"sources" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"topic_id" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "analytics_questions_certainty_ck" CHECK ("analytics_questions"."certainty" in ('answered', 'uncertain', 'no_sources'))
);
--> statement-breakpoint
CREATE TABLE "analytics_topics" (
	"id" text PRIMARY KEY NOT NULL,
	"kb_id" text,
	"centroid" jsonb NOT NULL,
	"terms" text[] NOT NULL,
	"members" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "certainty" text;--> statement-breakpoint
ALTER TABLE "analytics_questions" ADD CONSTRAINT "analytics_questions_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_questions" ADD CONSTRAINT "analytics_questions_topic_id_analytics_topics_id_fk" FOREIGN KEY ("topic_id") REFERENCES "public"."analytics_topics"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "analytics_questions_created_idx" ON "analytics_questions" USING btree ("created_at" DESC NULLS FIRST,"message_id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "analytics_questions_kb_created_idx" ON "analytics_questions" USING btree ("kb_id","created_at");--> statement-breakpoint
CREATE INDEX "analytics_questions_topic_idx" ON "analytics_questions" USING btree ("topic_id","created_at");--> statement-breakpoint
CREATE INDEX "analytics_questions_retained_idx" ON "analytics_questions" USING btree ("created_at") WHERE "analytics_questions"."question" is not null;--> statement-breakpoint
CREATE INDEX "analytics_questions_terms_idx" ON "analytics_questions" USING gin ("terms");--> statement-breakpoint
CREATE INDEX "analytics_topics_terms_idx" ON "analytics_topics" USING gin ("terms");--> statement-breakpoint
CREATE INDEX "analytics_topics_kb_idx" ON "analytics_topics" USING btree ("kb_id");--> statement-breakpoint
CREATE INDEX "messages_replies_created_idx" ON "messages" USING btree ("created_at") WHERE "messages"."role" = 'assistant';--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_certainty_ck" CHECK ("messages"."certainty" in ('answered', 'uncertain', 'no_sources'));