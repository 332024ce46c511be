CREATE TABLE "idempotency_keys" (
	"key_id" text NOT NULL,
	"idem_key" text NOT NULL,
	"body_hash" text NOT NULL,
	"message_id" text,
	"error_status" integer,
	"error_body" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_key_id_idem_key_pk" PRIMARY KEY("key_id","idem_key")
);
--> statement-breakpoint
CREATE TABLE "message_events" (
	"message_id" text NOT NULL,
	"seq" integer NOT NULL,
	"data" text NOT NULL,
	CONSTRAINT "message_events_message_id_seq_pk" PRIMARY KEY("message_id","seq")
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "lease_until" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "stop_requested" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "last_seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_events" ADD CONSTRAINT "message_events_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "messages_running_idx" ON "messages" USING btree ("lease_until") WHERE "messages"."status" = 'in_progress';