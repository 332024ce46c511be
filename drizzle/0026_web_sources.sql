CREATE TABLE "source_pages" (
	"source_id" text NOT NULL,
	"url" text NOT NULL,
	"document_url" text NOT NULL,
	"title" text NOT NULL,
	"markdown" text NOT NULL,
	"lang" text,
	"links" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"etag" text,
	"last_modified" text,
	"stored_hash" text,
	"seen_sync_id" text NOT NULL,
	CONSTRAINT "source_pages_source_id_url_pk" PRIMARY KEY("source_id","url")
);
--> statement-breakpoint
CREATE TABLE "source_syncs" (
	"id" text PRIMARY KEY NOT NULL,
	"source_id" text NOT NULL,
	"status" text NOT NULL,
	"trigger" text NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"finished_at" timestamp (3) with time zone,
	"lease_until" timestamp (3) with time zone NOT NULL,
	"pages" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error" text,
	CONSTRAINT "source_syncs_status_ck" CHECK ("source_syncs"."status" in ('running', 'completed', 'failed', 'cancelled')),
	CONSTRAINT "source_syncs_trigger_ck" CHECK ("source_syncs"."trigger" in ('created', 'manual', 'scheduled'))
);
--> statement-breakpoint
CREATE TABLE "sources" (
	"id" text PRIMARY KEY NOT NULL,
	"kb_id" text NOT NULL,
	"type" text NOT NULL,
	"url" text NOT NULL,
	"include" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"exclude" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"max_pages" integer NOT NULL,
	"max_depth" integer NOT NULL,
	"keep_query" boolean DEFAULT false NOT NULL,
	"refresh_interval_hours" integer,
	"next_sync_at" timestamp (3) with time zone,
	"allow_large_deletions" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "sources_type_ck" CHECK ("sources"."type" in ('auto', 'sitemap', 'crawl', 'llms_txt'))
);
--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "source_id" text;--> statement-breakpoint
ALTER TABLE "source_pages" ADD CONSTRAINT "source_pages_source_id_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_syncs" ADD CONSTRAINT "source_syncs_source_id_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sources" ADD CONSTRAINT "sources_kb_id_knowledge_bases_id_fk" FOREIGN KEY ("kb_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "source_pages_seen_idx" ON "source_pages" USING btree ("source_id","seen_sync_id");--> statement-breakpoint
CREATE UNIQUE INDEX "source_syncs_running_uq" ON "source_syncs" USING btree ("source_id") WHERE "source_syncs"."status" = 'running';--> statement-breakpoint
CREATE INDEX "source_syncs_source_idx" ON "source_syncs" USING btree ("source_id","id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "source_syncs_lease_idx" ON "source_syncs" USING btree ("lease_until") WHERE "source_syncs"."status" = 'running';--> statement-breakpoint
CREATE UNIQUE INDEX "sources_kb_url_uq" ON "sources" USING btree ("kb_id","url");--> statement-breakpoint
CREATE INDEX "sources_kb_id_idx" ON "sources" USING btree ("kb_id","id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "sources_next_sync_idx" ON "sources" USING btree ("next_sync_at");--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_source_id_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "documents_source_idx" ON "documents" USING btree ("source_id");