CREATE TABLE "spent_proofs" (
	"signature" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "visitor_rate_limits" (
	"key_id" text NOT NULL,
	"subject" text NOT NULL,
	"ends" bigint[] DEFAULT '{}'::bigint[] NOT NULL,
	"cum" bigint[] DEFAULT '{0}'::bigint[] NOT NULL,
	"day" date NOT NULL,
	"day_count" integer NOT NULL,
	CONSTRAINT "visitor_rate_limits_key_id_subject_pk" PRIMARY KEY("key_id","subject")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "widget" jsonb;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "user_token_secret" text;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "visitor_id" text;--> statement-breakpoint
ALTER TABLE "visitor_rate_limits" ADD CONSTRAINT "visitor_rate_limits_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "spent_proofs_expires_idx" ON "spent_proofs" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "visitor_rate_limits_day_idx" ON "visitor_rate_limits" USING btree ("day");--> statement-breakpoint
CREATE INDEX "conversations_visitor_created_idx" ON "conversations" USING btree ("key_id","visitor_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) WHERE "conversations"."visitor_id" is not null;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_public_widget_ck" CHECK (("api_keys"."role" = 'public') = ("api_keys"."widget" is not null));--> statement-breakpoint
-- Counters only, like rate_limits (0008): a crash may forget the last moments of counting, nothing else.
ALTER TABLE "visitor_rate_limits" SET UNLOGGED;