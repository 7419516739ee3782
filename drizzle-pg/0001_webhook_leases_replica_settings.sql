CREATE TABLE "replica_settings" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "lease_until" bigint;