CREATE TABLE `replica_settings` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `webhook_events` ADD `lease_until` integer;