CREATE TABLE `webhook_attempts` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`url` text NOT NULL,
	`at` integer NOT NULL,
	`status_code` integer,
	`latency_ms` integer NOT NULL,
	`response` text,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_event` ON `webhook_attempts` (`event_id`,`attempt`);--> statement-breakpoint
CREATE INDEX `webhook_attempts_tenant` ON `webhook_attempts` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`type` text NOT NULL,
	`extension` integer NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_events_id_unique` ON `webhook_events` (`id`);--> statement-breakpoint
CREATE INDEX `webhook_events_tenant_seq` ON `webhook_events` (`tenant_id`,`seq`);--> statement-breakpoint
CREATE INDEX `webhook_events_due` ON `webhook_events` (`status`,`next_attempt_at`);--> statement-breakpoint
ALTER TABLE `tenants` ADD `webhook_url` text;--> statement-breakpoint
ALTER TABLE `tenants` ADD `webhook_secret` text;