ALTER TABLE "messages" ADD COLUMN "token_offsets" integer[];--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "compacted_events" jsonb;--> statement-breakpoint
CREATE INDEX "messages_compact_due_idx" ON "messages" USING btree ("created_at") WHERE "messages"."role" = 'assistant' and "messages"."status" <> 'in_progress' and "messages"."token_offsets" is null;