CREATE TABLE "key_knowledge_bases" (
	"key_id" text NOT NULL,
	"kb_id" text NOT NULL,
	CONSTRAINT "key_knowledge_bases_key_id_kb_id_pk" PRIMARY KEY("key_id","kb_id")
);
--> statement-breakpoint
CREATE TABLE "knowledge_bases" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "role" text DEFAULT 'chat' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "last_used_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "key_knowledge_bases" ADD CONSTRAINT "key_knowledge_bases_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key_knowledge_bases" ADD CONSTRAINT "key_knowledge_bases_kb_id_knowledge_bases_id_fk" FOREIGN KEY ("kb_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "key_knowledge_bases_kb_idx" ON "key_knowledge_bases" USING btree ("kb_id");--> statement-breakpoint
CREATE UNIQUE INDEX "knowledge_bases_name_uq" ON "knowledge_bases" USING btree ("name");--> statement-breakpoint
CREATE INDEX "knowledge_bases_created_idx" ON "knowledge_bases" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "api_keys_created_idx" ON "api_keys" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);