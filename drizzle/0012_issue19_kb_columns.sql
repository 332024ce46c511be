ALTER TABLE "documents" DROP CONSTRAINT "documents_url_unique";--> statement-breakpoint
ALTER TABLE "chunks" ADD COLUMN "kb_id" text DEFAULT 'kb_01m85g5npgfzrtbs7dcm30btjf' NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "kb_id" text;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "kb_id" text DEFAULT 'kb_01m85g5npgfzrtbs7dcm30btjf' NOT NULL;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "metadata" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_kb_id_knowledge_bases_id_fk" FOREIGN KEY ("kb_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_kb_id_knowledge_bases_id_fk" FOREIGN KEY ("kb_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "documents_kb_url_uq" ON "documents" USING btree ("kb_id","url");--> statement-breakpoint
CREATE INDEX "documents_kb_id_idx" ON "documents" USING btree ("kb_id","id" DESC NULLS FIRST);